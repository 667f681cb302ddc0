"""Symbolic body poses handed to joints and forces: the point/vector helpers of [eq. 33]."""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from .bodies import GROUND, Body


@dataclass(frozen=True)
class Pose:
    """Position r (3x1) and rotation A (3x3) of a body frame, symbolic or constant."""

    r: ca.SX
    A: ca.SX

    def point(self, s_local: ArrayLike) -> ca.SX:
        """Global position of the body-fixed point with body-frame offset s' [eq. 33]."""
        return self.r + self.A @ ca.DM(np.asarray(s_local, float))

    def vector(self, a_local: ArrayLike) -> ca.SX:
        """Global components of a body-fixed vector a'."""
        return self.A @ ca.DM(np.asarray(a_local, float))


GROUND_POSE = Pose(ca.SX.zeros(3, 1), ca.SX.eye(3))


@dataclass(frozen=True)
class BodyState:
    """What a state-dependent force sees of its body: pose and velocities (symbolic)."""

    pose: Pose
    velocity: ca.SX  # centre-of-mass velocity, global
    angular_velocity: ca.SX  # body frame (w')

    @property
    def position(self) -> ca.SX:
        return self.pose.r

    @property
    def rotation(self) -> ca.SX:
        return self.pose.A

    def point(self, s_local: ArrayLike) -> ca.SX:
        return self.pose.point(s_local)

    def point_velocity(self, s_local: ArrayLike) -> ca.SX:
        """Global velocity of a body-fixed point: r_dot + A (w' x s')."""
        s = ca.DM(np.asarray(s_local, float))
        return self.velocity + self.pose.A @ ca.cross(self.angular_velocity, s)


class Poses:
    """Maps each body (or GROUND) to its symbolic Pose; what joint hooks receive."""

    def __init__(self, table: dict) -> None:
        self._table = table

    def __getitem__(self, body: Body) -> Pose:
        return GROUND_POSE if body is GROUND else self._table[body]
