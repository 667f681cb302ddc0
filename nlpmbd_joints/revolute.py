"""Ideal revolute joint (Haug's constraint library, paper section 2.2)."""

from __future__ import annotations

import casadi as ca

from .frames import AxisJoint


class RevoluteJoint(AxisJoint):
    """Pin joint: a common point and a common axis, one rotational freedom about the axis.

    Geometry: `point` and unit `axis` in global coordinates at t = 0 (m, dimensionless).
    Five equalities: the joint points coincide (3, metres), and the child's axis stays
    perpendicular to the parent's two axis-normal vectors a, b (2, dimensionless):
    (A_c u'_c) . (A_p a'_p) = 0 and (A_c u'_c) . (A_p b'_p) = 0.
    """

    REDUNDANT_WHEN = "line"

    @property
    def eq_labels(self):
        return ("dx", "dy", "dz", "axis_a", "axis_b")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        d = C.point(f.s_child) - P.point(f.s_parent)
        u = C.vector(f.u_child)
        return [d[0], d[1], d[2]] + [ca.dot(u, P.vector(a)) for a in f.perp_parent]
