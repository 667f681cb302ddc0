"""Stops on an ideal revolute joint: angle limits [lower, upper] and angular play +-b (backlash)."""

from __future__ import annotations

import math

import casadi as ca
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.pose import Pose, Poses
from nlpmbd.validation import distance, finite_scalar

from .frames import AxisFrame
from .revolute import RevoluteJoint
from .stops import StoppedJoint


def relative_angle(frame: AxisFrame, parent: Pose, child: Pose) -> ca.SX:
    """The child's rotation about the axis relative to the parent since t = 0 (rad, in
    (-pi, pi), right-handed about the axis): with (a, b, u) the frame's right-handed triad,
    a_c = cos(phi) a_p + sin(phi) b_p, so phi = atan2(a_c . b_p, a_c . a_p). atan2 is smooth
    wherever |a_c| > 0 (here 1), in particular at 0; its cut is at +-pi."""
    a_p, b_p = (parent.vector(a) for a in frame.perp_parent)
    a_c = child.vector(frame.perp_child[0])
    return ca.atan2(ca.dot(a_c, b_p), ca.dot(a_c, a_p))


def _angle(label: str, value: float, low: float, high: float, text: str) -> float:
    """A finite angle (rad) with low <= value <= high, pi itself excluded (the atan2 cut)."""
    x = finite_scalar(label, value)
    if not (low <= x <= high) or abs(x) == math.pi:
        raise InputError(f"{label} must be in {text}, got {x}")
    return x


def _limits(name: str, lower: float, upper: float) -> tuple[float, float]:
    lo = _angle(f"{name}.lower", lower, -math.pi, 0.0, "(-pi, 0]")
    hi = _angle(f"{name}.upper", upper, 0.0, math.pi, "[0, pi)")
    if hi - lo <= 0:
        raise InputError(f"{name}: lower and upper must differ, got {lo} and {hi}")
    return lo, hi


class RevoluteLimits(StoppedJoint):
    """A revolute joint whose angle phi stays in [lower, upper] (rad): two hard stops.

    Geometry: `point` and unit `axis` global at t = 0, as `RevoluteJoint`; its five equalities
    (joint points coincide, m; axes parallel, dimensionless). phi is the child's rotation
    relative to the parent about the axis since t = 0, right-handed (`relative_angle`), so
    lower <= 0 <= upper with -pi < lower < upper < pi. The stops act at `radius` r (m: a
    tooth's pitch radius, a stop's lever arm; it scales the gaps and forces, not the motion
    of a hard stop), which makes the two gaps distances in metres:

        upper: r (phi - upper) <= 0,   lower: r (lower - phi) <= 0     (> 0 = penetration)

    Scales: r (upper - lower) / 2 each. Contact force: lambda (N) tangential at the point
    r a_c from the axis (a_c the child's first axis-normal vector), on the child along
    -(u x a_c) at the upper stop and +(u x a_c) at the lower one: a moment -+lambda r about u.
    The relative velocity there is tangential, so Coulomb friction has no slip to act on.
    """

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        lower: float,
        upper: float,
        axis: ArrayLike = (0.0, 0.0, 1.0),
        radius: float = 1.0,
        contact: ContactLaw | None = None,
    ) -> None:
        revolute = RevoluteJoint(name, parent, child, point, axis)
        limits, lever = _limits(name, lower, upper), distance(f"{name}.radius", radius)
        super().__init__(name, parent, child, contact, revolute, limits, lever)
        self.radius = lever

    def coordinate(self, poses: Poses) -> ca.SX:
        """phi (rad), the child's rotation relative to the parent."""
        return relative_angle(self.frame, poses[self.parent], poses[self.child])

    def contact_frames(self, poses):
        C = poses[self.child]
        u, a_c = C.vector(self.frame.u_child), C.vector(self.frame.perp_child[0])
        x = C.point(self.frame.s_child) + self.radius * a_c
        t = ca.cross(u, a_c)
        return [(-t, x), (t, x)]

    def describe(self) -> dict:
        return {
            "lower": self.lower,
            "upper": self.upper,
            "radius": self.radius,
            "clearance": self.gap_scales[0],
        }


class RevoluteBacklash(RevoluteLimits):
    """A revolute joint with angular play +-`backlash` b (rad) about its start: a dead band in
    the joint angle, as in a gear mesh or a spline. `RevoluteLimits` with lower = -b, upper = b,
    0 < b < pi; gaps r (phi - b) <= 0 and r (-phi - b) <= 0 (m), scales r b."""

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        backlash: float,
        axis: ArrayLike = (0.0, 0.0, 1.0),
        radius: float = 1.0,
        contact: ContactLaw | None = None,
    ) -> None:
        b = _angle(f"{name}.backlash", backlash, 0.0, math.pi, "(0, pi)")
        if b == 0:
            raise InputError(f"{name}.backlash must be in (0, pi), got {b}")
        super().__init__(name, parent, child, point, -b, b, axis, radius, contact)
        self.backlash = b

    def describe(self) -> dict:
        return {**super().describe(), "backlash": self.backlash}
