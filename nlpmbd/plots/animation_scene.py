"""What an animation draws, as plain numbers in body frames (no viewer here): the bodies'
mass and inertia and the joints' geometry, read from a System rebuilt from the result's case
and parameters (apps/cli_animate.py). A result's meta.json names the bodies and joints but
holds neither inertias nor the geometry of most joints, hence the rebuild; without a System
(`fallback_scene`) every body is drawn as a cube and no joint is drawn.

Joints are read through their geometry attributes (duck typing, nlpmbd never imports
nlpmbd_joints): `pin_radius`/`hole_radius`/`center`/`axis` (pin in a hole, radial clearance),
`ball_radius`/`socket_radius` (ball in a socket), `half_width`/`half_length` (planar slider in a
slot), `vertices` (prismatic slider in a guide), `points`/`normal` (points on a plane), `frame`
(ideal joints). Driving constraints (`motion`) are not drawn. Joints of flexible bodies' nodes
(node contacts: the guide's faces; node pins: a point of a rigid body) are read by
animation_flexible.node_joints into `Scene.nodes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model.bodies import GROUND, RigidBody
from .animation_flexible import NodeJoints, node_joints

#: Body colours (matplotlib's tab10).
PALETTE = (0x1F77B4, 0xFF7F0E, 0x2CA02C, 0xD62728, 0x9467BD, 0x8C564B, 0xE377C2, 0x17BECF)
#: Link kinds with a clearance that the animation magnifies.
LOOSE = ("pin", "ball", "slot", "prism")


@dataclass
class BodyInfo:
    name: str
    color: int
    mass: float = 0.0
    inertia: np.ndarray | None = None  # 3x3, body axes, about the centre of mass


@dataclass
class Link:
    """One joint between two bodies (index -1 is the ground). `s_parent`, `s_child`: the joint
    point in each body's frame (m); `axis`: pin or guide axis in the parent frame; `lateral`:
    the slot's in-plane normal w (parent frame); `size`: kind-specific numbers (m)."""

    name: str
    kind: str  # "pin", "ball", "slot", "prism" (loose) or "revolute", "sphere", "rail" (ideal)
    parent: int
    child: int
    s_parent: np.ndarray
    s_child: np.ndarray
    axis: np.ndarray | None = None
    lateral: np.ndarray | None = None
    clearance: float = 0.0
    size: dict[str, Any] = field(default_factory=dict)

    @property
    def loose(self) -> bool:
        return self.kind in LOOSE


@dataclass
class Plane:
    """A ground plane that body points may not pass (PlaneContact)."""

    name: str
    body: int
    point: np.ndarray
    normal: np.ndarray
    points: np.ndarray  # (k, 3) contact points in the body frame


@dataclass
class Scene:
    bodies: list[BodyInfo]
    links: list[Link] = field(default_factory=list)
    planes: list[Plane] = field(default_factory=list)
    from_system: bool = False
    nodes: NodeJoints = field(default_factory=NodeJoints)  # flexible bodies' joints

    def joint_of(self, label: str) -> tuple[str, int]:
        """("link" | "plane" | "", index) of the joint of a contact label "<joint>.<gap>"."""
        name = label.split(".", 1)[0]
        for k, link in enumerate(self.links):
            if link.name == name:
                return "link", k
        for k, plane in enumerate(self.planes):
            if plane.name == name:
                return "plane", k
        return "", -1


def fallback_scene(body_names: list[str]) -> Scene:
    """Bodies only, of unknown shape (drawn as cubes)."""
    return Scene([BodyInfo(n, PALETTE[k % len(PALETTE)]) for k, n in enumerate(body_names)])


def scene_from_system(system: Any) -> Scene:
    """The bodies and joints of a System, in the result's body order."""
    bodies = [
        BodyInfo(b.name, PALETTE[k % len(PALETTE)], float(b.mass), np.asarray(b.inertia, float))
        for k, b in enumerate(system.bodies)
    ]
    index = {b.name: k for k, b in enumerate(system.bodies)}
    scene = Scene(bodies, from_system=True, nodes=node_joints(system, index))
    for joint in system.joints:
        if hasattr(joint, "motion"):
            continue  # a driving constraint: nothing to see
        if hasattr(joint, "points") and hasattr(joint, "normal"):
            scene.planes.append(_plane(joint, index))
            continue
        link = None if hasattr(joint.child, "index") else _link(joint, index)  # not a node's
        if link is not None:
            scene.links.append(link)
    return scene


def _local_point(body: Any, point: np.ndarray) -> np.ndarray:
    return body.to_body(point) if isinstance(body, RigidBody) else np.asarray(point, float)


def _local_vector(body: Any, vector: np.ndarray) -> np.ndarray:
    return body.vector_to_body(vector) if isinstance(body, RigidBody) else np.asarray(vector, float)


def _global_vector(body: Any, vector: np.ndarray) -> np.ndarray:
    """A body-frame vector in global axes at t = 0."""
    return body.rotation @ vector if isinstance(body, RigidBody) else np.asarray(vector, float)


def _plane(joint: Any, index: dict[str, int]) -> Plane:
    return Plane(
        joint.name,
        index[joint.child.name],
        np.asarray(joint.plane_point, float),
        np.asarray(joint.normal, float),
        np.asarray(joint.points, float).reshape(-1, 3),
    )


def _link(joint: Any, index: dict[str, int]) -> Link | None:
    """The Link of a joint, or None when its geometry is not one the animation knows."""
    parent, child = joint.parent, joint.child
    ids = (index.get(parent.name, -1), index.get(child.name, -1))
    if parent is GROUND and child is GROUND:
        return None
    if hasattr(joint, "pin_radius") and hasattr(joint, "center"):
        c = np.asarray(joint.center, float)
        u = np.asarray(joint.axis, float)
        size = {
            "radius": float(joint.pin_radius),
            "length": float(joint.length),
            "axis_child": _local_vector(child, u),
        }
        axis = _local_vector(parent, u)
        return Link(
            joint.name,
            "pin",
            *ids,
            _local_point(parent, c),
            _local_point(child, c),
            axis,
            None,
            float(joint.clearance),
            size,
        )
    if hasattr(joint, "ball_radius"):
        size = {"radius": float(joint.ball_radius)}
        return Link(
            joint.name,
            "ball",
            *ids,
            np.asarray(joint.s_socket, float),
            np.asarray(joint.s_ball, float),
            None,
            None,
            float(joint.clearance),
            size,
        )
    if hasattr(joint, "half_width") and hasattr(joint, "plane"):
        return _slot(joint, ids)
    if hasattr(joint, "vertices") and hasattr(joint, "center"):
        return _prism(joint, ids)
    frame = getattr(joint, "frame", None)
    if frame is None:
        return None
    kind = _ideal_kind(type(joint).__name__)
    axis = np.asarray(frame.u_parent, float)
    return Link(
        joint.name,
        kind,
        *ids,
        np.asarray(frame.s_parent, float),
        np.asarray(frame.s_child, float),
        axis,
    )


def _ideal_kind(class_name: str) -> str:
    """How an ideal joint is drawn: a rail (prismatic), a pin (revolute, cylindrical) or a ball
    (spherical, universal, fixed and any other)."""
    if "Prismatic" in class_name:
        return "rail"
    if "Revolute" in class_name or "Cylindrical" in class_name:
        return "revolute"
    return "sphere"


def _slot(joint: Any, ids: tuple[int, int]) -> Link:
    """A planar slider of length 2a, width 2b in a slot: w is the in-plane normal, n the plane's
    normal, the axis u = w x n (in the guide's frame; "child" entries in the slider's)."""
    w, n = np.asarray(joint.w, float), np.asarray(joint.plane, float)
    guide, slider = joint.parent, joint.child
    center = np.asarray(joint.center, float)
    size = {
        "half_length": float(joint.half_length),
        "half_width": float(joint.half_width),
        "normal": n,
        **_child_axes(guide, slider, {"axis": np.cross(w, n), "lateral": w, "normal": n}),
    }
    return Link(
        joint.name,
        "slot",
        *ids,
        np.asarray(joint.origin, float),
        _local_point(slider, center),
        np.cross(w, n),
        w,
        float(joint.clearance),
        size,
    )


def _child_axes(parent: Any, child: Any, vectors: dict[str, np.ndarray]) -> dict[str, Any]:
    """Parent-frame vectors in the child's frame (at t = 0), keys suffixed "_child"."""
    return {
        f"{key}_child": _local_vector(child, _global_vector(parent, v))
        for key, v in vectors.items()
    }


def _prism(joint: Any, ids: tuple[int, int]) -> Link:
    """A slider of polygonal section in a guide: the section's corners relative to the centre,
    in the guide's and the slider's frames."""
    center, axis = np.asarray(joint.center, float), np.asarray(joint.axis, float)
    guide, slider = joint.parent, joint.child
    front = np.asarray(joint.s_vertices["front"], float)  # slider frame, at center - L/2 axis
    if isinstance(slider, RigidBody):
        front = slider.position + front @ slider.rotation.T
    section = front + 0.5 * joint.length * axis - center  # global at t = 0
    size = {
        "length": float(joint.length),
        "section_parent": np.array([_local_vector(guide, v) for v in section]),
        "section_child": np.array([_local_vector(slider, v) for v in section]),
        "axis_child": _local_vector(slider, axis),
    }
    return Link(
        joint.name,
        "prism",
        *ids,
        _local_point(guide, center),
        _local_point(slider, center),
        _local_vector(guide, axis),
        None,
        float(joint.clearance),
        size,
    )
