"""Ideal fixed (weld) joint (Haug's constraint library, paper section 2.2)."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.model.bodies import Body
from nlpmbd.validation import location

from .frames import AxisFrame, FramedJoint


class FixedJoint(FramedJoint):
    """Weld: no relative motion. `point` is a global point at t = 0 (m).

    Six equalities: the joint points coincide (3, metres) and the relative orientation stays as
    at t = 0, x_c . y_p = y_c . z_p = z_c . x_p = 0 for the global triad frozen into both bodies
    (3, dimensionless).
    """

    REDUNDANT_WHEN = "always"

    def __init__(self, name: str, parent: Body, child: Body, point: ArrayLike) -> None:
        super().__init__(name, parent, child)
        point = location(f"{name}.point", point)
        self.frame = AxisFrame(name, parent, child, point, (0.0, 0.0, 1.0))
        from nlpmbd.model.bodies import initial_local_vector

        triad = np.eye(3)
        self.triad_parent = [initial_local_vector(parent, e) for e in triad]
        self.triad_child = [initial_local_vector(child, e) for e in triad]

    @property
    def eq_labels(self):
        return ("dx", "dy", "dz", "rot_x", "rot_y", "rot_z")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        d = C.point(f.s_child) - P.point(f.s_parent)
        xp, yp, zp = (P.vector(e) for e in self.triad_parent)
        xc, yc, zc = (C.vector(e) for e in self.triad_child)
        return [d[0], d[1], d[2], ca.dot(xc, yp), ca.dot(yc, zp), ca.dot(zc, xp)]
