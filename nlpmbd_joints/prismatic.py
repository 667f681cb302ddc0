"""Ideal prismatic joint (Haug's constraint library, paper section 2.2)."""

from __future__ import annotations

import casadi as ca
from numpy.typing import ArrayLike

from nlpmbd.model.bodies import Body

from .cylindrical import CylindricalJoint
from .frames import Breakaway


class PrismaticJoint(Breakaway, CylindricalJoint):
    """Slider: translation along a common axis only.

    Geometry: `point` and unit `axis` in global coordinates at t = 0. The four cylindrical
    equalities plus one that stops rotation about the axis: the child's first axis-normal
    vector a_c stays perpendicular to the parent's second one b_p (dimensionless).

    Friction: a force along the axis of at most frictionloss + mu N (N): `frictionloss` a
    constant breakaway force (N, >= 0), and Coulomb's `mu` times the normal load N (N, the
    reaction across the axis). The child does not slide relative to the parent while the force
    the joint must carry along the axis stays below the bound (true stick on the QP path), and
    slides against it otherwise (a Tresca row on the relative slide speed at the joint point,
    step/rows/joint_friction.py).
    """

    REDUNDANT_WHEN = "axis"

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        axis: ArrayLike = (0.0, 0.0, 1.0),
        frictionloss: float = 0.0,
        mu: float = 0.0,
    ) -> None:
        super().__init__(name, parent, child, point, axis)
        self._set_friction(name, frictionloss, mu, 1.0)

    def _friction_rate(self, states):
        return self._relative_slide(states)

    @property
    def eq_labels(self):
        return (*super().eq_labels, "twist")

    def equalities(self, poses, t):
        f, P, C = self.frame, poses[self.parent], poses[self.child]
        twist = ca.dot(C.vector(f.perp_child[0]), P.vector(f.perp_parent[1]))
        return [*super().equalities(poses, t), twist]
