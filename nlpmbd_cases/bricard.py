"""Bricard's overconstrained mechanism, IFToMM benchmark A04 (the MBS benchmark library of the
Laboratorio de Ingenieria Mecanica, A Coruna: A04_specification; Gonzalez, Dopico, Lugris,
Cuadrado, Multibody Syst. Dyn. 16:179, 2006).

Five rods of 1 m and 1 kg with a 0.1 m square section (inertia about the centre of mass:
m (a^2 + a^2) / 12 about the rod's axis, m (L^2 + a^2) / 12 about the two normals), closed into
a loop with the ground by six revolute joints, gravity 9.81 m/s^2 along -Y, released at rest:

    J1 (0, 0, 0) about Y: ground - rod 1, rod 1 along +X to
    J2 (1, 0, 0) about Z: rod 1 - rod 2, rod 2 along -Y to
    J3 (1, -1, 0) about X: rod 2 - rod 3, rod 3 along +Z to
    J4 (1, -1, 1) about Y: rod 3 - rod 4, rod 4 along -X to
    J5 (0, -1, 1) about Z: rod 4 - rod 5, rod 5 along +Y to
    J6 (0, 0, 1) about X: rod 5 - ground (the ground's "rod" from J6 to J1 along -Z),

each axis normal to both rods it joins (the specification's points and axes, as the
benchmark's OpenSim port by Tagliapietra et al. and simEngine3D's A04 driver build it).

30 equations on 30 coordinates: Gruebler counts no freedom, the axes' arrangement leaves one,
so the joints' equations are dependent everywhere (one redundant row). `closing=revolute` is
the benchmark as specified, all six revolute joints: the step finds the dependent row at the
start and makes the equality rows compliant (step/dependent.py; docs/reference_problems/
bricard.md); `closing=universal` (the default) closes the loop at J6 with a UniversalJoint (the
ground's X normal to rod 5's Z: rotations about X and Z), which drops one equation, the
dependent one: the motion is the same (rod 5 never turns about Z, to 4e-13 rad over 10 s), the
equations independent, the joints rigid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System

LENGTH, MASS, SECTION = 1.0, 1.0, 0.1
X, Y, Z = np.eye(3)
#: the joints' points and axes, J1 ... J6, and the rods' directions, rod k from J_k to J_k+1
POINTS = np.array([(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)], float)
AXES = (Y, Z, X, Y, Z, X)

PARAMETERS = (
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
    Parameter(
        "closing", "universal",
        "J6, the loop's last joint: universal (rows independent) or revolute",
        str, choices=("universal", "revolute"),
    ),
)  # fmt: skip


def _rod(k: int) -> RigidBody:
    """Rod k (1..5) from J_k to J_k+1: body x along it, y along J_k+1's axis."""
    from nlpmbd import RigidBody

    start, end = POINTS[k - 1], POINTS[k]
    x = end - start
    y = AXES[k]
    R = np.column_stack([x, y, np.cross(x, y)])
    axial = MASS * 2 * SECTION**2 / 12
    normal = MASS * (LENGTH**2 + SECTION**2) / 12
    return RigidBody(
        f"rod{k}", MASS, (axial, normal, normal), position=(start + end) / 2,
        orientation=Quaternion(matrix=R),
    )  # fmt: skip


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, System
    from nlpmbd_joints import RevoluteJoint, UniversalJoint

    system = System(gravity=(0.0, -params["g"], 0.0))
    rods: list[Any] = [GROUND] + [system.add_body(_rod(k)) for k in range(1, 6)] + [GROUND]
    for k in range(5):
        system.add_joint(
            RevoluteJoint(f"J{k + 1}", rods[k], rods[k + 1], point=POINTS[k], axis=AXES[k])
        )
    if params["closing"] == "universal":
        system.add_joint(UniversalJoint("J6", GROUND, rods[5], POINTS[5], X, Z))
    else:
        system.add_joint(RevoluteJoint("J6", rods[5], GROUND, point=POINTS[5], axis=AXES[5]))
    return system


CASE = Case(
    name="bricard",
    description="Bricard's overconstrained mechanism, IFToMM A04 (dependent joint equations)",
    parameters=PARAMETERS,
    builder=build,
    t_end=10.0,
    h_min=1e-3,
    h_max=1e-3,
)
