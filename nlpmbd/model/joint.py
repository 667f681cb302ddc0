"""The interface every joint implements; the engine only ever calls these hooks.

A joint emits scalar functions of the body poses: equalities Phi_eq(q, t) = 0 (ideal joints,
driving constraints) and/or gaps Phi(q) <= 0 (clearance contacts, signed distances in metres,
positive = penetration). The engine derives all Jacobians by automatic differentiation
(docs/FORMULATION.md section 3), so a joint never writes a derivative.

A joint subclasses one of two abstract bases and must provide their hooks: `IdealJoint`
(`eq_labels`, `equalities`) or `ContactJoint` (`gap_labels`, `gaps`, `contact_frames`); a
contact joint may add equalities too (e.g. the axial constraint of a revolute clearance joint).
Its docstring states the geometry, units, sign convention and the equation it implements.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import casadi as ca

from ..errors import InputError
from ..validation import name_string, short_repr
from .bodies import GROUND, Body, RigidBody
from .contact import ContactLaw, ForceLaw, check_contact
from .flexible import Node
from .pose import Poses


class Joint(ABC):  # noqa: B024 - its abstract hooks are in IdealJoint and ContactJoint
    """Base class: a named connection between `parent` and `child` (either may be GROUND, or
    a Node of a flexible body: a point whose frame stays parallel to the global one).

    Subclass IdealJoint or ContactJoint, not this class. No CasADi state is kept on the object.
    """

    def __init__(
        self,
        name: str,
        parent: Body | Node,
        child: Body | Node,
        contact: ContactLaw | None = None,
    ) -> None:
        if not isinstance(self, (IdealJoint, ContactJoint)):
            raise TypeError(f"{type(self).__name__} must subclass IdealJoint or ContactJoint")
        self.name = name_string("joint name", name)
        if "." in name:  # result labels are "<joint>.<constraint>", split at the first dot
            raise InputError(f"joint name must not contain '.', got {short_repr(name)}")
        for role, body in (("parent", parent), ("child", child)):
            if body is not GROUND and not isinstance(body, (RigidBody, Node)):
                raise InputError(
                    f"{name}.{role} must be a RigidBody, a Node or GROUND, got {short_repr(body)}"
                )
        if parent is child:
            raise InputError(f"{name}: parent and child must be different bodies")
        self.parent: Any = parent
        self.child: Any = child
        #: law of the joint's gaps (contact.py): HardContact (default) or a ForceLaw
        self.contact = check_contact(name, contact)

    @property
    def bodies(self) -> tuple[Any, Any]:
        return (self.parent, self.child)

    # --- equality hooks (ideal joints and driving constraints) ---------------------------
    @property
    def eq_labels(self) -> Sequence[str]:
        return ()

    def equalities(self, poses: Poses, t: ca.SX) -> list[ca.SX]:
        """Scalar constraint functions Phi_eq(q, t) = 0, one per entry of `eq_labels`."""
        return []

    # --- inequality hooks (clearance contacts) --------------------------------------------
    @property
    def gap_labels(self) -> Sequence[str]:
        return ()

    def gaps(self, poses: Poses) -> list[ca.SX]:
        """Signed distances Phi_j(q) <= 0, one per entry of `gap_labels` (> 0 = penetration)."""
        return []

    def contact_frames(self, poses: Poses) -> list[tuple[ca.SX, ca.SX]]:
        """Per gap, for reports: (global unit direction of the contact force that acts on the
        CHILD body, global contact point). The force vector is lambda_j times the direction."""
        return []

    def gap_offsets(self, poses: Poses) -> list[ca.SX | None]:
        """Per gap: the offset vector d (3, global, m) when the gap is the smoothed |d| - c of
        a pin or ball in its seat, which the vector linearisation bounds as a whole
        (step/cuts.py), c being the gap's clearance (gap_scales); None for a gap that is a
        plane's distance. The default: all None."""
        return [None] * self.n_gap

    @property
    def gap_scales(self) -> Sequence[float]:
        """Per gap, the clearance it closes (m), or () for none: the one place a joint states
        it (the step's cone radius, penetration fractions, the projection's tolerance and
        meta.json's contact_scales all take it from here: System.joint_clearances)."""
        return ()

    def describe(self) -> dict | None:
        """Plain numbers about the joint's geometry that figures need (stored in a result's
        meta["joint_geometry"]; a "clearance" equal to its first gap's is stored once, in
        contact_scales, io/clearances.py), or None. The default: None."""
        return None

    def duplicates(self, other: Joint) -> str | None:
        """Why `other` repeats this joint's constraints (e.g. the same kind of joint between the
        same bodies at the same point), or None. System.add_joint rejects such a pair, whose
        redundant constraints the per-step NLP cannot solve. The default: never."""
        return None

    # --- friction inside the joint (step/rows/joint_friction.py) -------------------------
    @property
    def friction_losses(self) -> Sequence[float]:
        """Per friction row of the joint, its constant friction bound: the torque (N m) or
        force (N) that its free motion must overcome to break away, and that resists it while
        it slides; () (the default): none."""
        return ()

    def friction_rates(self, states: dict) -> list[ca.SX]:
        """Per friction row, the rate of the free motion it resists (rad/s or m/s; the child
        relative to the parent), linear in the velocities. `states`: body -> BodyState
        (GROUND absent: at rest)."""
        return []

    @property
    def friction_coefficients(self) -> Sequence[float]:
        """Per friction row, the factor of its load (friction_normals) in its bound: mu times
        the lever (the pin radius, m, of a revolute's friction circle; 1 for a slide); the
        bound is friction_losses + coefficient * load. The default: 0 for every row."""
        return [0.0] * len(self.friction_losses)

    def friction_normals(self, poses: Poses, force: ca.SX) -> list[ca.SX]:
        """Per friction row, the load (N) that presses its surfaces together, from `force`
        (3,), the joint's reaction on the child (global). The default: |force| per row."""
        return [ca.norm_2(force)] * len(self.friction_losses)

    @property
    def n_eq(self) -> int:
        return len(self.eq_labels)

    @property
    def n_gap(self) -> int:
        return len(self.gap_labels)

    @property
    def uses_force_law(self) -> bool:
        """True when the gaps are handled by a force law instead of the NLP's constraints."""
        return isinstance(self.contact, ForceLaw)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.parent.name} -> {self.child.name})"


class IdealJoint(Joint):
    """A joint of equalities: ideal joints and driving constraints."""

    @property
    @abstractmethod
    def eq_labels(self) -> Sequence[str]:
        """One label per scalar equality (results name columns "<joint>.<label>")."""

    @abstractmethod
    def equalities(self, poses: Poses, t: ca.SX) -> list[ca.SX]:
        """Scalar constraint functions Phi_eq(q, t) = 0, one per entry of `eq_labels`."""


class ContactJoint(Joint):
    """A joint with gaps: clearance joints and unilateral contacts."""

    @property
    @abstractmethod
    def gap_labels(self) -> Sequence[str]:
        """One label per gap."""

    @abstractmethod
    def gaps(self, poses: Poses) -> list[ca.SX]:
        """Signed distances Phi_j(q) <= 0, one per entry of `gap_labels` (> 0 = penetration)."""

    @abstractmethod
    def contact_frames(self, poses: Poses) -> list[tuple[ca.SX, ca.SX]]:
        """Per gap: (global unit direction of the contact force on the CHILD body, global
        contact point). The force vector is lambda_j times the direction."""

    def slip_planes(self, poses: Poses) -> list[ca.SX] | None:
        """Per gap, the global unit normal of the plane its contact slips in, for a joint of a
        planar mechanism (friction then has one tangent, exact); None (the default): spatial
        contacts, two tangents."""
        return None
