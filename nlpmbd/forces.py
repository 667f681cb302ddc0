"""Applied forces and torques: constant, or functions of time and the body's state.

A callable value is traced once with CasADi symbols when the step problem is built: write it
with ordinary arithmetic and `casadi` functions (ca.sin, ca.norm_2, ...), e.g.
``Force(body, lambda t, s: [0, 0, 10 * ca.sin(t)])``. Its arguments are the time t and a
`BodyState` (position, rotation, velocity, angular_velocity, point(), point_velocity()).
Forces act at the start of each step (explicit, FORMULATION.md section 2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from .bodies import RigidBody
from .errors import InputError
from .pose import BodyState
from .validation import finite_array

Vector = Sequence[float] | np.ndarray
VectorFunction = Callable[[ca.SX, BodyState], Any]


def _value(name: str, value: Vector | VectorFunction, t: ca.SX, state: BodyState) -> ca.SX:
    if callable(value):
        out = value(t, state)
        out = ca.vertcat(*[out[i] for i in range(3)]) if not isinstance(out, ca.SX) else out
        if out.shape != (3, 1):
            raise InputError(f"{name} must return a 3-vector, got shape {out.shape}")
        return out
    return ca.DM(np.asarray(value, float))


def _check_body(name: str, body: object) -> None:
    if not isinstance(body, RigidBody):
        raise InputError(f"{name}.body must be a RigidBody, got {body!r}")


@dataclass(frozen=True)
class Force:
    """A force (N) acting at a body point (body-frame offset `point`, m from the centre of mass).

    `frame` says in which axes `value` is given: "global" (default) or "body".
    """

    body: RigidBody
    value: Vector | VectorFunction
    point: Vector = (0.0, 0.0, 0.0)
    frame: str = "global"
    name: str = field(default="force")

    def __post_init__(self) -> None:
        _check_body(self.name, self.body)
        object.__setattr__(self, "point", finite_array(f"{self.name}.point", self.point, (3,)))
        if not callable(self.value):
            object.__setattr__(self, "value", finite_array(f"{self.name}.value", self.value, (3,)))
        if self.frame not in ("global", "body"):
            raise InputError(f"{self.name}.frame must be 'global' or 'body', got {self.frame!r}")

    def generalized(self, t: ca.SX, state: BodyState) -> tuple[ca.SX, ca.SX]:
        """(F global, tau' body frame) of FORMULATION.md section 2: tau' = s'~ A^T f."""
        f = _value(f"{self.name}.value", self.value, t, state)
        A = state.rotation
        f_global = A @ f if self.frame == "body" else f
        f_body = A.T @ f_global
        return f_global, ca.cross(ca.DM(self.point), f_body)


@dataclass(frozen=True)
class Torque:
    """A pure torque (N m) on a body, given in "body" (default) or "global" axes."""

    body: RigidBody
    value: Vector | VectorFunction
    frame: str = "body"
    name: str = field(default="torque")

    def __post_init__(self) -> None:
        _check_body(self.name, self.body)
        if not callable(self.value):
            object.__setattr__(self, "value", finite_array(f"{self.name}.value", self.value, (3,)))
        if self.frame not in ("global", "body"):
            raise InputError(f"{self.name}.frame must be 'global' or 'body', got {self.frame!r}")

    def generalized(self, t: ca.SX, state: BodyState) -> tuple[ca.SX, ca.SX]:
        tau = _value(f"{self.name}.value", self.value, t, state)
        tau_body = state.rotation.T @ tau if self.frame == "global" else tau
        return ca.SX.zeros(3, 1), tau_body


AppliedLoad = Force | Torque
