"""Figures of planar mechanisms with a slider in a guide (slider-crank, crank-rocker): the
paper-style dimensionless path of the slider's corners in its clearance, a Poincare map of the
slider's lateral motion sampled once per crank turn, the driving moment and the guide's contact
forces over the crank angle (over time when the crank does not turn one way), and the slider's
velocity and acceleration along the guide. Everything is measured in the guide's own frame
(guide_frame.GuideFrame), which may move with the body that carries the guide.

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
from nlpmbd.plots.scales import legend, literal, min_span, relative_span

from .guide_data import (
    CORNERS,
    check_positive,
    dimensionless_corners,
    guide_forces,
    poincare_points,
    turning_angle,
)
from .guide_frame import GuideFrame

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: One result, or (label, result) pairs to compare.
Results = SimulationResult | Sequence[tuple[str, SimulationResult]]

#: Smallest y spans of the slider's velocity (m/s) and acceleration (m/s^2) panels.
MOTION_SPANS = (1e-6, 1e-4)
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
    frame: GuideFrame | None = None,
) -> Figure:
    """Dimensionless corner paths (`dimensionless_corners`) in the guide's frame (default: fixed
    along X, mid-line at y = guide_center_y), one subplot per result side by side on shared
    axes, dashed lines at Y = +-1 (the guide surfaces). `stroke` defaults to the range of the
    slider centre's position along the guide over all results."""
    pairs = _pairs(results)
    frame = frame or GuideFrame.fixed(guide_center_y)
    if stroke is None:
        centre = np.zeros((1, 2))
        xs = np.concatenate(
            [
                frame.coordinates(r, frame.slider_points(r, slider, centre))[0][:, 0]
                for _, r in pairs
            ]
        )
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
            frame=frame,
        )
        for k, (name, _, sy) in enumerate(CORNERS):  # lower corners dashed: they may overlap
            ls = "-" if sy > 0 else (0, (4, 2))
            ax.plot(X[:, k], Y[:, k], lw=0.8, ls=ls, label=name.replace("_", " "))
        for level in (1.0, -1.0):
            ax.axhline(level, color="0.3", ls="--", lw=0.9)
        ax.set_title(literal(label), fontsize="medium")
        ax.grid(True, alpha=0.35)
        ax.set_xlabel("position along the guide (stroke = 0 to 1)")
    axes[0].set_ylabel(r"corner across the guide $(y \mp b) / c$ (1)")
    legend(axes[0], fontsize="small")
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
    frame: GuideFrame | None = None,
) -> Figure:
    """Poincare map: the slider centre's position across the guide (`frame`; default: y -
    guide_center_y) / clearance against its rate (m/s), once per crank revolution
    (`poincare_points`), one colour per result. Raises InputError when no result completes a
    revolution."""
    check_positive("clearance", clearance)
    pairs = _pairs(results)
    frame = frame or GuideFrame.fixed(guide_center_y)
    points = [(label, poincare_points(r, slider, crank, frame)) for label, r in pairs]
    if not any(p[0].size for _, p in points):
        raise InputError("no result completes a crank revolution: the Poincare map is empty")
    fig = _figure(width=6.5, height=5.0)
    ax = fig.subplots()
    for label, (t, y, vy) in points:
        ax.scatter(vy, y / clearance, s=14, label=f"{label} ({t.size})")
    ax.set_xlabel("velocity across the guide dy/dt (m/s)")
    ax.set_ylabel("position across the guide y / c (1)")
    ax.ticklabel_format(useOffset=False)  # plain numbers, no "1e-5+0.4999"
    ax.grid(True, alpha=0.35)
    legend(ax, fontsize="small", title="run (points)")
    fig.suptitle(f"Poincare map of the slider, once per crank turn (c = {1e3 * clearance:g} mm)")
    fig.tight_layout()
    return fig


def crank_moment_figure(results: Results, drive: str = "drive", crank: str = "crank") -> Figure:
    """Driving moment (N m) of the DrivingAngle `drive` at the start of each step against the
    crank angle there (deg, in the direction of its rotation), or against time when a crank does
    not turn one way; one line per result; results without that drive are left out (raises
    InputError when none has it)."""
    pairs = [(label, r) for label, r in _pairs(results) if _has_drive(r, drive)]
    if not pairs:
        raise InputError(f"no result has a driving joint named {drive!r}")
    fig = _figure(width=9.0, height=4.2)
    ax = fig.subplots()
    xs, xlabel = _abscissa(pairs, crank)
    for (label, result), x in zip(pairs, xs, strict=True):
        ax.plot(x, result.driving_load(drive)[1:], lw=0.9, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("driving moment (N m)")
    ax.grid(True, alpha=0.35)
    legend(ax, fontsize="small")
    fig.suptitle(f"driving moment of {literal(repr(drive))}")
    fig.tight_layout()
    return fig


def contact_forces_figure(
    results: Results,
    joint: str = "guide",
    crank: str = "crank",
    axis: ArrayLike = (1.0, 0.0, 0.0),
    frame: GuideFrame | None = None,
) -> Figure:
    """Two panels over the crank angle (deg, in its direction of rotation) at the start of each
    step, or over time when a crank does not turn one way: the joint's total contact normal
    force and its total friction force along the guide (`guide_forces`: along the axis of
    `frame`, which may move, or else the fixed global `axis`), from row 1, one line per result;
    results without contacts at the joint (the ideal joint) are left out (raises InputError
    when none has any)."""
    forces = []
    for label, result in _pairs(results):
        try:
            forces.append((label, result, guide_forces(result, joint, axis, frame)))
        except InputError:
            continue
    if not forces:
        raise InputError(f"no result has contacts at joint {joint!r}")
    fig = _figure(width=9.0, height=6.0)
    axes = fig.subplots(2, 1, sharex=True)
    xs, xlabel = _abscissa([(label, r) for label, r, _ in forces], crank)
    for (label, _, (normal, friction)), x in zip(forces, xs, strict=True):
        axes[0].plot(x, normal[1:], lw=0.9, label=label)
        axes[1].plot(x, friction[1:], lw=0.9, label=label)
    axes[0].set_ylabel("total normal force (N)")
    axes[1].set_ylabel("friction force along the guide (N)")
    axes[1].set_xlabel(xlabel)
    span = relative_span([np.concatenate([n[1:], f[1:]]) for _, _, (n, f) in forces], 1e-6)
    for ax in axes:
        ax.grid(True, alpha=0.35)
        min_span(ax, span)  # rounding noise draws flat; plain tick labels
    legend(axes[0], fontsize="small")
    fig.suptitle(f"contact forces of {literal(repr(joint))} on the slider (in the guide's frame)")
    fig.tight_layout()
    return fig


def slider_motion_figure(
    results: Results, slider: str = "slider", frame: GuideFrame | None = None
) -> Figure:
    """The slider's velocity along the guide relative to it (m/s; `frame`, default: global X)
    over time and its acceleration (m/s^2), the difference quotient (v[k] - v[k-1]) / h[k-1]
    drawn at the step's midpoint, one line per result."""
    pairs = _pairs(results)
    frame = frame or GuideFrame.fixed(0.0)
    fig = _figure(width=9.0, height=6.0)
    axes = fig.subplots(2, 1, sharex=True)
    for label, result in pairs:
        vx = frame.slider_velocity(result, slider)[0]
        axes[0].plot(result.t, vx, lw=0.9, label=label)
        if result.n_steps:
            mid = 0.5 * (result.t[:-1] + result.t[1:])
            axes[1].plot(mid, np.diff(vx) / result.h, lw=0.9, label=label)
    axes[0].set_ylabel("velocity along the guide (m/s)")
    axes[1].set_ylabel(r"acceleration along the guide (m/s$^2$)")
    axes[1].set_xlabel("time t (s)")
    for ax, span in zip(axes, MOTION_SPANS, strict=True):
        ax.grid(True, alpha=0.35)
        min_span(ax, span)  # rounding noise draws flat; plain tick labels
    legend(axes[0], fontsize="small")
    fig.suptitle(f"motion of {literal(repr(slider))} along the guide")
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


def _has_drive(result: SimulationResult, drive: str) -> bool:
    try:
        result.driving_load(drive)
    except InputError:
        return False
    return True


def _abscissa(
    pairs: Sequence[tuple[str, SimulationResult]], crank: str
) -> tuple[list[np.ndarray], str]:
    """x values at t[k-1] for rows k >= 1 of each result, and their label: the crank angle (deg,
    in its direction of rotation) when every crank turns one way, else time."""
    angles = [turning_angle(r, crank) for _, r in pairs]
    if all(a is not None for a in angles):
        return [np.degrees(a[:-1]) for a in angles if a is not None], "crank angle (deg)"
    return [r.t[:-1] for _, r in pairs], "time t (s)"


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
