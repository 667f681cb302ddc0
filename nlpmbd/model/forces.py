"""Applied forces and torques: constant, or functions of time and the body's state.

A callable value is traced once with CasADi symbols when the step problem is built: write it
with ordinary arithmetic and `casadi` functions (ca.sin, ca.norm_2, ...), e.g.
``Force(body, lambda t, s: [0, 0, 10 * ca.sin(t)])``. Its arguments are the time t and a
`BodyState` (position, rotation, velocity, angular_velocity, point(), point_velocity()).
The Force or Torque constructor traces it once too and evaluates it at t = 0 and the body's
initial state: a function that fails, or is not finite there (math.sin of a CasADi symbol gives
NaN), is rejected with InputError at once.
Forces act at the start of each step (explicit, docs/FORMULATION.md section 2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from ..errors import InputError
from ..validation import error_reason, finite_array, location, name_string, short_repr
from .bodies import RigidBody
from .pose import BodyState, Pose
from .rotation import rotation_matrix

Vector = Sequence[float] | np.ndarray
VectorFunction = Callable[[ca.SX, BodyState], Any]


def _value(name: str, value: Vector | VectorFunction, t: ca.SX, state: BodyState) -> ca.SX:
    if callable(value):
        out = value(t, state)
        if not isinstance(out, ca.SX):
            try:
                n = out.numel() if isinstance(out, ca.DM) else len(out)
            except TypeError:
                raise InputError(f"{name} must return a 3-vector, got {short_repr(out)}") from None
            if n != 3:
                raise InputError(f"{name} must return a 3-vector, got {n} entries")
            out = ca.vertcat(*[out[i] for i in range(3)])
        if out.shape != (3, 1):
            raise InputError(f"{name} must return a 3-vector, got shape {out.shape}")
        return out
    return ca.DM(np.asarray(value, float))


def _check_body(name: str, body: object) -> None:
    if not isinstance(body, RigidBody):
        raise InputError(f"{name}.body must be a RigidBody, got {short_repr(body)}")


def _check_callable(name: str, value: VectorFunction, body: RigidBody) -> None:
    """Trace a load function once with symbols, as the model will, and evaluate it at t = 0 and
    the body's initial state: it must give a finite 3-vector there."""
    t, r, p = ca.SX.sym("t"), ca.SX.sym("r", 3), ca.SX.sym("p", 4)
    rd, w = ca.SX.sym("r_dot", 3), ca.SX.sym("w", 3)
    state = BodyState(Pose(r, rotation_matrix(p)), rd, w)
    try:
        out = _value(name, value, t, state)
        probe = ca.Function("probe", [t, r, p, rd, w], [ca.SX(out)])
        at_start = probe(0.0, body.position, body.orientation, body.velocity, body.angular_velocity)
    except InputError:
        raise
    except Exception as err:  # the user's function failed: report it on one line
        reason = error_reason(err)
        raise InputError(
            f"{name} must be a function f(t, state) of CasADi expressions returning a "
            f"3-vector; calling it raised {type(err).__name__}: {reason}"
        ) from None
    values = np.asarray(at_start, dtype=float).ravel()
    if not np.all(np.isfinite(values)):
        raise InputError(
            f"{name} must be finite at t = 0 and the initial state, got {values.tolist()} "
            "(use CasADi functions such as ca.sin, not math.sin)"
        )


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
        name_string("force name", self.name)
        _check_body(self.name, self.body)
        object.__setattr__(self, "point", location(f"{self.name}.point", self.point))
        if callable(self.value):
            _check_callable(f"{self.name}.value", self.value, self.body)
        else:
            object.__setattr__(self, "value", finite_array(f"{self.name}.value", self.value, (3,)))
        if not isinstance(self.frame, str) or self.frame not in ("global", "body"):
            raise InputError(
                f"{self.name}.frame must be 'global' or 'body', got {short_repr(self.frame)}"
            )

    def generalized(self, t: ca.SX, state: BodyState) -> tuple[ca.SX, ca.SX]:
        """(F global, tau' body frame) of docs/FORMULATION.md section 2: tau' = s'~ A^T f."""
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
        name_string("torque name", self.name)
        _check_body(self.name, self.body)
        if callable(self.value):
            _check_callable(f"{self.name}.value", self.value, self.body)
        else:
            object.__setattr__(self, "value", finite_array(f"{self.name}.value", self.value, (3,)))
        if not isinstance(self.frame, str) or self.frame not in ("global", "body"):
            raise InputError(
                f"{self.name}.frame must be 'global' or 'body', got {short_repr(self.frame)}"
            )

    def generalized(self, t: ca.SX, state: BodyState) -> tuple[ca.SX, ca.SX]:
        tau = _value(f"{self.name}.value", self.value, t, state)
        tau_body = state.rotation.T @ tau if self.frame == "global" else tau
        return ca.SX.zeros(3, 1), tau_body


AppliedLoad = Force | Torque
