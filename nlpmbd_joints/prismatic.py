"""Ideal prismatic joint (Haug's constraint library, paper section 2.2)."""

from __future__ import annotations

import casadi as ca

from .cylindrical import CylindricalJoint


class PrismaticJoint(CylindricalJoint):
    """Slider: translation along a common axis only.

    Geometry: `point` and unit `axis` in global coordinates at t = 0. The four cylindrical
    equalities plus one that stops rotation about the axis: the child's first axis-normal
    vector a_c stays perpendicular to the parent's second one b_p (dimensionless).
    """

    REDUNDANT_WHEN = "axis"

    @property
    def eq_labels(self):
        return (*super().eq_labels, "twist")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        twist = ca.dot(C.vector(f.perp_child[0]), P.vector(f.perp_parent[1]))
        return [*super().equalities(poses, t), twist]
