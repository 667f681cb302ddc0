"""A URDF file read into plain links and joints (yourdfpy, the optional extra `urdf`).

Why yourdfpy: it is maintained (releases through 2026), pure Python over lxml, reads the URDF
as written (no compilation step that fuses, rebalances or drops anything, unlike MuJoCo's URDF
import) and reads the kinematic and inertial data without the meshes a robot's visuals name
(which are not shipped with most URDF files). urdfpy pins NumPy < 1.24 and networkx 2.2 and has
had no release since 2020; urchin pulls in an OpenGL renderer.

Units are the URDF's (SI). The file is checked here: well-formed XML with a <robot> root, finite
numbers, a tree (one root link, every link at most one parent, no cycles); each error one
InputError line naming the file and the element.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from .robot_parts import TreeJoint

#: Largest URDF read (bytes); the largest public robot files are under 1 MB.
MAX_BYTES = 20_000_000
#: The line that says what to install when the extra is missing.
INSTALL = "pip install 'nlpmbd[urdf]'"


@dataclass(frozen=True)
class Link:
    """A link: mass (kg), centre of mass (m) and inertia about it (kg m^2), both in the link's
    own frame (the inertial frame's rotation already applied)."""

    name: str
    mass: float
    com: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class Robot:
    name: str
    links: dict[str, Link]
    joints: list[TreeJoint]
    root: str


def read_urdf(path: Path) -> Robot:
    """The robot of the URDF file at `path`; InputError naming the file for anything wrong."""
    where = str(path)
    try:
        import yourdfpy
        from lxml import etree
    except ImportError:
        raise InputError(f"{where}: reading URDF needs the urdf extra: {INSTALL}") from None
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as err:
        raise InputError(f"{where}: cannot read the URDF file ({err.strerror or err})") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{where}: a URDF file may have at most {MAX_BYTES} bytes")
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as err:
        raise InputError(f"{where}: XML syntax error: {err}") from None
    if root.getroottree().docinfo.internalDTD is not None:  # entities: no expansion bombs
        raise InputError(f"{where}: a URDF file may not declare a DTD (<!DOCTYPE ... [...]>)")
    if root.tag != "robot":
        raise InputError(f"{where}: not a URDF file (root element <{root.tag}>, not <robot>)")
    logging.getLogger("yourdfpy").setLevel(logging.CRITICAL)  # its recovery messages: ours say it
    try:
        model = yourdfpy.URDF.load(
            io.BytesIO(data),
            build_scene_graph=False,
            build_collision_scene_graph=False,
            load_meshes=False,
            load_collision_meshes=False,
        )
    except (yourdfpy.URDFError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise InputError(f"{where}: not a valid URDF ({type(err).__name__}: {err})") from None
    links = {link.name: _link(link, where) for link in model.robot.links}
    if len(links) != len(model.robot.links):
        raise InputError(f"{where}: two <link> elements have the same name")
    joints = [_joint(joint, where, links) for joint in model.robot.joints]
    return Robot(str(model.robot.name or path.stem), links, joints, _root(links, joints, where))


def _finite(value: Any, what: str, shape: tuple[int, ...]) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be numbers, got {value!r}") from None
    if a.shape != shape or not np.all(np.isfinite(a)):
        size = "a finite number" if shape == () else f"{shape} finite numbers"
        raise InputError(f"{what} must be {size}, got {a.tolist()}")
    return a


def _link(link: Any, where: str) -> Link:
    inertial = link.inertial
    at = f"{where}: link {link.name!r}"
    if inertial is None or not inertial.mass:
        return Link(link.name, 0.0, np.zeros(3), np.zeros((3, 3)))
    mass = float(_finite(inertial.mass, f"{at}: <mass> value", ()))
    if mass < 0:
        raise InputError(f"{at}: <mass> value must be >= 0, got {mass}")
    origin = np.eye(4) if inertial.origin is None else inertial.origin
    origin = _finite(origin, f"{at}: <inertial> <origin>", (4, 4))
    inertia = _finite(
        np.zeros((3, 3)) if inertial.inertia is None else inertial.inertia,
        f"{at}: <inertia>",
        (3, 3),
    )
    rotation = origin[:3, :3]
    # from the inertial frame to the link's axes, which are the body's axes in nlpmbd
    return Link(link.name, mass, origin[:3, 3].copy(), rotation @ inertia @ rotation.T)


def _joint(joint: Any, where: str, links: dict[str, Link]) -> TreeJoint:
    at = f"{where}: joint {joint.name!r}"
    for end in ("parent", "child"):
        name = getattr(joint, end)
        if name not in links:
            raise InputError(f"{at}: {end} link {name!r} is not a <link> of the file")
    origin = _finite(np.eye(4) if joint.origin is None else joint.origin, f"{at}: <origin>", (4, 4))
    axis = _finite(joint.axis, f"{at}: <axis> xyz", (3,))
    norm = float(np.linalg.norm(axis))
    if joint.type in ("revolute", "continuous", "prismatic") and norm == 0.0:
        raise InputError(f"{at}: <axis> xyz must not be zero")
    dynamics = joint.dynamics
    damping = float(dynamics.damping or 0.0) if dynamics is not None else 0.0
    friction = float(dynamics.friction or 0.0) if dynamics is not None else 0.0
    if not (np.isfinite(damping) and damping >= 0.0):
        raise InputError(f"{at}: <dynamics> damping must be finite and >= 0, got {damping}")
    mimic = joint.mimic.joint if joint.mimic is not None else None
    unit = axis / norm if norm > 0 else axis
    return TreeJoint(
        joint.name,
        str(joint.type),
        joint.parent,
        joint.child,
        origin,
        unit,
        damping,
        friction,
        mimic,
    )


def _root(links: dict[str, Link], joints: list[TreeJoint], where: str) -> str:
    """The one link that is no joint's child; InputError unless the links form one tree."""
    parents: dict[str, str] = {}
    for joint in joints:
        if joint.child in parents:
            raise InputError(
                f"{where}: link {joint.child!r} is the child of two joints "
                f"({parents[joint.child]!r} and {joint.name!r}): URDF describes a tree"
            )
        parents[joint.child] = joint.name
    roots = [name for name in links if name not in parents]
    if len(roots) != 1:
        found = ", ".join(map(repr, roots)) or "none (a cycle)"
        raise InputError(f"{where}: a URDF tree has one root link, found {found}")
    by_child = {j.child: j for j in joints}
    for name in links:  # every chain of parents ends at the root: no cycle
        seen = set()
        while name in by_child:
            if name in seen:
                raise InputError(f"{where}: the joints form a cycle through link {name!r}")
            seen.add(name)
            name = by_child[name].parent
    return roots[0]
