"""Friction inside ideal joints (step/rows/joint_friction.py) against closed forms and
independent references. A constant breakaway torque or force (`frictionloss`,
references/ref_joint_friction.py): a block on a prismatic guide sticks below the breakaway
force, slides with (F - g) / m above it and breaks away from a ramp at t0 = g / k; a pendulum on
a pin with a friction torque comes to rest at the angle its energy balance predicts and stays
there without creeping (true stick, QP path). A bound that grows with the reaction (`mu`): the
block sticks below mu m g and slides with (F - mu m g) / m above it; the pendulum on a pin of
radius r with the friction circle mu r |F| follows the event-driven reference of
references/ref_friction_pendulum.py (the torque mu_e R |F| with mu_e = mu) to rest."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import GROUND, InputError, RigidBody, SimulationOptions, System, simulate
from nlpmbd.model.forces import Force
from nlpmbd_joints import PrismaticJoint, RevoluteJoint
from references.ref_friction_pendulum import friction_pendulum
from references.ref_joint_friction import pendulum_rests, ramp_slide

M, G = 2.0, 9.81


def _block(push, loss: float, solver: str, t_end: float, h: float = 1e-3, mu: float = 0.0):
    system = System(gravity=(0, -G, 0))
    block = system.add_body(RigidBody("block", M, (0.1,) * 3))
    guide = PrismaticJoint("guide", GROUND, block, (0, 0, 0), (1, 0, 0), frictionloss=loss, mu=mu)
    system.add_joint(guide)
    system.add_load(Force(block, push))
    return simulate(system, SimulationOptions(t_end=t_end, h_min=h, h_max=h, solver=solver))


@pytest.mark.parametrize("solver", ["qp", "nlp"])
def test_a_block_sticks_below_breakaway_and_slides_above(solver):
    g = 2.0
    held = _block((1.5, 0, 0), g, solver, 0.5)
    creep = 1e-12 if solver == "qp" else 1e-6  # the NLP smooths |u| with the creep speed
    assert np.max(np.abs(held.q[:, 0])) < creep
    pushed = _block((3.0, 0, 0), g, solver, 0.5)
    a = (3.0 - g) / M
    assert pushed.v[-1, 0] == pytest.approx(a * pushed.t[-1], rel=1e-6)
    assert pushed.q[-1, 0] == pytest.approx(0.5 * a * pushed.t[-1] ** 2, rel=1e-6)
    assert held.meta["warnings"] == [] and pushed.meta["warnings"] == []


def test_a_ramp_breaks_the_block_away_at_the_breakaway_force():
    k, g = 10.0, 2.0  # N/s, N: t0 = 0.2 s
    r = _block(lambda t, state: (k * t, 0, 0), g, "qp", 0.5, h=1e-4)
    x = ramp_slide(k, g, M, r.t)
    assert np.max(np.abs(r.q[:, 0] - x)) < 1e-3 * np.max(x)
    before = r.t < g / k - 1e-3
    assert np.max(np.abs(r.q[before, 0])) < 1e-12  # no creep before breakaway


def _pendulum(T: float, solver: str, h: float, L: float = 0.5):
    system = System(gravity=(0, -G, 0))
    bob = system.add_body(RigidBody("bob", 1.0, (1e-3,) * 3, position=(L, 0, 0)))
    system.add_joint(RevoluteJoint("pin", GROUND, bob, (0, 0, 0), (0, 0, 1), frictionloss=T))
    return simulate(system, SimulationOptions(t_end=4.0, h_min=h, h_max=h, solver=solver))


def test_a_pendulum_with_pin_friction_rests_where_its_energy_balance_says():
    T = 0.8  # N m, below m g L = 4.9 N m: it swings four times
    rests = pendulum_rests(np.pi / 2, 1.0, G, 0.5, T)
    assert len(rests) == 5
    r = _pendulum(T, "qp", 1e-3)
    phi = np.arctan2(r.q[:, 0], -r.q[:, 1])  # from the lowest position
    assert phi[-1] == pytest.approx(rests[-1], abs=1e-5)  # 1.1e-7 rad measured
    assert np.ptp(phi[-500:]) < 1e-12  # it stays: no creep
    assert r.meta["warnings"] == []


def test_friction_beyond_gravity_holds_the_pendulum():
    r = _pendulum(5.0, "qp", 1e-3)  # above m g L = 4.905 N m
    assert np.max(np.abs(r.q[:, 1])) < 1e-10  # 1.4e-12 m in 4 s (free: it falls 0.5 m)


def test_a_block_with_coulomb_friction_in_its_guide():
    """mu = 0.3 on m g = 19.62 N: the guide holds 5 N and lets 8 N accelerate the block at
    (8 - 5.886) / 2 m/s^2 (the reaction across the axis is m g: the bound's load)."""
    mu = 0.3
    held = _block((5.0, 0, 0), 0.0, "qp", 0.5, mu=mu)
    assert np.max(np.abs(held.q[:, 0])) < 1e-12
    pushed = _block((8.0, 0, 0), 0.0, "qp", 0.5, mu=mu)
    a = (8.0 - mu * M * G) / M
    assert pushed.v[-1, 0] == pytest.approx(a * pushed.t[-1], rel=1e-6)
    assert pushed.q[-1, 0] == pytest.approx(0.5 * a * pushed.t[-1] ** 2, rel=1e-6)
    assert held.meta["warnings"] == [] and pushed.meta["warnings"] == []


def test_a_pendulum_on_a_friction_circle_follows_the_reference_to_rest():
    """mu = 0.4 on a pin of radius 0.1 m; the reference's joint of radius R turns the force on
    its friction circle with mu_e = mu / sqrt(1 + mu^2): mu' = mu / sqrt(1 - mu^2) gives mu."""
    mu, r, J = 0.4, 0.1, 0.085
    system = System(gravity=(0, -G, 0))
    bob = system.add_body(RigidBody("bob", 1.0, (J, J, J), position=(0.5, 0, 0)))
    pin = RevoluteJoint("pin", GROUND, bob, (0, 0, 0), (0, 0, 1), mu=mu, pin_radius=r)
    system.add_joint(pin)
    result = simulate(system, SimulationOptions(t_end=8.0, h_min=1e-3, h_max=1e-3, solver="qp"))
    reference = friction_pendulum(mu / np.sqrt(1 - mu**2), 8.0, params={"R": r})
    assert reference.omega[-1] == 0.0  # at rest since 6.01 s
    theta = np.arctan2(result.q[:, 1], result.q[:, 0])  # from +X, as the reference
    assert theta[-1] == pytest.approx(reference.theta[-1], abs=1e-5)  # 8.7e-7 rad measured
    assert np.ptp(theta[-500:]) < 1e-12  # it stays
    on = np.searchsorted(result.t, reference.t)
    # on the way: within one step of its fastest swing (1e-3 s x 4.4 rad/s; 3.9e-3 measured,
    # at a turn where it sticks for a moment)
    assert np.max(np.abs(theta[on] - reference.theta)) < 5e-3
    assert result.meta["warnings"] == []


def test_the_nlp_path_refuses_a_bound_that_grows_with_the_reaction():
    with pytest.raises(InputError, match="joint friction with mu > 0 needs the QP path"):
        _block((5.0, 0, 0), 0.0, "nlp", 0.01, mu=0.3)


@pytest.mark.parametrize("loss", [-1.0, float("nan"), "x"])
def test_a_bad_frictionloss_is_an_input_error(loss):
    with pytest.raises(InputError, match="guide.frictionloss"):
        PrismaticJoint("guide", GROUND, RigidBody("b", 1.0, (1,) * 3), (0, 0, 0), frictionloss=loss)


def test_a_run_says_when_a_fallback_step_dropped_the_load_part():
    """A QP step that fails falls back to the NLP path, whose joint friction is its constant
    part only: the run's warnings say so where such steps happened (and only then)."""
    from nlpmbd.model.symbolic import SymbolicModel
    from nlpmbd.run.validity import RunChecks

    for mu, expected in ((0.4, True), (0.0, False)):
        system = System(gravity=(0, -G, 0))
        bob = system.add_body(RigidBody("bob", 1.0, (0.085,) * 3, position=(0.5, 0, 0)))
        pin = RevoluteJoint("pin", GROUND, bob, (0, 0, 0), (0, 0, 1), mu=mu, pin_radius=0.1)
        system.add_joint(pin)
        result = simulate(system, SimulationOptions(t_end=0.01, solver="qp"))
        assert not any("fell back" in w for w in result.meta["warnings"])
        result.meta["qp_fallback_steps"] = 3
        said = RunChecks(system, SymbolicModel.build(system)).warnings(result)
        flagged = [w for w in said if "fell back to the NLP path" in w]
        assert bool(flagged) == expected
        if expected:
            assert "the joints' friction without its load part" in flagged[0]
