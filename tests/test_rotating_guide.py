"""A prismatic clearance joint on a spinning arm, solved by the NLP alone (issue 14, finding 2).

The guide turns about Z at a constant rate (a revolute joint to the ground plus a drive); the
revolute's linearised rows drive the guide's out-of-plane Euler parameters towards zero
geometrically, into the subnormal range after ~75 steps at h = 2e-4 (~90 at h = 1e-3). Without
the flush of such numbers (step/nlp.py, FLUSH_BELOW) the NLP's Jacobian held subnormal entries,
MUMPS's scaling broke, and IPOPT ended in Restoration_Failed / Maximum_Iterations at
t = 0.015 s (h = 2e-4), with or without friction at t = 0.091 s (h = 1e-3).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from nlpmbd import GROUND, RigidBody, SimulationOptions, System, simulate
from nlpmbd.model.contact import HardContact
from nlpmbd_joints import DrivingAngle, PrismaticClearance, RevoluteJoint

OMEGA, R0, C, HALF = 2.0, 0.1, 1e-4, 0.01  # rad/s, m, m, m (half the slider's section edge)


def spinning_arm(mu: float = 0.0) -> System:
    """The guide (an arm along X) turns about Z at OMEGA; the slider, centred in its square
    section at R0 from the axis, starts moving with the arm (v = OMEGA x r, w = OMEGA)."""
    system = System(gravity=(0, 0, 0))
    guide = system.add_body(
        RigidBody("guide", mass=2.0, inertia=(1e-3, 0.02, 0.02), angular_velocity=(0, 0, OMEGA))
    )
    slider = system.add_body(
        RigidBody(
            "slider",
            mass=0.5,
            inertia=(1e-4, 1e-4, 1e-4),
            position=(R0, 0, 0),
            velocity=(0, OMEGA * R0, 0),
            angular_velocity=(0, 0, OMEGA),
        )
    )
    square = [(-HALF, -HALF), (HALF, -HALF), (HALF, HALF), (-HALF, HALF)]
    system.add_joint(
        PrismaticClearance(
            "guideway",
            guide,
            slider,
            center=(R0, 0, 0),
            axis=(1, 0, 0),
            vertices=square,
            length=0.04,
            clearance=C,
            section_x=(0, 1, 0),  # section axes e1 = Y, e2 = Z at t = 0
            contact=HardContact(mu=mu) if mu else None,
        )
    )
    system.add_joint(RevoluteJoint("pin", GROUND, guide, point=(0, 0, 0), axis=(0, 0, 1)))
    system.add_joint(DrivingAngle("drive", GROUND, guide, motion=lambda t: OMEGA * t))
    return system


def free_flight_offset(t: np.ndarray) -> np.ndarray:
    """Closed form before contact: the slider keeps its initial velocity (no force on it), the
    guide has turned by OMEGA t; the slider centre's offset across the guide (along the
    guide's e1 axis, which was Y at t = 0) is -sin(OMEGA t) R0 + cos(OMEGA t) OMEGA R0 t."""
    theta = OMEGA * t
    return -np.sin(theta) * R0 + np.cos(theta) * OMEGA * R0 * t


def check_run(res, h: float, t_end: float) -> None:
    assert res.completed and res.t[-1] == pytest.approx(t_end)
    assert np.all(res.status < 3), "no failed step"
    assert res.eom_residual.max() <= 1e-8
    assert res.gap.max() <= 0.01 * C, "true penetration within 1% of c"
    assert res.gap.min() >= -2.01 * C, "the slider stays in the guide (2c of play)"
    np.testing.assert_allclose(res.h[1:], h, rtol=1e-9)


def check_free_flight(res, until: float) -> int:
    """Before first contact the gaps are -C -/+ the closed-form offset (the vertices on the e1
    faces) or -C (the e2 faces); returns the number of steps checked."""
    labels = [lab.split(".")[1] for lab in res.meta["contact_labels"]]
    edge = np.array([int(lab.rsplit("_e", 1)[1]) for lab in labels])
    # square (-a,-a), (a,-a), (a,a), (-a,a): edge 1 faces +e1, edge 3 faces -e1, 0 and 2 +-e2
    sign = np.select([edge == 1, edge == 3], [1.0, -1.0], 0.0)
    before = res.t <= until + 1e-9
    expected = -C + np.outer(free_flight_offset(res.t[before]), sign)
    np.testing.assert_allclose(res.gap[before], expected, atol=1e-3 * C)
    # and the slider's velocity is the initial one (free flight, no spurious force)
    start = np.broadcast_to([0.0, OMEGA * R0, 0.0], (int(before.sum()), 3))
    np.testing.assert_allclose(res.v[before, 6:9], start, atol=1e-9)
    return int(before.sum())


@pytest.mark.slow
def test_spinning_prismatic_guide_without_predictor():
    """At h = 2e-4 the 76th step (t = 0.015 s) failed; 0.03 s is all free flight."""
    h, t_end = 2e-4, 0.03
    opts = SimulationOptions(t_end=t_end, h_min=h, h_max=h, predictor=False, solver="nlp")
    res = simulate(spinning_arm(), opts)
    check_run(res, h, t_end)
    assert res.n_steps == 150 and res.iterations[1:].mean() < 2.0
    # the offset grows to ~7e-6 m = 0.07 c by 0.03 s: a real test of the trajectory
    assert check_free_flight(res, t_end) == 151
    assert res.gap.max() > -0.95 * C


@pytest.mark.slow
def test_spinning_prismatic_guide_with_friction():
    """Friction (the fixed point around the NLP): failed at t = 0.091 s with h = 1e-3. The
    slider drifts to the trailing wall (first contact near t = 0.075 s) and is then carried."""
    h, t_end = 1e-3, 0.12
    opts = SimulationOptions(t_end=t_end, h_min=h, h_max=h, predictor=False, solver="nlp")
    res = simulate(spinning_arm(mu=0.3), opts)
    check_run(res, h, t_end)
    assert check_free_flight(res, 0.06) == 61
    touching = res.gap.max(axis=1) > -1e-9
    assert touching[-10:].all(), "the guide's wall carries the slider at the end"
    # free flight until the closed-form offset reaches c (t_c = 0.07216 s, ~ (3 c / R0)^(1/3)
    # / OMEGA); the contact shows at the end of the step that crosses it or the next one
    # (measured 0.074 s = t_c + 1.8 h)
    t_c = brentq(lambda t: abs(free_flight_offset(t)) - C, 0.01, 0.1)
    assert t_c == pytest.approx(0.07216, abs=1e-5)
    assert t_c < res.t[np.argmax(touching)] <= t_c + 2 * h
