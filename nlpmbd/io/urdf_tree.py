"""A URDF tree (io/urdf_read.py) assembled into rigid bodies and joints at their initial pose.

- Poses: each joint's frame is its parent link's frame times its <origin> (xyz, then rpy as
  fixed-axis roll-pitch-yaw, URDF's convention); the child link's frame is the joint frame moved
  by the initial joint position (rotation about, or translation along, the axis; 0 unless
  annotated). Composed from the root, whose frame is the global frame.
- Bodies: a body's axes are its link's axes (so angular velocities read in the link's frame);
  its position the centre of mass in the global frame; its orientation the Euler parameters of
  the link's rotation (e0 >= 0); its inertia the link's, rotated from the inertial frame.
- Fixed joints: the child link is joined to its parent's body (masses, centres of mass and
  inertias lumped by the parallel-axis theorem), as Pinocchio and MuJoCo do; massless frames
  such as tool0 cost nothing then. The root link is fixed to the ground (URDF's meaning), and
  so is everything fixed to it; with a floating base the root link is a free body.
- floating joints: no joint (the child is a free body). planar joints and mimic joints are
  refused: nlpmbd has no two-body planar joint and no coupled joints.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from scipy.spatial.transform import Rotation

from ..errors import InputError
from .robot_parts import GROUND, Assembly, Body, Connection, TreeJoint
from .urdf_read import Robot

MOVING = ("revolute", "continuous", "prismatic")


def assemble(robot: Robot, positions: dict[str, float], floating: bool, where: str) -> Assembly:
    """Bodies and joints of `robot` with the initial joint `positions` (rad or m)."""
    frames, joint_frames, order = _poses(robot, positions, where)
    owner = {robot.root: robot.root if floating else GROUND}
    out = Assembly()
    for joint in order:
        if joint.kind == "fixed":
            owner[joint.child] = owner[joint.parent]
            out.notes.append(
                f"fixed joint {joint.name}: link {joint.child} is part of the body "
                f"{owner[joint.parent]}"
            )
        else:
            owner[joint.child] = joint.child
    members: dict[str, list[str]] = {}
    for link, body in owner.items():
        members.setdefault(body, []).append(link)
    dropped = sum(robot.links[link].mass for link in members.pop(GROUND, []))
    if not floating:
        out.notes.append(
            f"root link {robot.root} is fixed to the ground (URDF's meaning); the {dropped:g} kg "
            "fixed to it are not simulated"
        )
    for body, links in members.items():
        out.bodies.append(_body(robot, body, links, frames, where))
    if not out.bodies:
        raise InputError(f"{where}: nothing moves: every link is fixed to the ground")
    for joint in order:
        if joint.kind in MOVING:
            T = joint_frames[joint.name]
            point, frame = T[:3, 3] + 0.0, T[:3, :3]
            axis = frame @ joint.axis + 0.0
            parent = owner[joint.parent]
            out.connections.append(Connection(joint, parent, joint.child, point, axis, frame))
        elif joint.kind == "floating":
            out.notes.append(f"floating joint {joint.name}: link {joint.child} is a free body")
    return out


def _poses(
    robot: Robot, positions: dict[str, float], where: str
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[TreeJoint]]:
    """Global 4x4 frames of the links and joints, and the joints from the root outwards."""
    children: dict[str, list[TreeJoint]] = {}
    for joint in robot.joints:
        children.setdefault(joint.parent, []).append(joint)
    frames = {robot.root: np.eye(4)}
    joint_frames: dict[str, np.ndarray] = {}
    order: list[TreeJoint] = []
    queue = deque([robot.root])
    while queue:
        link = queue.popleft()
        for joint in children.get(link, []):
            _supported(joint, where)
            T = frames[link] @ joint.origin
            joint_frames[joint.name] = T
            frames[joint.child] = T @ _motion(joint, positions.get(joint.name, 0.0))
            order.append(joint)
            queue.append(joint.child)
    return frames, joint_frames, order


def _supported(joint: TreeJoint, where: str) -> None:
    at = f"{where}: joint {joint.name!r}"
    if joint.kind not in (*MOVING, "fixed", "floating"):
        raise InputError(
            f"{at}: type {joint.kind!r} is not supported (revolute, continuous, prismatic, "
            "fixed and floating are)"
        )
    if joint.mimic is not None:
        raise InputError(f"{at}: mimics joint {joint.mimic!r}; coupled joints are not supported")


def _motion(joint: TreeJoint, q: float) -> np.ndarray:
    """The 4x4 motion of the child frame by the joint position q (identity at q = 0)."""
    M = np.eye(4)
    if q == 0.0:
        return M
    if joint.kind == "prismatic":
        M[:3, 3] = q * joint.axis
    else:
        M[:3, :3] = Rotation.from_rotvec(q * joint.axis).as_matrix()
    return M


def _body(
    robot: Robot, name: str, links: list[str], frames: dict[str, np.ndarray], where: str
) -> Body:
    """The body of `links` (the first is its own link: its frame is the body's axes)."""
    massive = [robot.links[k] for k in links if robot.links[k].mass > 0]
    if not massive:
        raise InputError(
            f"{where}: link {name!r} has no mass (<inertial> missing or mass 0); a moving link "
            "needs mass and inertia (or join it to its parent with a fixed joint)"
        )
    base = frames[name]
    if len(massive) == 1 and massive[0].name == name:  # as written, bit for bit
        mass, com, inertia = massive[0].mass, massive[0].com, massive[0].inertia
    else:
        mass, com, inertia = _lumped(
            massive, [np.linalg.solve(base, frames[k.name]) for k in massive]
        )
    R = base[:3, :3]
    position = R @ com + base[:3, 3] + 0.0
    return Body(name, mass, position, _euler_parameters(R), inertia + 0.0)


def _lumped(links: list, relative: list[np.ndarray]) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia about it of rigidly joined links (in the first frame)."""
    mass = sum(link.mass for link in links)
    centres = [T[:3, :3] @ link.com + T[:3, 3] for link, T in zip(links, relative, strict=True)]
    com = sum(link.mass * c for link, c in zip(links, centres, strict=True)) / mass
    inertia = np.zeros((3, 3))
    for link, T, c in zip(links, relative, centres, strict=True):
        d = c - com
        R = T[:3, :3]
        inertia += R @ link.inertia @ R.T + link.mass * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, com, 0.5 * (inertia + inertia.T)


def _euler_parameters(R: np.ndarray) -> np.ndarray:
    """[e0, e1, e2, e3] of the rotation matrix R (body -> global), e0 >= 0."""
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    p = np.array([w, x, y, z])
    return (-p if w < 0 else p) + 0.0
