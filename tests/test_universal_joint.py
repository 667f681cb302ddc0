"""The universal joint (nlpmbd_joints/universal.py) against an independent minimal-coordinate
reference (references/ref_universal_pendulum.py): a rigid body hanging from the ground on a
cross joint, released from a tilted pose, swings in both Cardan angles; nlpmbd's angles
converge to the reference's at first order in h, its equalities' drift at second order."""

from __future__ import annotations

import numpy as np
import pytest
from pyquaternion import Quaternion

from nlpmbd import GROUND, RigidBody, SimulationOptions, System, simulate
from nlpmbd.errors import InputError
from nlpmbd_joints.universal import UniversalJoint
from references.ref_universal_pendulum import angles, rotation, simulate_reference

M, L, INERTIA, G, Q0 = 1.5, 0.3, (0.02, 0.03, 0.01), 9.81, (0.6, -0.4)


def _system() -> System:
    R = rotation(*Q0)
    system = System(gravity=(0.0, 0.0, -G))
    arm = system.add_body(
        RigidBody(
            "arm", M, INERTIA, position=R @ np.array([0.0, 0.0, -L]),
            orientation=Quaternion(matrix=R),
        )
    )  # fmt: skip
    system.add_joint(UniversalJoint("cross", GROUND, arm, (0, 0, 0), (1, 0, 0), R[:, 1]))
    return system


def _error(h: float, t_end: float = 0.5) -> tuple[float, float]:
    # first order (checked below) is the Euler scheme's, no longer the default: named
    options = SimulationOptions(t_end=t_end, h_min=h, h_max=h, integrator="euler")
    r = simulate(_system(), options)
    got = np.array([angles(Quaternion(p).rotation_matrix) for p in r.q[:, 3:7]])
    ref = simulate_reference(M, L, INERTIA, G, Q0, r.t)
    return float(np.abs(got - ref).max()), float(np.abs(r.eq_residual).max())


def test_universal_pendulum_converges_to_the_minimal_coordinate_reference():
    coarse, drift_c = _error(2e-3)
    fine, drift_f = _error(1e-3)
    assert fine < 5e-3  # rad: both angles swing by about a radian
    assert coarse / fine == pytest.approx(2.0, abs=0.05)  # first order in h (measured 1.9975)
    # the joint's equalities are met to second order in h (linearised in each step): the drift
    # falls 4x when h halves (measured 3.9999)
    assert drift_f < 1e-5 and drift_c / drift_f == pytest.approx(4.0, abs=0.2)


def test_child_axis_must_be_perpendicular():
    arm = RigidBody("arm", 1.0, (1.0, 1.0, 1.0))
    with pytest.raises(InputError, match="cross.child_axis must be perpendicular"):
        UniversalJoint("cross", GROUND, arm, (0, 0, 0), (1, 0, 0), (1, 1, 0))
