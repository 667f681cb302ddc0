"""An MJCF (MuJoCo XML) model read by MuJoCo itself (the optional extra `mjcf`) and assembled
into rigid bodies and joints at its initial pose, as io/urdf_tree.py does for a URDF.

Why MuJoCo: MJCF's meaning is what MuJoCo's compiler makes of it (default classes, frames in
any of its orientation forms, inertias computed from geoms); a parser of our own would be a
second, diverging compiler. The model is compiled with static bodies fused into their parents
(`fusestatic`), its poses computed by `mj_kinematics` at qpos0 (with the annotated joint
positions), and read off: bodies at their centre of mass with their body frame's axes and the
inertia rotated from the principal frame; hinge -> `revolute`, slide -> `prismatic`, ball ->
`spherical`, free -> no joint, a body with no joint -> `fixed` (or the ground, if its parent
is); joint damping and stiffness -> a rotational spring-damper on hinges. Refused: a body with
two or more joints (nlpmbd joins two bodies by one joint), a moving body without mass. Not
modelled: contacts between geoms, actuators, tendons, equality constraints, joint limits,
armature and friction loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from .robot_parts import GROUND, Assembly, Body, Connection, TreeJoint

INSTALL = "pip install 'nlpmbd[mjcf]'"
MAX_BYTES = 20_000_000
#: mjtJoint -> nlpmbd's kind of joint.
KINDS = {0: "free", 1: "spherical", 2: "prismatic", 3: "revolute"}


@dataclass(frozen=True)
class MjcfRobot:
    name: str
    model: Any
    joints: dict[str, str]


def read_mjcf(path: Path) -> MjcfRobot:
    """The compiled model of the MJCF file at `path` and its joints ({name: kind})."""
    where = str(path)
    try:
        import mujoco
    except ImportError:
        raise InputError(f"{where}: reading MJCF needs the mjcf extra: {INSTALL}") from None
    try:
        size = path.stat().st_size
    except OSError as err:
        raise InputError(f"{where}: cannot read the MJCF file ({err.strerror or err})") from None
    if size > MAX_BYTES or not path.is_file():
        raise InputError(f"{where}: an MJCF file must be a file of at most {MAX_BYTES} bytes")
    try:
        spec = mujoco.MjSpec.from_file(str(path))
        spec.compiler.fusestatic = True
        model = spec.compile()
    except Exception as err:  # MuJoCo's compiler errors carry no common type
        text = " ".join(str(err).split())[:300]
        raise InputError(f"{where}: MuJoCo cannot compile it: {text}") from None
    joints = {_joint_name(model, j): KINDS[int(model.jnt_type[j])] for j in range(model.njnt)}
    name = str(spec.modelname or path.stem)
    return MjcfRobot(name, model, joints)


def _joint_name(model: Any, j: int) -> str:
    return str(model.joint(j).name) or f"joint{j}"


def _body_name(model: Any, b: int) -> str:
    return str(model.body(b).name) or f"body{b}"


def assemble_mjcf(robot: MjcfRobot, positions: dict[str, float], where: str) -> Assembly:
    """Bodies and joints of the compiled model at qpos0 moved by the joint `positions`."""
    import mujoco

    model = robot.model
    data = mujoco.MjData(model)
    names = {_joint_name(model, j): j for j in range(model.njnt)}
    for name, q in positions.items():
        data.qpos[model.jnt_qposadr[names[name]]] += q
    mujoco.mj_kinematics(model, data)
    out = Assembly(
        notes=["contacts, actuators, tendons, equalities and joint limits are not modelled"]
    )
    grounded = {0}
    for b in range(1, model.nbody):  # MuJoCo orders parents before children
        parent, count = int(model.body_parentid[b]), int(model.body_jntnum[b])
        name = _body_name(model, b)
        if count == 0 and parent in grounded:
            grounded.add(b)
            out.notes.append(f"body {name} is fixed to the ground ({model.body_mass[b]:g} kg)")
            continue
        if count > 1:
            raise InputError(
                f"{where}: body {name!r} has {count} joints; nlpmbd joins two bodies by one joint"
            )
        if model.body_mass[b] <= 0:
            raise InputError(f"{where}: body {name!r} moves but has no mass")
        out.bodies.append(_body(model, data, b, name))
        link = GROUND if parent in grounded else _body_name(model, parent)
        connection = _connection(model, data, b, name, link)
        if connection is None:
            out.notes.append(f"body {name} is free (a free joint)")
        else:
            out.connections.append(connection)
    if not out.bodies:
        raise InputError(f"{where}: nothing moves: every body is fixed to the ground")
    slides = [c.joint.name for c in out.connections if c.joint.kind == "prismatic"]
    if any(c.joint.damping > 0 for c in out.connections if c.joint.kind == "prismatic"):
        out.notes.append(f"damping of slide joints ({', '.join(slides)}) is not modelled")
    return out


def _body(model: Any, data: Any, b: int, name: str) -> Body:
    import mujoco

    flat = np.zeros(9)
    mujoco.mju_quat2Mat(flat, model.body_iquat[b])
    Ri = flat.reshape(3, 3)  # the principal axes in the body frame
    inertia = Ri @ np.diag(model.body_inertia[b]) @ Ri.T
    p = np.array(data.xquat[b], dtype=float)
    p = (-p if p[0] < 0 else p) / np.linalg.norm(p)
    return Body(name, float(model.body_mass[b]), data.xipos[b].copy(), p + 0.0, inertia)


def _connection(model: Any, data: Any, b: int, name: str, parent: str) -> Connection | None:
    frame = data.xmat[b].reshape(3, 3).copy()
    if model.body_jntnum[b] == 0:  # welded to a moving parent
        joint = TreeJoint(
            f"{name}_weld", "fixed", parent, name, np.eye(4), np.zeros(3), 0.0, 0.0, None
        )
        return Connection(joint, parent, name, data.xpos[b].copy(), np.zeros(3), frame)
    j = int(model.body_jntadr[b])
    kind = KINDS[int(model.jnt_type[j])]
    if kind == "free":
        return None
    dof, qadr = int(model.jnt_dofadr[j]), int(model.jnt_qposadr[j])
    spring = float(model.qpos_spring[qadr] - data.qpos[qadr]) if kind == "revolute" else 0.0
    joint = TreeJoint(
        _joint_name(model, j),
        kind,
        parent,
        name,
        np.eye(4),
        model.jnt_axis[j].copy(),
        float(model.dof_damping[dof]),
        0.0,
        None,
        float(model.jnt_stiffness[j]),
        spring,
    )
    return Connection(joint, parent, name, data.xanchor[j].copy(), data.xaxis[j].copy(), frame)
