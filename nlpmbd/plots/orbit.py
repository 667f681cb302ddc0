"""Figures of radial clearance joints (plots/clearance_data.py), one file per joint,
clearance_<joint>.<fmt>: on top the journal orbit inside the clearance circle, offset / c in the
hole's (socket's) body axes with the unit circle drawn, one panel per pin end (a ball: its three
projections), the start marked with a circle and impacts (the normal force rising from zero)
with crosses; below, against time, the eccentricity e / c per end, the normal forces (from row 1,
drawn at the start of their step), and for joints with axial stops the pin's axial position
between the stops (2 z / c_a, the stops at -1 and +1)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..io.figure_list import figure_stem
from ..io.result import SimulationResult
from .clearance_data import Track, axial_position, joint_tracks, radial_joints
from .saving import save_figure
from .scales import (
    fixed_layout,
    force_rows,
    legend,
    literal,
    min_span,
    relative_span,
    style,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: At most this many joints get a figure (the first ones in joint order).
MAX_JOINTS = 8
#: Limits of the orbit panels (offset / c): room for a little penetration.
ORBIT_LIMIT = 1.2


def clearance_figures(result: SimulationResult, out: Path, fmt: str, dpi: float) -> list[Path]:
    """Write clearance_<joint>.<fmt> for the first MAX_JOINTS radial clearance joints."""
    return [
        save_figure(
            clearance_figure(result, joint, geometry),
            out / f"clearance_{figure_stem(joint)}.{fmt}",
            dpi,
        )
        for joint, geometry in radial_joints(result)[:MAX_JOINTS]
    ]


def clearance_figure(result: SimulationResult, joint: str, geometry: dict) -> Figure:
    """The figure of one radial clearance joint: orbit axes first, then the time axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    tracks = joint_tracks(result, joint, geometry)
    axial = axial_position(result, joint, geometry)
    n_orbit = 3 if geometry["clearance_kind"] == "ball" else len(tracks)
    n_time = 2 + (axial is not None)
    fig = Figure(figsize=(max(9.0, 3.6 * n_orbit), 4.0 + 2.2 * n_time))
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(1 + n_time, n_orbit, height_ratios=[1.7] + [1.0] * n_time)
    orbit_axes = [fig.add_subplot(grid[0, k]) for k in range(n_orbit)]
    time_axes = [fig.add_subplot(grid[1, :])]
    time_axes += [
        fig.add_subplot(grid[1 + i, :], sharex=time_axes[0]) for i in (1, 2)[: n_time - 1]
    ]
    _orbits(orbit_axes, tracks)
    _histories(time_axes, result, tracks, axial)
    c = float(geometry["clearance"])
    case = result.meta.get("case")
    prefix = f"{literal(case)}: " if case else ""
    fig.suptitle(
        f"{prefix}clearance joint {literal(repr(joint))} (c = {1e3 * c:.4g} mm)\njournal orbit "
        "(o: start, x: impacts, where the normal force rises from zero)"
    )
    for ax in time_axes[:-1]:
        ax.tick_params(labelbottom=False)
    fixed_layout(fig, 1 + n_time, n_orbit, hgap=0.6, wgap=1.0, top=0.95)
    return fig


def _orbits(axes: list[Axes], tracks: list[Track]) -> None:
    """Pins: one panel per track; a ball (one track): its (x, y), (y, z), (z, x) projections."""
    from matplotlib.patches import Circle

    if len(axes) == 3 and len(tracks) == 1 and tracks[0].coords.shape[1] == 3:
        views = [(tracks[0], (i, (i + 1) % 3)) for i in range(3)]
    else:
        views = [(track, (0, 1)) for track in tracks]
    for k, (ax, (track, (i, j))) in enumerate(zip(axes, views, strict=True)):
        x, y = track.coords[:, i], track.coords[:, j]
        ax.add_patch(Circle((0.0, 0.0), 1.0, fill=False, color="0.3", lw=1.0, ls="--"))
        ax.plot(x, y, lw=0.6, color=style(k)["color"])
        ax.plot(x[:1], y[:1], "o", mfc="none", color="k", ms=6)
        hit = track.impacts
        ax.plot(x[hit], y[hit], "x", color="tab:red", ms=6)
        ax.set_xlim(-ORBIT_LIMIT, ORBIT_LIMIT)
        ax.set_ylim(-ORBIT_LIMIT, ORBIT_LIMIT)
        ax.set_aspect("equal")
        ball = track.coords.shape[1] == 3
        title = f"{track.label}: {'xyz'[i]}-{'xyz'[j]} projection" if ball else track.label
        ax.set_title(f"{literal(title)}, {hit.size} impacts", fontsize="medium")
        frame = "global" if track.frame == "ground" else literal(repr(track.frame))
        ax.set_xlabel(f"offset along {track.axis_names[i]} of {frame} / c")
        ax.set_ylabel(f"offset along {track.axis_names[j]} of {frame} / c")
        ax.grid(True, alpha=0.35)


def _histories(
    axes: list[Axes],
    result: SimulationResult,
    tracks: list[Track],
    axial: tuple[np.ndarray, np.ndarray, tuple[str, str]] | None,
) -> None:
    t, rows = force_rows(result)
    for k, track in enumerate(tracks):
        kw = style(k)
        axes[0].plot(result.t, track.eccentricity, lw=0.9, label=track.label, **kw)
        axes[1].plot(t, track.force[rows], lw=0.9, label=track.label, **kw)
        hit = track.impacts
        axes[0].plot(result.t[hit], track.eccentricity[hit], "x", color="tab:red", ms=5)
    axes[0].axhline(1.0, color="0.3", ls="--", lw=0.8)
    axes[0].set_ylabel("eccentricity e / c (1)")
    axes[1].set_ylabel("normal force (N)")
    min_span(axes[0], 1e-3)
    if axial is not None:
        position, forces, (low, high) = axial
        for m in (0, 1):
            kw = style(len(tracks) + m)
            axes[1].plot(t, forces[rows, m], lw=0.9, label=f"stop{m + 1}", **kw)
        axes[2].plot(result.t, position, lw=0.9, color="k", label="axial position")
        for level in (-1.0, 1.0):
            axes[2].axhline(level, color="0.3", ls="--", lw=0.8)
        axes[2].set_ylabel(f"axial position 2z / $c_a$\n(-1: {literal(low)}, +1: {literal(high)})")
        axes[2].set_ylim(-1.25, 1.25)
    drawn = [np.asarray(line.get_ydata(), dtype=float) for line in axes[1].lines]
    min_span(axes[1], relative_span(drawn, 1e-6))
    for ax in axes:
        ax.grid(True, alpha=0.35)
        if len(ax.get_legend_handles_labels()[1]) > 1:
            legend(ax, fontsize="small")
    axes[-1].set_xlabel("time t (s)")
