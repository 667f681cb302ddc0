"""Ideal prismatic joint of a planar mechanism: the two in-plane equations only."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_vector
from nlpmbd.validation import unit_vector

from .frames import AxisFrame, FramedJoint


class PlanarPrismaticJoint(FramedJoint):
    """Slider in a straight guide, for a mechanism whose other joints already keep it in the
    plane with unit normal `normal` (e.g. a slider-crank built from revolute joints about
    `normal`). A full PrismaticJoint (5 equalities) would repeat the three out-of-plane ones and
    make the constraints redundant.

    Geometry, global at t = 0: the child's `point` slides along the unit `axis` (in the plane).
    With w = normal x axis frozen into the parent, two equalities: the point stays on the
    parent's line, (P_c - P_p) . w = 0 (m), and the child does not turn about the normal,
    u_c . w = 0 (dimensionless, u_c the axis frozen into the child). Multipliers: the lateral
    guide force (N, along -w on the child when positive) and a moment about the normal (N m
    per unit of the dimensionless equation).
    """

    REDUNDANT_WHEN = "axis"

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        axis: ArrayLike = (1.0, 0.0, 0.0),
        normal: ArrayLike = (0.0, 0.0, 1.0),
    ) -> None:
        super().__init__(name, parent, child)
        self.frame = AxisFrame(name, parent, child, point, axis)
        n = unit_vector(f"{name}.normal", normal)
        if abs(float(np.dot(n, self.frame.axis))) > 1e-9:
            raise InputError(f"{name}.normal must be perpendicular to {name}.axis")
        self.w_parent = initial_local_vector(parent, np.cross(n, self.frame.axis))

    @property
    def eq_labels(self):
        return ("lateral", "turn")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        w = P.vector(self.w_parent)
        d = C.point(f.s_child) - P.point(f.s_parent)
        return [ca.dot(d, w), ca.dot(C.vector(f.u_child), w)]
