"""Standard figures of a SimulationResult: positions, velocities, step size, residuals, energy,
joint forces (the paper's CF-x, CF-y, CF-z), and when the system has contacts the contact forces,
gaps and contact-point tracks (joint end points, slider vertices). A second result can be drawn
dashed over the first (`overlay`, e.g. the ideal-joint run under a clearance run).

Matplotlib is imported inside `plot_result` only, so `import nlpmbd` never loads it. Figures are
plain `matplotlib.figure.Figure` objects on an Agg canvas: no pyplot, no global state, nothing to
close (each figure is cleared after saving and then dropped).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..io.result import SimulationResult
from .joint_figures import joint_figures

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Values below this are drawn at this level on log axes (so exact zeros stay visible).
LOG_FLOOR = 1e-18
#: Legends with more entries than this are left out (the plot would be all legend).
MAX_LEGEND = 24

Draw = Callable[[list["Axes"], SimulationResult], None]


def plot_result(
    result: SimulationResult,
    out_dir: str | os.PathLike,
    *,
    fmt: str = "png",
    dpi: int = 120,
    overlay: SimulationResult | None = None,
    overlay_label: str = "reference",
) -> list[Path]:
    """Write the standard figures of a result into out_dir and return their paths.

    `overlay` (same bodies and joints by name) is drawn dashed in positions, velocities, energy
    and joint forces, labelled `overlay_label`.
    """
    from matplotlib.backend_bases import FigureCanvasBase

    if fmt not in FigureCanvasBase.get_supported_filetypes():
        raise InputError(f"unsupported figure format {fmt!r}")
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Real) or not dpi > 0:
        raise InputError(f"dpi must be a positive number, got {dpi!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    case = result.meta.get("case")
    prefix = f"{case}: " if case else ""
    over = (overlay, overlay_label) if overlay is not None else None
    figures: list[tuple[str, str, tuple[int, int], Draw]] = [
        ("positions", "centre-of-mass positions", (3, 1), partial(_positions, over=over)),
        ("velocities", "centre-of-mass velocities", (3, 1), partial(_velocities, over=over)),
        ("step_size", f"step size and {result.iteration_unit}", (2, 1), _step_size),
        ("residuals", "residuals per step", (2, 2), _residuals),
        ("energy", "energy", (2, 1), partial(_energy, over=over)),
    ]
    if result.joint_force.shape[1] > 0:
        figures.append(
            (
                "joint_forces",
                "joint forces on the moving body (CF-x, CF-y, CF-z)",
                (3, 1),
                partial(_joint_forces, over=over),
            )
        )
    if result.lam.shape[1] > 0:
        figures.append(("contacts", "contact forces and gaps", (2, 1), _contacts))
        figures.append(("contact_points", "contact points (global)", (3, 1), _contact_points))
    paths = [
        _save(result, out / f"{name}.{fmt}", prefix + title, shape, draw, dpi)
        for name, title, shape, draw in figures
    ]
    # figures that joints declare (describe()["figures"]; plots/joint_figures.py)
    paths += joint_figures(result, out, dpi)
    return paths


def _save(
    result: SimulationResult, path: Path, title: str, shape: tuple[int, int], draw: Draw, dpi: float
) -> Path:
    """Create a figure with a grid of axes sharing the time axis, draw, finish and write it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows, cols = shape
    fig = Figure(figsize=(5.0 + 3.5 * cols, 1.0 + 2.3 * rows))
    FigureCanvasAgg(fig)
    grid = fig.subplots(rows, cols, sharex=True, squeeze=False)
    axes = list(grid.ravel())
    draw(axes, result)
    for ax in axes:
        ax.grid(True, which="major", alpha=0.35)
        n_labels = len(ax.get_legend_handles_labels()[1])
        if 0 < n_labels <= MAX_LEGEND:
            ax.legend(fontsize="small", ncol=1 + (n_labels - 1) // 8)
    for ax in grid[-1]:
        ax.set_xlabel("time t (s)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    fig.clear()
    return path


def _note(ax: Axes, text: str, y: float = 0.5) -> None:
    ax.text(0.5, y, text, transform=ax.transAxes, ha="center", va="center", color="0.4")


def _labels(names: object, count: int, stem: str) -> list[str]:
    """Names from the metadata when they fit the number of columns, generic ones otherwise."""
    if isinstance(names, list | tuple) and len(names) == count:
        return [str(s) for s in names]
    return [f"{stem} {k + 1}" for k in range(count)]


Overlay = tuple[SimulationResult, str] | None


def _per_body(
    axes: list[Axes], result: SimulationResult, width: int, name: str, unit: str, over: Overlay
) -> None:
    n_bodies = result.q.shape[1] // 7
    bodies = _labels(result.meta.get("bodies"), n_bodies, "body")
    cols = result.q if width == 7 else result.v
    marker = "o" if result.t.size < 2 else None
    other = over[0].body_names if over else []
    for i, (ax, coord) in enumerate(zip(axes, "xyz", strict=True)):
        for k, body in enumerate(bodies):
            label = body if i == 0 else "_nolegend_"
            (line,) = ax.plot(result.t, cols[:, width * k + i], marker=marker, label=label)
            if over and body in other:
                ref = over[0].q if width == 7 else over[0].v
                j = other.index(body)
                _dashed(ax, over, ref[:, width * j + i], line, body if i == 0 else None)
        ax.set_ylabel(f"{name.format(coord)} ({unit})")
        ax.ticklabel_format(axis="y", useOffset=False)  # plain numbers, no "1e-5+0.4999"
    if not bodies:
        _note(axes[0], "no bodies")


def _dashed(
    ax: Axes, over: tuple[SimulationResult, str], y: np.ndarray, line: Any, name: str | None
) -> None:
    """The overlay's curve, dashed in the colour of the run's own `line`."""
    label = f"{name} ({over[1]})" if name else "_nolegend_"
    ax.plot(over[0].t, y, "--", color=line.get_color(), lw=1.0, alpha=0.8, label=label)


def _positions(axes: list[Axes], result: SimulationResult, over: Overlay = None) -> None:
    _per_body(axes, result, 7, "{}", "m", over)


def _velocities(axes: list[Axes], result: SimulationResult, over: Overlay = None) -> None:
    _per_body(axes, result, 6, "d{}/dt", "m/s", over)


def _joint_forces(axes: list[Axes], result: SimulationResult, over: Overlay = None) -> None:
    names = _labels(result.meta.get("joints"), result.joint_force.shape[1], "joint")
    other = list(over[0].meta.get("joints", [])) if over else []
    for i, (ax, coord) in enumerate(zip(axes, "xyz", strict=True)):
        for k, name in enumerate(names):
            label = name if i == 0 else "_nolegend_"
            (line,) = ax.plot(result.t, result.joint_force[:, k, i], lw=0.9, label=label)
            if over and name in other:
                j = other.index(name)
                _dashed(ax, over, over[0].joint_force[:, j, i], line, name if i == 0 else None)
        ax.set_ylabel(f"CF-{coord} (N)")


def _contact_points(axes: list[Axes], result: SimulationResult) -> None:
    """Tracks of the distinct contact points (a vertex shared by two gaps is drawn once)."""
    labels = _labels(result.meta.get("contact_labels"), result.lam.shape[1], "contact")
    seen: list[np.ndarray] = []
    for j, label in enumerate(labels):
        track = result.contact_point[:, j, :]
        if any(track.shape == s.shape and np.allclose(track, s) for s in seen):
            continue
        seen.append(track)
        for i, ax in enumerate(axes):
            ax.plot(result.t, track[:, i], lw=0.9, label=label if i == 0 else "_nolegend_")
    for ax, coord in zip(axes, "xyz", strict=True):
        ax.set_ylabel(f"{coord} (m)")
        ax.ticklabel_format(axis="y", useOffset=False)


def _step_size(axes: list[Axes], result: SimulationResult) -> None:
    from matplotlib.ticker import LogFormatter, MaxNLocator

    t1, h = result.t[1:], result.h
    axes[0].set_ylabel("step size h (ms)")
    axes[1].set_ylabel(result.iteration_unit)
    if h.size == 0:
        for ax in axes:
            _note(ax, "no steps")
        return
    axes[0].plot(t1, 1e3 * h, ".-", ms=3, lw=0.8)
    if h.min() > 0 and h.max() > 3 * h.min():
        axes[0].set_yscale("log")
        for axis_ticks in (axes[0].yaxis.set_major_formatter, axes[0].yaxis.set_minor_formatter):
            axis_ticks(LogFormatter(labelOnlyBase=False))  # "0.5", "2", not "2x10^0"
    else:  # from zero: a (nearly) constant h must not magnify rounding noise
        axes[0].set_ylim(0.0, 1.15e3 * h.max())
    axes[1].plot(t1, result.iterations, ".-", ms=3, lw=0.8, color="0.3", label="iterations")
    for code, label, color in ((1, "acceptable", "tab:orange"), (2, "retried", "tab:red")):
        hit = result.status == code
        if hit.any():
            axes[1].plot(t1[hit], result.iterations[hit], "o", mfc="none", color=color, label=label)
    axes[1].set_ylim(0, 1.15 * result.iterations.max() + 1)
    axes[1].yaxis.set_major_locator(MaxNLocator(integer=True))


def _residuals(axes: list[Axes], result: SimulationResult) -> None:
    t, t1 = result.t, result.t[1:]
    panels = (
        (t1, result.eom_residual, "equations of motion", "norm (N, N m)"),
        (t1, result.norm_residual, r"Euler parameters $|p^Tp - 1|$", "max over bodies (1)"),
        (t, result.eq_residual, "ideal joint constraints", "norm (m, rad)"),
        (t1, result.comp_residual, r"complementarity $|\lambda\Phi|$", "max (N m)"),
    )
    for ax, (x, values, title, unit) in zip(axes, panels, strict=True):
        ax.set_title(title, fontsize="medium")
        ax.set_ylabel(unit)
        if values.size == 0:
            _note(ax, "no steps")
            continue
        if values is result.eq_residual and result.lam_eq.shape[1] == 0:
            _note(ax, "no ideal joints or driving constraints")
            continue
        if values is result.comp_residual and result.lam.shape[1] == 0:
            _note(ax, "no contacts")
            continue
        ax.semilogy(x, np.maximum(values, LOG_FLOOR), ".-", ms=3, lw=0.8)
        if not np.any(values):
            _note(ax, f"all zero (drawn at {LOG_FLOOR:g})", y=0.8)


def _energy(axes: list[Axes], result: SimulationResult, over: Overlay = None) -> None:
    e = result.energy
    for col, label in enumerate(("kinetic", "potential", "total")):
        marker = "o" if e.shape[0] < 2 else None
        (line,) = axes[0].plot(result.t, e[:, col], marker=marker, label=label)
        if over:
            _dashed(axes[0], over, over[0].energy[:, col], line, label)
    axes[0].set_ylabel("energy (J)")
    (line,) = axes[1].plot(result.t, e[:, 2] - e[0, 2], color="tab:green", label="E(t) - E(0)")
    if over:
        eo = over[0].energy[:, 2]
        _dashed(axes[1], over, eo - eo[0], line, "E(t) - E(0)")
    axes[1].set_ylabel("total energy change (J)")


def _contacts(axes: list[Axes], result: SimulationResult) -> None:
    labels = _labels(result.meta.get("contact_labels"), result.lam.shape[1], "contact")
    for j, label in enumerate(labels):
        axes[0].plot(result.t, result.lam[:, j], label=label)
        axes[1].plot(result.t, result.gap[:, j])  # same colour cycle: the legend above applies
    axes[1].axhline(0.0, color="0.4", lw=0.8, ls="--")
    axes[0].set_ylabel("normal force (N)")
    axes[1].set_ylabel("gap (m, > 0 = penetration)")
