"""Driving (rheonomic) constraints: a prescribed relative angle or coordinate f(t)."""

from __future__ import annotations

from collections.abc import Callable

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body
from nlpmbd.validation import error_reason, short_repr

from .frames import AxisFrame, FramedJoint

TimeFunction = Callable[[ca.SX], ca.SX]


def _check(name: str, fn: object) -> None:
    """`fn` must map a CasADi symbol t to a scalar expression that is finite at t = 0."""
    if not callable(fn):
        raise InputError(f"{name}.motion must be a callable f(t), got {short_repr(fn)}")
    t = ca.SX.sym("t")
    try:
        probe = fn(t)
    except Exception as err:  # the user's function failed: report it on one line
        reason = error_reason(err)
        raise InputError(
            f"{name}.motion must be a function f(t) of one CasADi symbol; calling it raised "
            f"{type(err).__name__}: {reason}"
        ) from None
    if (
        isinstance(probe, bool)
        or not isinstance(probe, (ca.SX, float, int, np.floating, np.integer))
        or ca.SX(probe).numel() != 1
    ):
        raise InputError(f"{name}.motion must return a scalar, got {short_repr(probe)}")
    try:
        at_start = float(ca.Function("motion", [t], [ca.SX(probe)])(0.0))
    except Exception as err:  # e.g. symbols of its own besides t
        reason = error_reason(err)
        raise InputError(
            f"{name}.motion must depend on t only; evaluating it raised {type(err).__name__}: "
            f"{reason}"
        ) from None
    if not np.isfinite(at_start):
        raise InputError(
            f"{name}.motion must be finite at t = 0, got {at_start} "
            "(use CasADi functions such as ca.sin, not math.sin)"
        )


class DrivingAngle(FramedJoint):
    """Prescribes the rotation angle theta(t) of the child relative to the parent about `axis`.

    theta is measured from the relative orientation at t = 0, right-handed about the global
    `axis` given at t = 0 (rad); `motion(t)` is a function f of a CasADi symbol, e.g.
    ``lambda t: 2 * t``, with f(0) = 0 for an assembled start.

    With (a, b, u) a right-handed orthonormal triad around the axis u, frozen into the parent
    (a_p, b_p) and the child (a_c) at t = 0, a rotation of the child by theta about u gives
    a_c = cos(theta) a_p + sin(theta) b_p. One equality (dimensionless):

        a_c . (cos f b_p - sin f a_p) = sin(theta - f(t)) = 0.

    It fixes theta = f only near theta = f (theta = f + pi is also a root) and constrains only
    the rotation about u, so use it together with a joint that removes the other rotations
    (e.g. a revolute joint with the same axis). Multiplier: a moment about u, N m; the drive
    applies -lambda about u to the child (and +lambda to the parent) when theta = f.
    """

    REDUNDANT_WHEN = "axis"

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        motion: TimeFunction,
        axis: ArrayLike = (0.0, 0.0, 1.0),
    ) -> None:
        super().__init__(name, parent, child)
        _check(name, motion)
        self.motion = motion
        self.frame = AxisFrame(name, parent, child, (0.0, 0.0, 0.0), axis)

    @property
    def eq_labels(self):
        return ("angle",)

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        a_p, b_p = (P.vector(a) for a in f.perp_parent)
        a_c = C.vector(f.perp_child[0])
        th = self.motion(t)
        # a_c = cos(theta) a_p + sin(theta) b_p, so a_c . (cos f b_p - sin f a_p) = sin(theta - f)
        return [ca.dot(a_c, ca.cos(th) * b_p - ca.sin(th) * a_p)]


class DrivingCoordinate(FramedJoint):
    """Prescribes the distance of the child's point from the parent's point along `axis`.

    Geometry: `point` (global, t = 0) is attached to both bodies; `axis` is fixed in the parent.
    One equality (P_c - P_p) . u_p - f(t) = 0 in metres, f(0) should be 0. Multiplier: N.
    """

    REDUNDANT_WHEN = "point+axis"

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        motion: TimeFunction,
        point: ArrayLike,
        axis: ArrayLike = (1.0, 0.0, 0.0),
    ) -> None:
        super().__init__(name, parent, child)
        _check(name, motion)
        self.motion = motion
        self.frame = AxisFrame(name, parent, child, point, axis)

    @property
    def eq_labels(self):
        return ("coordinate",)

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        d = C.point(f.s_child) - P.point(f.s_parent)
        return [ca.dot(d, P.vector(f.u_parent)) - self.motion(t)]
