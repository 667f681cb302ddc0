"""Newton's impact law through simultaneous and induced impacts (issue 14, finding 1).

With e = 1 the velocity-level impact law conserves kinetic energy whatever the number of contacts
that act in a step (step/impacts.py). Before the fix, a contact driven into its wall by another
contact's impulse within the same step was stopped by its gap row, inelastically: a tilted cube
with e = 1 lost 21% of its energy, a pin whose two ends hit the hole wall lost 9-16% of its
kinetic energy per 10 ms, at every step size.
"""

from __future__ import annotations

import numpy as np
import pytest
from pyquaternion import Quaternion

from nlpmbd import GROUND, RigidBody, SimulationOptions, System, simulate
from nlpmbd.model.contact import HardContact
from nlpmbd_joints import CylindricalClearance, PlaneContact


def tilted_cube(e: float) -> System:
    """1 kg, 0.1 m cube, centre 0.2004 m above the floor, turned 0.9 deg about Z: one pair of
    bottom corners lands first and its impulse drives the other pair into the floor."""
    a, m = 0.1, 1.0
    J = m * a * a / 6
    s = System(gravity=(0, -9.81, 0))
    cube = s.add_body(
        RigidBody(
            "cube",
            m,
            (J, J, J),
            position=(0, 0.2004, 0),
            orientation=Quaternion(axis=[0, 0, 1], degrees=0.9),
        )
    )
    corners = [(sx * a / 2, -a / 2, sz * a / 2) for sx in (-1, 1) for sz in (-1, 1)]
    s.add_joint(PlaneContact("floor", cube, corners, contact=HardContact(restitution=e)))
    return s


def tumbling_pin(e: float) -> System:
    """A free pin (no gravity) in a hole with c = 0.1 mm, moving across it and tilting, so that
    its two ends hit the wall together, one driven by the other's impulse."""
    c = 1e-4
    s = System(gravity=(0, 0, 0))
    pin = s.add_body(
        RigidBody(
            "pin",
            1.0,
            (2e-4, 2e-4, 5e-5),
            velocity=(0.5, 0.2, 0.0),
            angular_velocity=(0.0, 20.0, 0.0),
        )
    )
    law = HardContact(restitution=e)
    s.add_joint(
        CylindricalClearance(
            "hole", GROUND, pin, (0, 0, 0), (0, 0, 1), 0.05, 0.01 + c, 0.01, contact=law
        )
    )
    return s


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["nlp", "qp"])
@pytest.mark.parametrize("h", [2e-4, 5e-5])
def test_elastic_pin_keeps_its_kinetic_energy(h, solver):
    options = SimulationOptions(t_end=0.01, h_min=h, h_max=h, solver=solver)
    r = simulate(tumbling_pin(1.0), options)
    kinetic = r.energy[:, 0]
    impacts = np.sum(np.any(r.lam[1:] > 1e-3, axis=1))
    assert impacts >= 10  # the pin rattles from wall to wall
    assert np.all(r.status < 3)
    # no gravity, no friction, e = 1: every impact conserves the kinetic energy exactly
    assert abs(kinetic[-1] / kinetic[0] - 1) < 1e-9
    assert np.max(np.abs(np.diff(kinetic))) < 1e-9 * kinetic[0]


@pytest.mark.parametrize("solver", ["nlp", "qp"])
def test_partly_elastic_pin_never_gains_energy(solver):
    options = SimulationOptions(t_end=0.01, h_min=2e-4, h_max=2e-4, solver=solver)
    r = simulate(tumbling_pin(0.5), options)
    kinetic = r.energy[:, 0]
    assert np.max(np.diff(kinetic)) <= 1e-12 * kinetic[0]
    assert kinetic[-1] < 0.5 * kinetic[0]  # e = 0.5 dissipates


def _energy_error(h: float, solver: str) -> float:
    options = SimulationOptions(t_end=0.25, h_min=h, h_max=h, solver=solver)
    r = simulate(tilted_cube(1.0), options)
    assert np.any(r.lam[:, 2:] > 0) and np.any(r.lam[:, :2] > 0)  # both pairs of corners hit
    total = r.energy[:, 2]
    return float(total[-1] / total[0] - 1)


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["nlp", "qp"])
def test_elastic_cube_keeps_its_energy_through_an_induced_impact(solver):
    """The impacts conserve kinetic energy; what remains is the scheme's first-order error in
    the work of gravity over an impact step (m g h |dv| / 2), which falls with h."""
    coarse, fine = _energy_error(1e-3, solver), _energy_error(2.5e-4, solver)
    assert abs(coarse) < 0.01  # was -0.21
    assert abs(fine) < 0.5 * abs(coarse)


def test_both_paths_agree_on_the_rattling_pin():
    """The QP step (fast path, compiled chunks) and the NLP step take the same impacts."""
    runs = {
        solver: simulate(
            tumbling_pin(0.8), SimulationOptions(t_end=0.01, h_min=2e-4, h_max=2e-4, solver=solver)
        )
        for solver in ("nlp", "qp")
    }
    assert runs["qp"].meta["chunk_steps"] == len(runs["qp"].h)
    assert np.abs(runs["qp"].q - runs["nlp"].q).max() < 1e-9
    assert np.abs(runs["qp"].v - runs["nlp"].v).max() < 1e-6
