"""The motion of a slider in a planar guide (PlanarPrismaticClearance), from a result: crank
angle, the slider's corners and their dimensionless path in the clearance, Poincare points once
per crank turn, the guide's contact forces. Used by the figures (guide_figures.py) and by the
tests and benchmarks that compare with the source papers.

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
    check_positive("clearance", clearance)
    check_positive("half_width", half_width)
    check_positive("half_length", half_length)
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
    result: SimulationResult, joint: str = "guide", axis: ArrayLike = (1.0, 0.0, 0.0)
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
    hard = joint_columns(result.meta.get("contact_labels", []), joint)
    soft = joint_columns(result.meta.get("compliant_labels", []), joint)
    if not hard and not soft:
        raise InputError(f"joint {joint!r} has no contacts in this result")
    normal = result.lam[:, hard].sum(axis=1)
    friction = (result.friction_force[:, hard, :] @ u).sum(axis=1)
    f = result.compliant_force[:, soft, :]
    along = f @ u
    normal = normal + np.linalg.norm(f - along[..., None] * u, axis=2).sum(axis=1)
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
