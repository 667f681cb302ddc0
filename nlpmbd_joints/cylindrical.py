"""Ideal cylindrical joint (Haug's constraint library, paper section 2.2)."""

from __future__ import annotations

import casadi as ca

from .frames import AxisJoint


class CylindricalJoint(AxisJoint):
    """Sliding pin: the child may rotate about and translate along a common axis.

    Geometry: `point` and unit `axis` in global coordinates at t = 0. Four equalities: the
    child's axis stays perpendicular to the parent's axis-normal pair a, b (2, dimensionless), and
    the child's joint point stays on the parent's axis, d . a = d . b = 0 (2, metres).
    """

    REDUNDANT_WHEN = "line"

    @property
    def eq_labels(self):
        return ("axis_a", "axis_b", "offset_a", "offset_b")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        u = C.vector(f.u_child)
        d = C.point(f.s_child) - P.point(f.s_parent)
        normals = [P.vector(a) for a in f.perp_parent]
        return [ca.dot(u, n) for n in normals] + [ca.dot(d, n) for n in normals]
