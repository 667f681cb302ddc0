"""The variables of an FMU made by `nlpmbd fmu`: outputs (body states and joint forces, by
name) and inputs (the constant forces and torques of the model, by component), and the
generalised force of changed inputs."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import cast

import casadi as ca
import numpy as np

from ..errors import InputError
from ..model.forces import Force, Torque
from ..model.pose import BodyState, Pose
from ..model.rotation import rotation_matrix
from ..model.system import System
from ..validation import short_repr

#: Body outputs: (array, offset in the body's block of q (7) or v (6)); e0..e3 the orientation.
BODY_OUTPUTS = {
    **{c: ("q", i) for i, c in enumerate(("x", "y", "z", "e0", "e1", "e2", "e3"))},
    **{c: ("v", i) for i, c in enumerate(("vx", "vy", "vz", "wx", "wy", "wz"))},
}
#: What a body's name alone selects: its position and velocity.
BODY_DEFAULT = ("x", "y", "z", "vx", "vy", "vz")
#: Joint outputs: the total constraint force on the joint's moving body (result's joint_force).
JOINT_OUTPUTS = {"force_x": 0, "force_y": 1, "force_z": 2}
#: Input names: LOAD.value_x|y|z, the load's value in its own frame ("value" keeps them apart
#: from the outputs of a body or joint of the same name).
INPUT_COMPONENTS = ("value_x", "value_y", "value_z")

Signal = tuple[str, int, int]  # (array: q, v or joint_force, row, component)


def output_catalog(system: System) -> dict[str, Signal]:
    """Every output of the model by name: BODY.x ... BODY.wz, JOINT.force_x|y|z."""
    out: dict[str, Signal] = {}
    for k, body in enumerate(system.bodies):
        for c, (array, i) in BODY_OUTPUTS.items():
            out[f"{body.name}.{c}"] = (array, (7 if array == "q" else 6) * k + i, 0)
    for j, joint in enumerate(system.joints):
        for c, i in JOINT_OUTPUTS.items():
            out[f"{joint.name}.{c}"] = ("joint_force", j, i)
    return out


def choose_outputs(system: System, requested: Sequence[str]) -> list[str]:
    """The outputs named (a body's or joint's name alone: its position and velocity, or its
    force), by default every body's position and velocity and every joint's force."""
    catalog = output_catalog(system)
    bodies = {b.name: [f"{b.name}.{c}" for c in BODY_DEFAULT] for b in system.bodies}
    joints = {j.name: [f"{j.name}.{c}" for c in JOINT_OUTPUTS] for j in system.joints}
    groups = {**joints, **bodies}
    if not requested:
        return [n for names in (*bodies.values(), *joints.values()) for n in names]
    chosen: list[str] = []
    for name in requested:
        names = groups.get(name, [name] if name in catalog else None)
        if names is None:
            raise InputError(
                f"fmu: --output {short_repr(name)} is not an output of this model; outputs are "
                f"BODY.x|y|z|e0..e3|vx|vy|vz|wx|wy|wz of bodies {short_repr(list(bodies), 120)} "
                f"and JOINT.force_x|y|z of joints {short_repr(list(joints), 120)}"
            )
        chosen += [n for n in names if n not in chosen]
    return chosen


def input_loads(system: System) -> list[Force | Torque]:
    """The loads that become inputs: forces and torques of constant value and a name of their
    own (a function of time or state is the model's, fixed when it is built)."""
    loads = [
        load
        for load in system.loads
        if isinstance(load, (Force, Torque)) and not callable(load.value)
    ]
    names = [load.name for load in loads]
    return [load for load in loads if names.count(load.name) == 1]


def input_names(loads: Sequence[Force | Torque]) -> list[str]:
    return [f"{load.name}.{c}" for load in loads for c in INPUT_COMPONENTS]


def input_start(loads: Sequence[Force | Torque]) -> np.ndarray:
    """The inputs' start values: the loads' values in the model (3 per load)."""
    values = [np.asarray(cast(np.ndarray, load.value), dtype=float) for load in loads]
    return np.concatenate(values) if values else np.zeros(0)


def input_force(system: System, loads: Sequence[Force | Torque]) -> ca.Function:
    """(q, u) -> the generalised force (nv) of the loads with values u (3 per load, in each
    load's frame), as the model adds a load's (model/symbolic.py): linear in u, so built from
    the loads with unit values."""
    coords = system.coordinates
    q, u = ca.SX.sym("q", coords.nq), ca.SX.sym("u", 3 * len(loads))
    total = ca.SX.zeros(coords.nv, 1)
    for i, load in enumerate(loads):
        k = system.body_index(load.body)
        pose = Pose(q[7 * k : 7 * k + 3], rotation_matrix(q[7 * k + 3 : 7 * k + 7]))
        state = BodyState(pose, ca.SX.zeros(3, 1), ca.SX.zeros(3, 1))
        for c, unit in enumerate(np.eye(3)):
            F, tau = dataclasses.replace(load, value=unit).generalized(ca.SX(0), state)
            column = ca.SX.zeros(coords.nv, 1)
            column[6 * k : 6 * k + 6] = ca.vertcat(F, tau)
            total = total + column * u[3 * i + c]
    return ca.Function("input_force", [q, u], [total])
