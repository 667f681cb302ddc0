"""Ideal revolute joint (Haug's constraint library, paper section 2.2)."""

from __future__ import annotations

import casadi as ca
from numpy.typing import ArrayLike

from nlpmbd.model.bodies import Body
from nlpmbd.validation import finite_scalar

from .frames import AxisJoint, Breakaway


class RevoluteJoint(Breakaway, AxisJoint):
    """Pin joint: a common point and a common axis, one rotational freedom about the axis.

    Geometry: `point` and unit `axis` in global coordinates at t = 0 (m, dimensionless).
    Five equalities: the joint points coincide (3, metres), and the child's axis stays
    perpendicular to the parent's two axis-normal vectors a, b (2, dimensionless):
    (A_c u'_c) . (A_p a'_p) = 0 and (A_c u'_c) . (A_p b'_p) = 0.

    Friction: a torque about the axis of at most frictionloss + mu r N (N m): `frictionloss` a
    constant breakaway torque (N m, >= 0), and the friction circle of a pin of radius r =
    `pin_radius` (m) under the radial load N (N, the reaction across the axis) with Coulomb's
    `mu`. The child does not turn relative to the parent while the torque the joint must carry
    about the axis stays below the bound (true stick on the QP path), and turns against it
    otherwise (a Tresca row on the relative spin (omega_c - omega_p) . u,
    step/rows/joint_friction.py).
    """

    REDUNDANT_WHEN = "line"

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        axis: ArrayLike = (0.0, 0.0, 1.0),
        frictionloss: float = 0.0,
        mu: float = 0.0,
        pin_radius: float = 0.0,
    ) -> None:
        super().__init__(name, parent, child, point, axis)
        lever = finite_scalar(f"{name}.pin_radius", pin_radius, low=0.0)
        self._set_friction(name, frictionloss, mu, lever)

    def _friction_rate(self, states):
        return self._relative_spin(states)

    @property
    def eq_labels(self):
        return ("dx", "dy", "dz", "axis_a", "axis_b")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        d = C.point(f.s_child) - P.point(f.s_parent)
        u = C.vector(f.u_child)
        return [d[0], d[1], d[2]] + [ca.dot(u, P.vector(a)) for a in f.perp_parent]
