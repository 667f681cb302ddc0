"""Rigid bodies in the rA formulation (docs/FORMULATION.md section 1) and the ground."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from ..validation import (
    finite_array,
    finite_scalar,
    location,
    name_string,
    numeric_array,
    short_repr,
    vector_norm,
)
from .rotation import rotation_matrix

#: Tolerance on |p| - 1 for a user-given orientation (Euler parameters must be unit).
UNIT_TOL = 1e-6


class Ground:
    """The fixed global frame. Joints attach to it; it has no coordinates."""

    name = "ground"

    def __repr__(self) -> str:
        return "GROUND"


GROUND = Ground()


def _orientation(value: Any) -> np.ndarray:
    """Euler parameters from a 4-sequence [e0, e1, e2, e3] or a pyquaternion.Quaternion."""
    try:
        from pyquaternion import Quaternion
    except ImportError:  # pragma: no cover - pyquaternion is a hard dependency
        Quaternion = ()
    if Quaternion and isinstance(value, Quaternion):
        p = np.array([value.w, value.x, value.y, value.z], dtype=float)
    else:
        p = finite_array("orientation", value, (4,))
    if not np.all(np.isfinite(p)):
        raise InputError(f"orientation must be finite, got {p.tolist()}")
    norm = vector_norm(p)
    if abs(norm - 1.0) > UNIT_TOL:
        raise InputError(
            f"orientation must be unit Euler parameters (|p| = 1 within {UNIT_TOL}), "
            f"got |p| = {norm:.6g}"
        )
    return p / norm


def _inertia(value: Any) -> np.ndarray:
    """3x3 symmetric positive-definite inertia (or its principal moments) satisfying the
    triangle inequality J1 + J2 >= J3 that every physical rigid body obeys."""
    bad = InputError(
        f"inertia must be a 3x3 matrix or 3 principal moments, got {short_repr(value)}"
    )
    a = numeric_array(value, bad)
    if a.shape not in ((3,), (3, 3)):
        raise bad
    if not np.all(np.isfinite(a)):
        raise InputError("inertia must be finite")
    J = np.diag(a) if a.shape == (3,) else a
    scale = float(np.max(np.abs(J)))
    if scale == 0.0:
        raise InputError("inertia must be positive definite, got all zeros")
    if np.max(np.abs(J / scale - J.T / scale)) > 1e-9:
        raise InputError("inertia must be symmetric (J == J^T within 1e-9 relative)")
    J = 0.5 * (J + J.T) if scale < 1e307 else 0.5 * J + 0.5 * J.T  # J + J^T could overflow
    if 1e-150 < scale < 1e150:
        moments = np.linalg.eigvalsh(J)
    else:  # in units of the largest entry: no overflow or underflow
        moments = np.linalg.eigvalsh(J / scale) * scale
    if moments[0] <= 0:
        raise InputError(
            f"inertia must be positive definite, got principal moments {moments.tolist()}"
        )
    if moments[0] / 2 + moments[1] / 2 < moments[2] / 2 * (1 - 1e-9):  # halves: no overflow
        raise InputError(
            f"inertia principal moments {moments.tolist()} violate J1 + J2 >= J3 (not a rigid body)"
        )
    return J


@dataclass(frozen=True, eq=False)
class RigidBody:
    """A rigid body: centre-of-mass position r and Euler parameters p (7 coordinates).

    Parameters
    ----------
    name : unique name, used in labels and result metadata.
    mass : kg, > 0.
    inertia : kg m^2, about the centre of mass in body axes; 3x3 or principal moments.
    position : initial centre of mass in the global frame, m.
    orientation : initial Euler parameters [e0, e1, e2, e3] (unit) or a pyquaternion.Quaternion;
        it rotates body axes into global axes.
    velocity : initial centre-of-mass velocity, global frame, m/s.
    angular_velocity : initial angular velocity in BODY axes (w' of docs/FORMULATION.md), rad/s.
    """

    name: str
    mass: float
    inertia: Any
    position: Any = (0.0, 0.0, 0.0)
    orientation: Any = (1.0, 0.0, 0.0, 0.0)
    velocity: Any = (0.0, 0.0, 0.0)
    angular_velocity: Any = (0.0, 0.0, 0.0)
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name_string("body name", self.name)
        if self.name == GROUND.name:
            raise InputError("body name 'ground' is reserved for the fixed frame")
        set_ = object.__setattr__
        set_(self, "mass", finite_scalar(f"{self.name}.mass", self.mass, low=0.0, low_open=True))
        try:
            J = _inertia(self.inertia)
        except InputError as err:
            raise InputError(f"{self.name}.{err}") from None
        set_(self, "inertia", J)
        set_(self, "position", location(f"{self.name}.position", self.position))
        try:
            p = _orientation(self.orientation)
        except InputError as err:
            raise InputError(f"{self.name}.{err}") from None
        set_(self, "orientation", p)
        set_(self, "velocity", finite_array(f"{self.name}.velocity", self.velocity, (3,)))
        set_(
            self,
            "angular_velocity",
            finite_array(f"{self.name}.angular_velocity", self.angular_velocity, (3,)),
        )

    @property
    def rotation(self) -> np.ndarray:
        """Initial rotation matrix A(p0) (body -> global)."""
        return rotation_matrix(self.orientation)

    def to_body(self, point_global: np.ndarray) -> np.ndarray:
        """Body-frame offset s' of a global point at the initial pose."""
        return self.rotation.T @ (np.asarray(point_global, float) - self.position)

    def vector_to_body(self, vector_global: np.ndarray) -> np.ndarray:
        """Body-frame components of a global vector at the initial pose."""
        return self.rotation.T @ np.asarray(vector_global, float)

    def __repr__(self) -> str:
        return f"RigidBody({self.name!r}, mass={self.mass})"


Body = RigidBody | Ground


def initial_local_point(body: Any, point_global: np.ndarray) -> np.ndarray:
    """Body-frame (or ground) coordinates of a point given globally at t = 0 (a flexible
    body's Node: the offset from the node)."""
    if isinstance(body, Ground):
        return np.asarray(point_global, float)
    return body.to_body(point_global)


def initial_local_vector(body: Any, vector_global: np.ndarray) -> np.ndarray:
    """Body-frame (or ground) components of a vector given globally at t = 0."""
    if isinstance(body, Ground):
        return np.asarray(vector_global, float)
    return body.vector_to_body(vector_global)
