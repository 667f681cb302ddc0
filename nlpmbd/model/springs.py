"""Spring-damper elements between two bodies (either may be GROUND), applied forces like Force
and Torque: explicit, evaluated at the start of each step (docs/FORMULATION.md section 2).

Each element gives `generalized(t, states)`: a list of (body, F global, tau' body frame).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from ..errors import InputError
from ..validation import (
    distance,
    finite_scalar,
    location,
    name_string,
    short_repr,
    unit_vector,
)
from .bodies import GROUND, Body, RigidBody, initial_local_point, initial_local_vector
from .pose import BodyState
from .rotation import perpendicular_pair


def _bodies(name: str, a: object, b: object) -> None:
    for role, body in (("parent", a), ("child", b)):
        if body is not GROUND and not isinstance(body, RigidBody):
            raise InputError(f"{name}.{role} must be a RigidBody or GROUND, got {short_repr(body)}")
    if a is b:
        raise InputError(f"{name}: parent and child must be different bodies")


def _nonnegative(name: str, value: object) -> float:
    x = finite_scalar(name, value)
    if x < 0:
        raise InputError(f"{name} must be >= 0, got {x!r}")
    return x


def _rotation(state: BodyState | None) -> ca.SX:
    return ca.SX.eye(3) if state is None else state.rotation


def _omega(state: BodyState | None) -> ca.SX:
    return ca.SX.zeros(3, 1) if state is None else state.rotation @ state.angular_velocity


@dataclass(frozen=True)
class RotationalSpringDamper:
    """Torque -(k (theta - theta0) + c theta_dot) about `axis` on the child, the opposite on
    the parent. theta is the child's rotation relative to the parent about the axis (global at
    t = 0, fixed in the parent), measured from t = 0, in (-pi, pi]; theta_dot is the relative
    angular velocity along the axis. Units: k in N m/rad, c in N m s/rad."""

    name: str
    parent: Body
    child: Body
    axis: tuple = (0.0, 0.0, 1.0)
    stiffness: float = 0.0
    damping: float = 0.0
    angle0: float = 0.0
    _frame: tuple = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        name_string("spring name", self.name)
        _bodies(self.name, self.parent, self.child)
        u = unit_vector(f"{self.name}.axis", self.axis)
        object.__setattr__(self, "axis", tuple(u))
        object.__setattr__(
            self, "stiffness", _nonnegative(f"{self.name}.stiffness", self.stiffness)
        )
        object.__setattr__(self, "damping", _nonnegative(f"{self.name}.damping", self.damping))
        object.__setattr__(self, "angle0", finite_scalar(f"{self.name}.angle0", self.angle0))
        a, b = perpendicular_pair(u)
        frame = (
            initial_local_vector(self.parent, u),
            initial_local_vector(self.parent, a),
            initial_local_vector(self.parent, b),
            initial_local_vector(self.child, a),
        )
        object.__setattr__(self, "_frame", frame)

    @property
    def bodies(self) -> tuple[Body, Body]:
        return (self.parent, self.child)

    def generalized(self, t: ca.SX, states: dict) -> list[tuple[Body, ca.SX, ca.SX]]:
        sp, sc = states.get(self.parent), states.get(self.child)
        Ap, Ac = _rotation(sp), _rotation(sc)
        u_l, a_l, b_l, ac_l = (ca.DM(x) for x in self._frame)
        u, a_p, b_p, a_c = Ap @ u_l, Ap @ a_l, Ap @ b_l, Ac @ ac_l
        theta = ca.atan2(ca.dot(a_c, b_p), ca.dot(a_c, a_p))
        rate = ca.dot(u, _omega(sc) - _omega(sp))
        tau = -(self.stiffness * (theta - self.angle0) + self.damping * rate) * u
        out = []
        for body, state, torque in ((self.child, sc, tau), (self.parent, sp, -tau)):
            if state is not None:
                out.append((body, ca.SX.zeros(3, 1), state.rotation.T @ torque))
        return out


@dataclass(frozen=True)
class SpringDamper:
    """Point-to-point spring-damper: force k (L - L0) + c L_dot along the line between
    `point_parent` and `point_child` (global at t = 0), pulling them together when positive.
    Units: k in N/m, c in N s/m, L0 in m (None: the length at t = 0)."""

    name: str
    parent: Body
    child: Body
    point_parent: tuple
    point_child: tuple
    stiffness: float = 0.0
    damping: float = 0.0
    length0: float | None = None
    _local: tuple = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        name_string("spring name", self.name)
        _bodies(self.name, self.parent, self.child)
        pp = location(f"{self.name}.point_parent", self.point_parent)
        pc = location(f"{self.name}.point_child", self.point_child)
        object.__setattr__(
            self, "stiffness", _nonnegative(f"{self.name}.stiffness", self.stiffness)
        )
        object.__setattr__(self, "damping", _nonnegative(f"{self.name}.damping", self.damping))
        length = float(np.linalg.norm(pc - pp))
        L0 = (
            length
            if self.length0 is None
            else distance(f"{self.name}.length0", self.length0, low_open=False)
        )
        if length == 0.0:
            raise InputError(f"{self.name}: point_parent and point_child must differ at t = 0")
        object.__setattr__(self, "length0", L0)
        local = (initial_local_point(self.parent, pp), initial_local_point(self.child, pc))
        object.__setattr__(self, "_local", local)

    @property
    def bodies(self) -> tuple[Body, Body]:
        return (self.parent, self.child)

    def generalized(self, t: ca.SX, states: dict) -> list[tuple[Body, ca.SX, ca.SX]]:
        ends = []
        for state, s in (
            (states.get(self.parent), self._local[0]),
            (states.get(self.child), self._local[1]),
        ):
            if state is None:
                ends.append((ca.DM(s), ca.SX.zeros(3, 1)))
            else:
                ends.append((state.point(s), state.point_velocity(s)))
        (xp, vp), (xc, vc) = ends
        d = xc - xp
        L = ca.norm_2(d)
        n = d / L
        f = self.stiffness * (L - self.length0) + self.damping * ca.dot(n, vc - vp)
        out = []
        for body, state, s, F in (
            (self.child, states.get(self.child), self._local[1], -f * n),
            (self.parent, states.get(self.parent), self._local[0], f * n),
        ):
            if state is not None:
                out.append((body, F, ca.cross(ca.DM(s), state.rotation.T @ F)))
        return out


SpringElement = RotationalSpringDamper | SpringDamper
