"""System: collects bodies, joints, gravity and applied loads. It builds nothing numerical."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..validation import finite_array, finite_scalar, short_repr
from .bodies import GROUND, RigidBody
from .contact import HardContact
from .coordinates import Coordinates
from .flexible import FlexibleBody, Node
from .flexible_loads import PointLoad
from .forces import AppliedLoad, Force, Torque
from .joint import Joint
from .springs import RotationalSpringDamper, SpringDamper, SpringElement


def _iterable(name: str, items: object) -> list:
    if isinstance(items, (str, bytes)):
        raise InputError(f"{name} expects a list, got {short_repr(items)}")
    try:
        return list(items)  # type: ignore[call-overload]
    except TypeError:
        raise InputError(f"{name} expects a list, got {short_repr(items)}") from None


class System:
    """A multibody system declared body by body, joint by joint.

    >>> sys = System(gravity=(0, -9.81, 0))
    >>> body = sys.add_body(RigidBody("link", 1.0, (1e-3, 1e-2, 1e-2)))
    """

    def __init__(self, gravity: ArrayLike = (0.0, -9.81, 0.0)) -> None:
        self.gravity = finite_array("gravity", gravity, (3,))
        self.bodies: list[RigidBody] = []
        #: flexible bodies (model/flexible.py); their nodes follow the rigid bodies in q and v
        self.flexible: list[FlexibleBody] = []
        self.joints: list[Joint] = []
        self.loads: list[AppliedLoad | SpringElement] = []
        self.point_loads: list[PointLoad] = []
        #: simulation options this system's case chooses for it (Case.options: flat names ->
        #: values), below the caller's: `simulate` applies them (SimulationOptions.over)
        self.option_defaults: dict[str, Any] = {}

    # --- declaration ------------------------------------------------------------------------
    def add_body(self, body: Any) -> Any:
        """Add a RigidBody or a FlexibleBody."""
        if not isinstance(body, (RigidBody, FlexibleBody)):
            raise InputError(
                f"add_body expects a RigidBody or FlexibleBody, got {short_repr(body)}"
            )
        if any(b.name == body.name for b in [*self.bodies, *self.flexible]):  # type: ignore[attr-defined]
            raise InputError(f"body name {body.name!r} is already used; names must be unique")
        (self.bodies if isinstance(body, RigidBody) else self.flexible).append(body)  # type: ignore[arg-type]
        return body

    def add_bodies(self, bodies: Iterable[RigidBody]) -> None:
        for b in _iterable("add_bodies", bodies):
            self.add_body(b)

    def add_joint(self, joint: Joint) -> Joint:
        if not isinstance(joint, Joint):
            raise InputError(f"add_joint expects a Joint, got {short_repr(joint)}")
        if any(j.name == joint.name for j in self.joints):
            raise InputError(f"joint name {joint.name!r} is already used; names must be unique")
        for b in joint.bodies:
            if isinstance(b, Node):
                if b.body not in self.flexible:
                    raise InputError(
                        f"joint {joint.name!r} uses node {b.name} of a body not added to the system"
                    )
            elif b is not GROUND and b not in self.bodies:
                raise InputError(
                    f"joint {joint.name!r} uses body {b.name!r} not added to the system"
                )
        for other in self.joints:
            reason = joint.duplicates(other) or other.duplicates(joint)
            if reason:
                raise InputError(
                    f"joint {joint.name!r} duplicates joint {other.name!r} ({reason}): "
                    "its constraints would be redundant"
                )
        if joint.n_gap == 0 and joint.contact != HardContact():
            raise InputError(
                f"joint {joint.name!r} has no gaps, so its contact law would do nothing"
            )
        self.joints.append(joint)
        return joint

    def add_joints(self, joints: Iterable[Joint]) -> None:
        for j in _iterable("add_joints", joints):
            self.add_joint(j)

    def add_load(self, load: Any) -> Any:
        """Add a Force, Torque, SpringDamper, RotationalSpringDamper or (on a flexible body)
        PointLoad."""
        if isinstance(load, PointLoad):
            if load.body not in self.flexible:
                raise InputError(
                    f"load {load.name!r} acts on body {load.body.name!r} not in the system"
                )
            self.point_loads.append(load)
            return load
        if isinstance(load, (RotationalSpringDamper, SpringDamper)):
            for b in load.bodies:
                if b is not GROUND and b not in self.bodies:
                    raise InputError(
                        f"load {load.name!r} acts on body {b.name!r} not in the system"
                    )
            self.loads.append(load)
            return load
        if not isinstance(load, (Force, Torque)):
            raise InputError(
                f"add_load expects a Force, Torque, SpringDamper or RotationalSpringDamper, "
                f"got {short_repr(load)}"
            )
        if load.body not in self.bodies:
            raise InputError(
                f"load {load.name!r} acts on body {load.body.name!r} not in the system"
            )
        self.loads.append(load)
        return load

    # --- layout -------------------------------------------------------------------------------
    @property
    def n_bodies(self) -> int:
        return len(self.bodies)

    def body_index(self, body: RigidBody) -> int:
        return self.bodies.index(body)

    @property
    def coordinates(self) -> Coordinates:
        """Where each body's coordinates sit in q and v (model/coordinates.py)."""
        return Coordinates(self.bodies, self.flexible)

    @property
    def eq_labels(self) -> list[str]:
        return [f"{j.name}.{lab}" for j in self.joints for lab in j.eq_labels]

    @property
    def hard_joints(self) -> list[Joint]:
        """Joints whose gaps are constraints of the step (HardContact): the contacts."""
        return [j for j in self.joints if not j.uses_force_law]

    @property
    def compliant_joints(self) -> list[Joint]:
        """Joints whose gaps carry a force law (CompliantContact) instead."""
        return [j for j in self.joints if j.uses_force_law]

    @property
    def gap_labels(self) -> list[str]:
        return [f"{j.name}.{lab}" for j in self.hard_joints for lab in j.gap_labels]

    @property
    def compliant_labels(self) -> list[str]:
        return [f"{j.name}.{lab}" for j in self.compliant_joints for lab in j.gap_labels]

    def joint_clearances(self, joint: Joint) -> list[float]:
        """Per gap of `joint`, the clearance it closes (m): its Joint.gap_scales, the one place
        a joint declares it; 0 for every gap of a joint that gives none. InputError when it
        gives another number of values than gaps, or one that is not a number >= 0."""
        scales = list(joint.gap_scales)
        if not scales:
            return [0.0] * joint.n_gap
        if len(scales) != joint.n_gap:
            raise InputError(
                f"joint {joint.name!r}: gap_scales must give one clearance (m) per gap "
                f"({joint.n_gap} values), got {len(scales)}"
            )
        return [
            finite_scalar(f"joint {joint.name!r}: gap_scales[{k}]", c, low=0.0)
            for k, c in enumerate(scales)
        ]

    @property
    def gap_clearances(self) -> list[float]:
        """Per contact column, the clearance its gap closes (joint_clearances), soft or not:
        meta.json's contact_scales."""
        return [c for j in self.hard_joints for c in self.joint_clearances(j)]

    @property
    def gap_soft(self) -> list[bool]:
        """Per contact column, True for a gap that penetrates by design (HardContact.penetrates:
        a SpringDamperContact's): meta.json's contact_soft."""
        return [j.contact.penetrates for j in self.hard_joints for _ in range(j.n_gap)]

    @property
    def compliant_clearances(self) -> list[float]:
        """Per compliant column (compliant_labels), the clearance its gap closes: meta.json's
        compliant_scales."""
        return [c for j in self.compliant_joints for c in self.joint_clearances(j)]

    @property
    def gap_scales(self) -> list[float]:
        """Per contact column, the clearance its penetration is measured against: its
        gap_clearances entry, 0 for a soft gap (gap_soft)."""
        soft = self.gap_soft
        return [0.0 if s else c for c, s in zip(self.gap_clearances, soft, strict=True)]

    def initial_state(self) -> tuple[np.ndarray, np.ndarray]:
        """Stacked q0 (7N: x y z e0 e1 e2 e3 per body, then x y per node) and v0 (6N: r_dot, w'
        per body, then x_dot y_dot per node)."""
        if not self.bodies and not self.flexible:
            raise InputError("system has no bodies; add at least one RigidBody")
        q = [np.r_[b.position, b.orientation] for b in self.bodies]
        v = [np.r_[b.velocity, b.angular_velocity] for b in self.bodies]
        q += [f.reference.ravel() for f in self.flexible]
        v += [np.tile(f.velocity, f.n_nodes) for f in self.flexible]
        return np.concatenate(q), np.concatenate(v)

    def __repr__(self) -> str:
        return (
            f"System({len(self.bodies)} bodies, {len(self.joints)} joints, "
            f"{len(self.loads)} loads, gravity={self.gravity.tolist()})"
        )
