"""Ideal universal (Cardan, Hooke) joint (Haug's constraint library)."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_vector
from nlpmbd.validation import unit_vector

from .frames import AxisFrame, FramedJoint

#: |cos| of the angle between the two axes at t = 0 below which they count as perpendicular.
PERPENDICULAR_TOL = 1e-9


class UniversalJoint(FramedJoint):
    """Cross joint: a common point and two pin axes, one fixed in each body, kept
    perpendicular; two rotational freedoms (about each axis).

    Geometry, global at t = 0: the joint centre `point` (m), the unit `parent_axis` (fixed in the
    parent) and the unit `child_axis` (fixed in the child), perpendicular. Four equalities: the
    joint points coincide (3, global components, metres; their multipliers are the global
    reaction on the child, N) and (A_c u'_c) . (A_p u'_p) = 0 (1, dimensionless).
    """

    REDUNDANT_WHEN = "point"

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        parent_axis: ArrayLike,
        child_axis: ArrayLike,
    ) -> None:
        super().__init__(name, parent, child)
        self.frame = AxisFrame(name, parent, child, point, parent_axis)
        u_c = unit_vector(f"{name}.child_axis", child_axis)
        if abs(float(np.dot(self.frame.axis, u_c))) > PERPENDICULAR_TOL:
            raise InputError(f"{name}.child_axis must be perpendicular to {name}.parent_axis")
        self.u_child = initial_local_vector(child, u_c)

    @property
    def eq_labels(self):
        return ("dx", "dy", "dz", "cross")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        d = C.point(f.s_child) - P.point(f.s_parent)
        return [d[0], d[1], d[2], ca.dot(C.vector(self.u_child), P.vector(f.u_parent))]
