"""What a robot file (URDF, io/urdf_read.py; MJCF, io/mjcf_read.py) is turned into before it
becomes a model file (io/robot_model.py): its joints as read, and the bodies and joints at the
initial pose."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: The fixed frame's name in a model file.
GROUND = "GROUND"


@dataclass(frozen=True)
class TreeJoint:
    """A joint (of a URDF, or of an MJCF model: io/mjcf_read.py): `origin` the 4x4 pose of the
    joint frame (= the child link's frame at zero joint position) in the parent link's frame;
    `axis` a unit vector in the joint frame; `stiffness` (N m/rad) pulls towards `spring_angle`
    (rad, from the initial pose)."""

    name: str
    kind: str
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    damping: float
    friction: float
    mimic: str | None
    stiffness: float = 0.0
    spring_angle: float = 0.0


@dataclass(frozen=True)
class Body:
    """A rigid body at t = 0: mass (kg), centre of mass (m, global), the Euler parameters of its
    axes, and its inertia (kg m^2) about the centre of mass in those axes."""

    name: str
    mass: float
    position: np.ndarray
    orientation: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class Connection:
    """A joint between two bodies (or a body and GROUND), global at t = 0: `point` the joint
    frame's origin, `axis` the unit joint axis, `frame` the joint frame's rotation."""

    joint: TreeJoint
    parent: str
    child: str
    point: np.ndarray
    axis: np.ndarray
    frame: np.ndarray


@dataclass
class Assembly:
    """The bodies and joints of a robot, and notes on what the conversion did or left out."""

    bodies: list[Body] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
