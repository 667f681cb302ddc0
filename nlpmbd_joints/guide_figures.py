"""Figures of planar mechanisms with a slider in a guide (slider-crank, crank-rocker): the
paper-style dimensionless path of the slider's corners in its clearance, a Poincare map of the
slider's lateral motion sampled once per crank turn, the driving moment and the guide's contact
forces over the crank angle, and the slider's velocity and acceleration.

Functions take a SimulationResult, or a list of (label, result) pairs for comparisons (a
clearance sweep plus the ideal joint), and the names of the bodies and joints explicitly; they
return `matplotlib.figure.Figure` objects on an Agg canvas (no pyplot, no global state).
`save_mechanism_figures` writes those that apply as PNG files; `save_joint_figures` is the hook
through which `nlpmbd plot` draws them for every PlanarPrismaticClearance (entry point group
"nlpmbd.figures", name "planar_guide", see pyproject.toml). Matplotlib is imported inside the
figure functions only, so importing this module does not load it.

Time convention of the force histories (lam, lam_eq, friction_force, compliant_force and the
driving load): row k >= 1 is the force of the step from t[k-1] to t[k], evaluated at the start
of that step, and row 0 is a placeholder zero. Forces are therefore drawn against t[k-1] (or the
crank angle at t[k-1]), and row 0 is left out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nlpmbd.errors import InputError
from nlpmbd.io.result import SimulationResult

from .planar_prismatic_clearance import CORNER_SIGNS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: One result, or (label, result) pairs to compare.
Results = SimulationResult | Sequence[tuple[str, SimulationResult]]

#: Corner order of `slider_corners`: body-frame (sign_x * half_length, sign_y * half_width, 0),
#: the labels of PlanarPrismaticClearance (front = +x of the slider, upper = +y).
CORNERS: tuple[tuple[str, float, float], ...] = CORNER_SIGNS

#: File names (without ".png") written by `save_mechanism_figures`, in this order.
FIGURE_NAMES = ("slider_path", "poincare", "crank_moment", "contact_forces", "slider_motion")


# --- data ---------------------------------------------------------------------------------------
def crank_angle(result: SimulationResult, crank: str = "crank") -> np.ndarray:
    """(n+1,) rotation angle (rad) of body `crank` about global Z since t[0], unwrapped.

    For a rotation about Z the Euler parameters are (cos(a/2), 0, 0, sin(a/2)), so the angle
    is 2 atan2(e3, e0); it is computed as atan2(A[1,0], A[0,0]) of the rotation matrix, the
    same number for a pure Z rotation but free of the sign ambiguity of p and -p. Unwrapping
    assumes the crank turns by less than pi per step.
    """
    p = result.body_q(crank)[:, 3:7]
    e0, e1, e2, e3 = p.T
    angle = np.arctan2(2.0 * (e1 * e2 + e0 * e3), e0**2 + e1**2 - e2**2 - e3**2)
    angle = np.unwrap(angle)
    return angle - angle[0]


def permanent_contact_angle(r: SimulationResult, clearance: float) -> float:
    """The crank angle (rad) at which the slider settles on the guide: a sample is
    in contact when a corner is within 1% of c of the guide or a normal force acted; the first
    stretch in contact for 10 degrees of crank starts permanent contact."""
    theta = crank_angle(r)
    mask = (r.gap.max(axis=1) >= -0.01 * clearance) | (r.lam.max(axis=1) > 1e-6)
    k = 0
    while k < mask.size:
        if not mask[k]:
            k += 1
            continue
        j = k
        while j + 1 < mask.size and mask[j + 1]:
            j += 1
        if theta[j] - theta[k] >= math.radians(10):
            return float(theta[k])
        k = j + 1
    return math.nan


def slider_corners(
    result: SimulationResult, slider: str, half_length: float, half_width: float
) -> np.ndarray:
    """(n+1, 4, 3) global positions of the slider's corners, body-frame
    (+-half_length, +-half_width, 0) about its centre of mass, in the order of `CORNERS`."""
    q = result.body_q(slider)
    r, e0, e = q[:, 0:3], q[:, 3], q[:, 4:7]
    out = np.empty((q.shape[0], len(CORNERS), 3))
    for k, (_, sx, sy) in enumerate(CORNERS):
        s = np.array([sx * half_length, sy * half_width, 0.0])
        # A(p) s = (2 e0^2 - 1) s + 2 (e (e . s) + e0 (e x s))
        rotated = (
            (2.0 * e0**2 - 1.0)[:, None] * s
            + 2.0 * e * (e @ s)[:, None]
            + 2.0 * e0[:, None] * np.cross(e, s)
        )
        out[:, k, :] = r + rotated
    return out


def dimensionless_corners(
    result: SimulationResult,
    slider: str,
    *,
    clearance: float,
    half_width: float,
    half_length: float,
    stroke: tuple[float, float],
    guide_center_y: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """(X, Y), each (n+1, 4) in the order of `CORNERS`: X = (x - x_min) / (x_max - x_min) along
    the stroke, Y = (y - guide_center_y - sign half_width) / clearance with sign = +1 for the
    upper and -1 for the lower corners. Y = +1: an upper corner on the upper guide surface;
    Y = -1: a lower corner on the lower surface; Y = 0: the corner's centred position."""
    _positive("clearance", clearance)
    _positive("half_width", half_width)
    _positive("half_length", half_length)
    x_min, x_max = (float(s) for s in stroke)
    if not (np.isfinite(x_min) and np.isfinite(x_max) and x_max > x_min):
        raise InputError(f"stroke must be (x_min, x_max) with x_max > x_min, got {stroke!r}")
    corners = slider_corners(result, slider, half_length, half_width)
    sign = np.array([sy for _, _, sy in CORNERS])
    X = (corners[:, :, 0] - x_min) / (x_max - x_min)
    Y = (corners[:, :, 1] - guide_center_y - sign * half_width) / clearance
    return X, Y


def poincare_points(
    result: SimulationResult, slider: str = "slider", crank: str = "crank"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, y, dy/dt) of the slider's centre of mass each time the crank angle (`crank_angle`, in
    the direction of the crank's net rotation) first reaches 2 pi k, k = 1, 2, ...: one point
    per completed revolution, linearly interpolated between the two time points around the
    crossing (the crossing time itself from the linear interpolation of the angle)."""
    angle = crank_angle(result, crank)
    if angle.size and angle[-1] < 0:
        angle = -angle
    q, v = result.body_q(slider), result.body_v(slider)
    turns = int(np.floor(angle.max() / (2 * np.pi))) if angle.size else 0
    ts, ys, vs = [], [], []
    for k in range(1, turns + 1):
        target = 2 * np.pi * k
        i = int(np.argmax(angle >= target))  # first index at or past the crossing (i >= 1)
        a0, a1 = angle[i - 1], angle[i]
        s = (target - a0) / (a1 - a0)
        ts.append(result.t[i - 1] + s * (result.t[i] - result.t[i - 1]))
        ys.append(q[i - 1, 1] + s * (q[i, 1] - q[i - 1, 1]))
        vs.append(v[i - 1, 1] + s * (v[i, 1] - v[i - 1, 1]))
    return np.array(ts), np.array(ys), np.array(vs)


def guide_forces(
    result: SimulationResult, joint: str = "guide", axis=(1.0, 0.0, 0.0)
) -> tuple[np.ndarray, np.ndarray]:
    """(normal, friction), each (n+1,): the joint's total contact normal force (N) and its total
    friction force along the unit guide `axis` (N, global; for a guide fixed to the ground).

    Hard contacts (labels "<joint>.*" in contact_labels): normal = sum of lam, friction = sum of
    friction_force . axis. Compliant contacts (compliant_labels): their force holds normal and
    friction parts, so friction = sum of compliant_force . axis and normal = sum of the norms of
    the rest (the part across the guide). Raises InputError when the joint has no contacts.
    """
    u = np.asarray(axis, dtype=float)
    if u.shape != (3,) or not np.isfinite(u).all() or np.linalg.norm(u) == 0:
        raise InputError(f"axis must be a nonzero 3-vector, got {axis!r}")
    u = u / np.linalg.norm(u)
    hard = _columns(result.meta.get("contact_labels", []), joint)
    soft = _columns(result.meta.get("compliant_labels", []), joint)
    if not hard and not soft:
        raise InputError(f"joint {joint!r} has no contacts in this result")
    normal = result.lam[:, hard].sum(axis=1)
    friction = (result.friction_force[:, hard, :] @ u).sum(axis=1)
    f = result.compliant_force[:, soft, :]
    along = f @ u
    normal = normal + np.linalg.norm(f - along[..., None] * u, axis=2).sum(axis=1)
    friction = friction + along.sum(axis=1)
    return normal, friction


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
    _positive("clearance", clearance)
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
    results: Results, joint: str = "guide", crank: str = "crank", axis=(1.0, 0.0, 0.0)
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


def save_mechanism_figures(
    results: Results,
    directory: str | os.PathLike,
    *,
    slider: str = "slider",
    crank: str = "crank",
    drive: str = "drive",
    joint: str = "guide",
    clearance: float | None = None,
    half_width: float | None = None,
    half_length: float | None = None,
    stroke: tuple[float, float] | None = None,
    guide_center_y: float = 0.0,
    axis=(1.0, 0.0, 0.0),
    dpi: int = 120,
) -> list[Path]:
    """Write the figures that apply as DIR/<name>.png (names in `FIGURE_NAMES` order) and return
    their paths. Skipped: slider_path without clearance, half_width and half_length; poincare
    without clearance or without a completed crank turn; crank_moment without the drive;
    contact_forces without contacts at `joint`; any figure whose bodies are missing."""
    from functools import partial

    out = Path(directory)
    makers = {
        "slider_path": None
        if None in (clearance, half_width, half_length)
        else partial(
            slider_path_figure,
            results,
            slider,
            clearance=clearance,
            half_width=half_width,
            half_length=half_length,
            stroke=stroke,
            guide_center_y=guide_center_y,
        ),
        "poincare": None
        if clearance is None
        else partial(
            poincare_figure,
            results,
            slider,
            crank,
            clearance=clearance,
            guide_center_y=guide_center_y,
        ),
        "crank_moment": partial(crank_moment_figure, results, drive, crank),
        "contact_forces": partial(contact_forces_figure, results, joint, crank, axis),
        "slider_motion": partial(slider_motion_figure, results, slider),
    }
    paths: list[Path] = []
    for name in FIGURE_NAMES:
        make = makers[name]
        if make is None:
            continue
        try:
            fig = make()
        except InputError:  # the data this figure needs is missing
            continue
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{name}.png"
        fig.savefig(path, dpi=dpi)
        fig.clear()
        paths.append(path)
    return paths


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


def _columns(labels: Sequence[str], joint: str) -> list[int]:
    return [k for k, label in enumerate(labels) if str(label).startswith(joint + ".")]


def _positive(name: str, value: float) -> None:
    number = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )
    if not (number and np.isfinite(value) and value > 0):
        raise InputError(f"{name} must be a positive number, got {value!r}")


def save_joint_figures(
    result: SimulationResult, directory: str | os.PathLike, joint: str, geometry: dict, dpi: int
) -> list[Path]:
    """The figures of one planar guide (PlanarPrismaticClearance.describe() is `geometry`)."""
    return save_mechanism_figures(
        result,
        directory,
        slider=str(geometry["slider"]),
        joint=joint,
        clearance=float(geometry["clearance"]),
        half_width=float(geometry["half_width"]),
        half_length=float(geometry["half_length"]),
        guide_center_y=float(geometry.get("center_y", 0.0)),
        dpi=dpi,
    )
