"""Ideal revolute joint of a planar mechanism: the two in-plane equations only."""

from __future__ import annotations

import casadi as ca

from .frames import AxisJoint


class PlanarRevoluteJoint(AxisJoint):
    """Pin that closes the loop of a planar mechanism whose other joints already keep every body
    in the plane with unit normal `axis` (e.g. the fourth pin of a four-bar linkage built from
    revolute joints about `axis`). A full RevoluteJoint (5 equalities) would repeat the three
    out-of-plane ones (one translation, two tilts) and make the constraints redundant.

    Geometry, global at t = 0: `point` (m) attached to both bodies, unit `axis`. With (a, b) the
    axis' perpendicular pair frozen into the parent, two equalities (m): the joint points
    coincide in the plane, (P_c - P_p) . a_p = 0 and (P_c - P_p) . b_p = 0. Multipliers: the
    in-plane pin force components (N) along a and b.
    """

    REDUNDANT_WHEN = "point+axis"

    @property
    def eq_labels(self):
        return ("da", "db")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        d = C.point(f.s_child) - P.point(f.s_parent)
        return [ca.dot(d, P.vector(a)) for a in f.perp_parent]
