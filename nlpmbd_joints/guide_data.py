"""The motion of a slider in a planar guide (PlanarPrismaticClearance), from a result: crank
angle, the slider's corners and their dimensionless path in the clearance, Poincare points once
per crank turn, the guide's contact forces; measured in the guide's own frame (guide_frame.py),
which may move with the body that carries the guide. Used by the figures (guide_figures.py)
and by the tests and benchmarks that compare with the source papers.

Time convention of the force histories (lam, lam_eq, friction_force, compliant_force and the
driving load): row k >= 1 is the force of the step from t[k-1] to t[k], evaluated at the start
of that step, and row 0 is a placeholder zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.io.result import SimulationResult

from .guide_frame import GuideFrame
from .planar_prismatic_clearance import CORNER_SIGNS

#: Corner order of `slider_corners`: body-frame (sign_x * half_length, sign_y * half_width, 0),
#: the labels of PlanarPrismaticClearance (front = +x of the slider, upper = +y).
CORNERS: tuple[tuple[str, float, float], ...] = CORNER_SIGNS


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
    result: SimulationResult,
    slider: str,
    half_length: float,
    half_width: float,
    frame: GuideFrame | None = None,
) -> np.ndarray:
    """(n+1, 4, 3) global positions of the slider's corners, (+-half_length, +-half_width) from
    its centre along its own axis and across direction (`frame`; default: body-frame
    (+-half_length, +-half_width, 0) about its centre of mass), in the order of `CORNERS`."""
    frame = frame or GuideFrame()
    local = np.array([(sx * half_length, sy * half_width) for _, sx, sy in CORNERS])
    return frame.slider_points(result, slider, local)


def dimensionless_corners(
    result: SimulationResult,
    slider: str,
    *,
    clearance: float,
    half_width: float,
    half_length: float,
    stroke: tuple[float, float],
    guide_center_y: float = 0.0,
    frame: GuideFrame | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(X, Y), each (n+1, 4) in the order of `CORNERS`, in the guide's frame (default: fixed
    along X with its mid-line at y = guide_center_y): with x along the guide's axis and y across
    it from its mid-line, X = (x - x_min) / (x_max - x_min) along the stroke, Y = (y - sign
    half_width) / clearance with sign = +1 for the upper and -1 for the lower corners. Y = +1:
    an upper corner on the upper guide surface; Y = -1: a lower corner on the lower surface;
    Y = 0: the corner's centred position."""
    check_positive("clearance", clearance)
    check_positive("half_width", half_width)
    check_positive("half_length", half_length)
    x_min, x_max = (float(s) for s in stroke)
    if not (np.isfinite(x_min) and np.isfinite(x_max) and x_max > x_min):
        raise InputError(f"stroke must be (x_min, x_max) with x_max > x_min, got {stroke!r}")
    frame = frame or GuideFrame.fixed(guide_center_y)
    corners = slider_corners(result, slider, half_length, half_width, frame)
    along, across = frame.coordinates(result, corners)
    sign = np.array([sy for _, _, sy in CORNERS])
    return (along - x_min) / (x_max - x_min), (across - sign * half_width) / clearance


def turning_angle(result: SimulationResult, crank: str = "crank") -> np.ndarray | None:
    """The crank angle (`crank_angle`, rad) in the direction of its net rotation when the crank
    turns one way throughout (steps back by less than 1e-6 rad allowed), else None (a crank
    that swings back and forth, or no body `crank`)."""
    try:
        angle = crank_angle(result, crank)
    except InputError:
        return None
    if angle.size and angle[-1] < 0:
        angle = -angle
    return angle if np.all(np.diff(angle) >= -1e-6) else None


def poincare_points(
    result: SimulationResult,
    slider: str = "slider",
    crank: str = "crank",
    frame: GuideFrame | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, y, dy/dt) of the slider's centre across the guide (`frame`; default: global y and
    its rate) each time the crank angle (`crank_angle`, in the direction of the crank's net
    rotation) first reaches 2 pi k, k = 1, 2, ...: one point per completed revolution, linearly
    interpolated between the two time points around the crossing (the crossing time itself from
    the linear interpolation of the angle)."""
    frame = frame or GuideFrame.fixed(0.0)
    angle = crank_angle(result, crank)
    if angle.size and angle[-1] < 0:
        angle = -angle
    centre = frame.slider_points(result, slider, np.zeros((1, 2)))
    y = frame.coordinates(result, centre)[1][:, 0]
    vy = frame.slider_velocity(result, slider)[1]
    turns = int(np.floor(angle.max() / (2 * np.pi))) if angle.size else 0
    ts, ys, vs = [], [], []
    for k in range(1, turns + 1):
        target = 2 * np.pi * k
        i = int(np.argmax(angle >= target))  # first index at or past the crossing (i >= 1)
        a0, a1 = angle[i - 1], angle[i]
        s = (target - a0) / (a1 - a0)
        ts.append(result.t[i - 1] + s * (result.t[i] - result.t[i - 1]))
        ys.append(y[i - 1] + s * (y[i] - y[i - 1]))
        vs.append(vy[i - 1] + s * (vy[i] - vy[i - 1]))
    return np.array(ts), np.array(ys), np.array(vs)


def guide_forces(
    result: SimulationResult,
    joint: str = "guide",
    axis: ArrayLike = (1.0, 0.0, 0.0),
    frame: GuideFrame | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(normal, friction), each (n+1,): the joint's total contact normal force (N) and its total
    friction force along the guide's current axis (`frame`, which may move), or without a frame
    along the fixed global unit `axis` (N).

    Hard contacts (labels "<joint>.*" in contact_labels): normal = sum of lam, friction = sum of
    friction_force . axis. Compliant contacts (compliant_labels): their force holds normal and
    friction parts, so friction = sum of compliant_force . axis and normal = sum of the norms of
    the rest (the part across the guide). Raises InputError when the joint has no contacts.
    """
    u = np.asarray(axis, dtype=float)
    if u.shape != (3,) or not np.isfinite(u).all() or np.linalg.norm(u) == 0:
        raise InputError(f"axis must be a nonzero 3-vector, got {axis!r}")
    u = (
        frame.axis_global(result)
        if frame
        else np.broadcast_to(u / np.linalg.norm(u), (len(result.t), 3))
    )
    hard = joint_columns(result.meta.get("contact_labels", []), joint)
    soft = joint_columns(result.meta.get("compliant_labels", []), joint)
    if not hard and not soft:
        raise InputError(f"joint {joint!r} has no contacts in this result")
    normal = result.lam[:, hard].sum(axis=1)
    friction = np.einsum("nki,ni->n", result.friction_force[:, hard, :], u)
    f = result.compliant_force[:, soft, :]
    along = np.einsum("nki,ni->nk", f, u)
    normal = normal + np.linalg.norm(f - along[..., None] * u[:, None, :], axis=2).sum(axis=1)
    friction = friction + along.sum(axis=1)
    return normal, friction


def joint_columns(labels: Sequence[str], joint: str) -> list[int]:
    return [k for k, label in enumerate(labels) if str(label).startswith(joint + ".")]


def check_positive(name: str, value: float) -> None:
    number = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )
    if not (number and np.isfinite(value) and value > 0):
        raise InputError(f"{name} must be a positive number, got {value!r}")
