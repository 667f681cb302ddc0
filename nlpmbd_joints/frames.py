"""Joint geometry given globally at t = 0, turned into body-fixed points and triads."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_point, initial_local_vector
from nlpmbd.model.joint import IdealJoint, Joint
from nlpmbd.model.rotation import perpendicular_pair
from nlpmbd.validation import finite_scalar, location, unit_vector, vector_norm

#: Relative tolerance below which two joint points (or two axis directions) coincide.
COINCIDENT_TOL = 1e-12


class AxisFrame:
    """A global point and unit axis at t = 0, with its perpendicular pair, expressed in the
    body-fixed coordinates of a parent and a child body."""

    def __init__(
        self, joint_name: str, parent: Body, child: Body, point: ArrayLike, axis: ArrayLike
    ) -> None:
        try:
            self.point = location("point", point)
            self.axis = unit_vector("axis", axis)
        except InputError as err:
            raise InputError(f"{joint_name}.{err}") from None
        self.perp = perpendicular_pair(self.axis)
        self.s_parent = initial_local_point(parent, self.point)
        self.s_child = initial_local_point(child, self.point)
        self.u_parent = initial_local_vector(parent, self.axis)
        self.u_child = initial_local_vector(child, self.axis)
        self.perp_parent = [initial_local_vector(parent, a) for a in self.perp]
        self.perp_child = [initial_local_vector(child, a) for a in self.perp]

    def same_point(self, other: AxisFrame) -> bool:
        """The two joint points coincide (within COINCIDENT_TOL relative to their size)."""
        scale = max(1.0, vector_norm(self.point), vector_norm(other.point))
        return vector_norm(self.point / scale - other.point / scale) <= COINCIDENT_TOL

    def same_axis(self, other: AxisFrame) -> bool:
        """The two axes are parallel (or anti-parallel)."""
        return vector_norm(np.cross(self.axis, other.axis)) <= COINCIDENT_TOL

    def same_line(self, other: AxisFrame) -> bool:
        """The two axes lie on one line: parallel, and the points differ along the axis only."""
        if not self.same_axis(other):
            return False
        scale = max(1.0, vector_norm(self.point), vector_norm(other.point))
        d = self.point / scale - other.point / scale
        return vector_norm(d - np.dot(d, self.axis) * self.axis) <= COINCIDENT_TOL


def _spin(state: Any) -> ca.SX:
    """A body's angular velocity in global axes (0 for GROUND)."""
    return ca.SX.zeros(3) if state is None else state.rotation @ state.angular_velocity


def _vector(state: Any, local: ArrayLike) -> ca.SX:
    """A body-fixed vector in global axes (GROUND: as given)."""
    u = ca.DM(np.asarray(local, float))
    return u if state is None else state.rotation @ u


def checked_loss(name: str, value: object) -> float:
    """A joint's frictionloss (N m or N), >= 0."""
    return finite_scalar(f"{name}.frictionloss", value, low=0.0)


class Breakaway:
    """Mixin of a joint with one friction row on its free motion, whose rate `_friction_rate`
    gives (Joint.friction_rates): the bound frictionloss + mu * lever * N, N the reaction across
    the axis (the pin's radial load, or the slide's normal load; Joint.friction_normals)."""

    frictionloss: float
    mu: float
    lever: float

    def _set_friction(self, name: str, frictionloss: object, mu: object, lever: float) -> None:
        self.frictionloss = checked_loss(name, frictionloss)
        self.mu = finite_scalar(f"{name}.mu", mu, low=0.0)
        self.lever = lever

    def _friction_rate(self, states: dict) -> ca.SX:
        raise NotImplementedError

    @property
    def _has_friction(self) -> bool:
        return self.frictionloss > 0 or self.mu * self.lever > 0

    @property
    def friction_losses(self) -> tuple[float, ...]:
        return (self.frictionloss,) if self._has_friction else ()

    @property
    def friction_coefficients(self) -> tuple[float, ...]:
        return (self.mu * self.lever,) if self._has_friction else ()

    def friction_rates(self, states: dict) -> list[ca.SX]:
        return [self._friction_rate(states)] if self._has_friction else []

    def friction_normals(self, poses: Any, force: ca.SX) -> list[ca.SX]:
        a = poses[self.parent].vector(self.frame.u_parent)  # type: ignore[attr-defined]
        across = force - a * ca.dot(a, force)
        return [ca.sqrt(ca.dot(across, across))] if self._has_friction else []


class FramedJoint(IdealJoint):
    """A joint whose geometry is one AxisFrame, `self.frame`.

    `REDUNDANT_WHEN` says when a second joint of the same class between the same two bodies
    (in either order) repeats its constraints: "point" (the points coincide), "line" (the axes
    lie on one line), "axis" (the axes are parallel), "point+axis" (both), "always".
    """

    frame: AxisFrame
    REDUNDANT_WHEN = "point+axis"

    def duplicates(self, other: Joint) -> str | None:
        if type(other) is not type(self) or not isinstance(other, FramedJoint):
            return None
        if {id(b) for b in self.bodies} != {id(b) for b in other.bodies}:
            return None
        f, g = self.frame, other.frame
        where = {
            "point": ("at the same point", f.same_point(g)),
            "line": ("on the same axis line", f.same_line(g)),
            "axis": ("about parallel axes", f.same_axis(g)),
            "point+axis": ("at the same point and axis", f.same_point(g) and f.same_axis(g)),
            "always": ("", True),
        }
        text, same = where[self.REDUNDANT_WHEN]
        if not same:
            return None
        return f"both are {type(self).__name__} between the same bodies {text}".rstrip()


class AxisJoint(FramedJoint):
    """A FramedJoint given by a point and an axis, both global at t = 0 (m, dimensionless): the
    constructor of the revolute, cylindrical (prismatic) and planar-revolute joints."""

    def _relative_spin(self, states: dict) -> ca.SX:
        """(omega_child - omega_parent) . axis (rad/s), the axis carried by the parent."""
        f = self.frame
        spin = [_spin(states.get(b)) for b in (self.child, self.parent)]
        return ca.dot(spin[0] - spin[1], _vector(states.get(self.parent), f.u_parent))

    def _relative_slide(self, states: dict) -> ca.SX:
        """The child's joint point's velocity relative to the parent's material point there,
        along the axis (m/s)."""
        f, child, parent = self.frame, states.get(self.child), states.get(self.parent)
        v_c = child.point_velocity(f.s_child) if child is not None else ca.SX.zeros(3)
        if parent is not None:  # the parent's material point under the child's joint point
            x = child.point(f.s_child) if child is not None else ca.DM(f.point)
            w = parent.rotation @ parent.angular_velocity
            v_c = v_c - (parent.velocity + ca.cross(w, x - parent.position))
        return ca.dot(v_c, _vector(parent, f.u_parent))

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        point: ArrayLike,
        axis: ArrayLike = (0.0, 0.0, 1.0),
    ) -> None:
        super().__init__(name, parent, child)
        self.frame = AxisFrame(name, parent, child, point, axis)
