"""Travel stops on an ideal prismatic or cylindrical joint: the slide s stays in [lower, upper]."""

from __future__ import annotations

import casadi as ca
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.pose import Poses
from nlpmbd.validation import MAX_LENGTH, finite_scalar

from .cylindrical import CylindricalJoint
from .prismatic import PrismaticJoint
from .stops import StoppedJoint


class CylindricalStops(StoppedJoint):
    """A cylindrical joint whose slide s along the axis stays in [lower, upper] (m).

    Geometry: `point` and unit `axis` global at t = 0, as `CylindricalJoint`, and its four
    equalities. s = (P_c - P_p) . u_p is the child's joint point's travel from the parent's
    along the parent's axis, 0 at t = 0, so lower <= 0 <= upper, lower < upper. Two gaps (m):

        upper: s - upper <= 0,   lower: lower - s <= 0                 (> 0 = penetration)

    Scales: (upper - lower) / 2 each. Contact force: lambda (N) at the child's joint point, on
    the child along -u_p at the upper stop and +u_p at the lower one. The point lies on the
    axis, so the relative velocity there is axial and Coulomb friction has no slip to act on.
    """

    IDEAL: type[CylindricalJoint] = CylindricalJoint

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        lower: float,
        upper: float,
        axis: ArrayLike = (1.0, 0.0, 0.0),
        contact: ContactLaw | None = None,
    ) -> None:
        lo = finite_scalar(f"{name}.lower", lower, low=-MAX_LENGTH, high=0.0)
        hi = finite_scalar(f"{name}.upper", upper, low=0.0, high=MAX_LENGTH)
        if hi - lo <= 0:
            raise InputError(f"{name}: lower and upper must differ, got {lower} and {upper}")
        ideal = self.IDEAL(name, parent, child, point, axis)
        super().__init__(name, parent, child, contact, ideal, (lo, hi))

    def coordinate(self, poses: Poses) -> ca.SX:
        """s (m), the child's travel relative to the parent along the parent's axis."""
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        return ca.dot(C.point(f.s_child) - P.point(f.s_parent), P.vector(f.u_parent))

    def contact_frames(self, poses):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        u, x = P.vector(f.u_parent), C.point(f.s_child)
        return [(-u, x), (u, x)]

    def describe(self) -> dict:
        return {"lower": self.lower, "upper": self.upper, "clearance": self.gap_scales[0]}


class PrismaticStops(CylindricalStops):
    """A prismatic joint whose slide s stays in [lower, upper] (m): `CylindricalStops` with the
    prismatic joint's five equalities (no rotation about the axis either)."""

    IDEAL = PrismaticJoint
