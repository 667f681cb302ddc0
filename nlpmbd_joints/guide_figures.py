"""Figures of planar mechanisms with a slider in a guide (slider-crank, crank-rocker): the
paper-style dimensionless path of the slider's corners in its clearance, a Poincare map of the
slider's lateral motion sampled once per crank turn, the driving moment and the guide's contact
forces over the crank angle, and the slider's velocity and acceleration.

Functions take a SimulationResult, or a list of (label, result) pairs for comparisons (a
clearance sweep plus the ideal joint), and the names of the bodies and joints explicitly; they
return `matplotlib.figure.Figure` objects on an Agg canvas (no pyplot, no global state).
guide_files.py writes those that apply as PNG files. Matplotlib is imported inside the
figure functions only. Forces are drawn against t[k-1] (or the crank angle there), row 0 left
out (guide_data.py: the time convention of forces).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.io.result import SimulationResult

from .guide_data import (
    CORNERS,
    check_positive,
    crank_angle,
    dimensionless_corners,
    guide_forces,
    poincare_points,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: One result, or (label, result) pairs to compare.
Results = SimulationResult | Sequence[tuple[str, SimulationResult]]

#: File names (without ".png") written by `save_mechanism_figures`, in this order.
FIGURE_NAMES = ("slider_path", "poincare", "crank_moment", "contact_forces", "slider_motion")


# --- figures ------------------------------------------------------------------------------------
def slider_path_figure(
    results: Results,
    slider: str = "slider",
    *,
    clearance: float,
    half_width: float,
    half_length: float,
    stroke: tuple[float, float] | None = None,
    guide_center_y: float = 0.0,
) -> Figure:
    """Dimensionless corner paths (`dimensionless_corners`), one subplot per result side by
    side on shared axes, dashed lines at Y = +-1 (the guide surfaces). `stroke` defaults to the
    range of the slider's centre x over all results."""
    pairs = _pairs(results)
    if stroke is None:
        xs = np.concatenate([r.body_q(slider)[:, 0] for _, r in pairs])
        stroke = (float(xs.min()), float(xs.max()))
    fig = _figure(width=4.2 * len(pairs) + 1.0, height=4.2)
    axes = fig.subplots(1, len(pairs), sharex=True, sharey=True, squeeze=False)[0]
    for ax, (label, result) in zip(axes, pairs, strict=True):
        X, Y = dimensionless_corners(
            result,
            slider,
            clearance=clearance,
            half_width=half_width,
            half_length=half_length,
            stroke=stroke,
            guide_center_y=guide_center_y,
        )
        for k, (name, _, sy) in enumerate(CORNERS):  # lower corners dashed: they may overlap
            ls = "-" if sy > 0 else (0, (4, 2))
            ax.plot(X[:, k], Y[:, k], lw=0.8, ls=ls, label=name.replace("_", " "))
        for level in (1.0, -1.0):
            ax.axhline(level, color="0.3", ls="--", lw=0.9)
        ax.set_title(label, fontsize="medium")
        ax.set_xlabel(r"$(x - x_{min}) / (x_{max} - x_{min})$ (1)")
        ax.grid(True, alpha=0.35)
    axes[0].set_ylabel(r"$(y - y_{guide} \mp b) / c$ (1)")
    axes[0].legend(fontsize="small")
    fig.suptitle(
        f"slider corners in the guide, c = {1e3 * clearance:g} mm\n"
        "(+1: upper surface, -1: lower surface)"
    )
    fig.tight_layout()
    return fig


def poincare_figure(
    results: Results,
    slider: str = "slider",
    crank: str = "crank",
    *,
    clearance: float,
    guide_center_y: float = 0.0,
) -> Figure:
    """Poincare map: (y - guide_center_y) / clearance of the slider centre against dy/dt (m/s),
    once per crank revolution (`poincare_points`), one colour per result. Raises InputError when
    no result completes a revolution."""
    check_positive("clearance", clearance)
    pairs = _pairs(results)
    points = [(label, poincare_points(r, slider, crank)) for label, r in pairs]
    if not any(p[0].size for _, p in points):
        raise InputError("no result completes a crank revolution: the Poincare map is empty")
    fig = _figure(width=6.5, height=5.0)
    ax = fig.subplots()
    for label, (t, y, vy) in points:
        ax.scatter(vy, (y - guide_center_y) / clearance, s=14, label=f"{label} ({t.size})")
    ax.set_xlabel("lateral velocity dy/dt (m/s)")
    ax.set_ylabel("lateral position y / c (1)")
    ax.grid(True, alpha=0.35)
    ax.legend(fontsize="small", title="run (points)")
    fig.suptitle(f"Poincare map of the slider, once per crank turn (c = {1e3 * clearance:g} mm)")
    fig.tight_layout()
    return fig


def crank_moment_figure(results: Results, drive: str = "drive", crank: str = "crank") -> Figure:
    """Driving moment (N m) of the DrivingAngle `drive` against the crank angle (deg) at the
    start of each step, one line per result; results without that drive are left out (raises
    InputError when none has it)."""
    pairs = _pairs(results)
    fig = _figure(width=9.0, height=4.2)
    ax = fig.subplots()
    drawn = 0
    for label, result in pairs:
        try:
            moment = result.driving_load(drive)
        except InputError:
            continue
        angle = np.degrees(crank_angle(result, crank))
        ax.plot(angle[:-1], moment[1:], lw=0.9, label=label)
        drawn += 1
    if not drawn:
        raise InputError(f"no result has a driving joint named {drive!r}")
    ax.set_xlabel("crank angle (deg)")
    ax.set_ylabel("driving moment (N m)")
    ax.grid(True, alpha=0.35)
    ax.legend(fontsize="small")
    fig.suptitle(f"driving moment of {drive!r} over the crank angle")
    fig.tight_layout()
    return fig


def contact_forces_figure(
    results: Results, joint: str = "guide", crank: str = "crank", axis: ArrayLike = (1.0, 0.0, 0.0)
) -> Figure:
    """Two panels over the crank angle (deg) at the start of each step: the joint's total
    contact normal force and its total friction force along the guide `axis` (`guide_forces`),
    one line per result; results without contacts at the joint (the ideal joint) are left out
    (raises InputError when none has any)."""
    pairs = _pairs(results)
    fig = _figure(width=9.0, height=6.0)
    axes = fig.subplots(2, 1, sharex=True)
    drawn = 0
    for label, result in pairs:
        try:
            normal, friction = guide_forces(result, joint, axis)
        except InputError:
            continue
        angle = np.degrees(crank_angle(result, crank))[:-1]
        axes[0].plot(angle, normal[1:], lw=0.9, label=label)
        axes[1].plot(angle, friction[1:], lw=0.9, label=label)
        drawn += 1
    if not drawn:
        raise InputError(f"no result has contacts at joint {joint!r}")
    axes[0].set_ylabel("total normal force (N)")
    axes[1].set_ylabel("friction force along the guide (N)")
    axes[1].set_xlabel("crank angle (deg)")
    for ax in axes:
        ax.grid(True, alpha=0.35)
    axes[0].legend(fontsize="small")
    fig.suptitle(f"contact forces of {joint!r} on the slider")
    fig.tight_layout()
    return fig


def slider_motion_figure(results: Results, slider: str = "slider") -> Figure:
    """The slider's x velocity (m/s) over time and its x acceleration (m/s^2), the difference
    quotient (v[k] - v[k-1]) / h[k-1] drawn at the step's midpoint, one line per result."""
    pairs = _pairs(results)
    fig = _figure(width=9.0, height=6.0)
    axes = fig.subplots(2, 1, sharex=True)
    for label, result in pairs:
        vx = result.body_v(slider)[:, 0]
        axes[0].plot(result.t, vx, lw=0.9, label=label)
        if result.n_steps:
            mid = 0.5 * (result.t[:-1] + result.t[1:])
            axes[1].plot(mid, np.diff(vx) / result.h, lw=0.9, label=label)
    axes[0].set_ylabel("slider velocity dx/dt (m/s)")
    axes[1].set_ylabel(r"slider acceleration (m/s$^2$)")
    axes[1].set_xlabel("time t (s)")
    for ax in axes:
        ax.grid(True, alpha=0.35)
        ax.ticklabel_format(axis="y", useOffset=False)
    axes[0].legend(fontsize="small")
    fig.suptitle(f"motion of {slider!r} along X")
    fig.tight_layout()
    return fig


# --- helpers ------------------------------------------------------------------------------------
def _figure(width: float, height: float) -> Figure:
    """An empty figure on its own Agg canvas (no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _pairs(results: Results) -> list[tuple[str, SimulationResult]]:
    if isinstance(results, SimulationResult):
        return [(str(results.meta.get("case") or "result"), results)]
    pairs = [(str(label), r) for label, r in results]
    if not pairs:
        raise InputError("no results to plot")
    for label, r in pairs:
        if not isinstance(r, SimulationResult):
            raise InputError(f"{label!r} is not a SimulationResult")
    return pairs
