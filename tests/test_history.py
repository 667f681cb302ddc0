"""What the run loop does between chunks: History's growing arrays (run/history.py) and the
compliant contacts' evaluation (run/contact_memory.py). Both run after every chunk, so their
cost counts against the compiled steps (benchmarks/profile_defaults.py)."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import RigidBody, SimulationOptions, System, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.compliant import CompliantContact
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd.run import history
from nlpmbd.run.contact_memory import CompliantContacts
from nlpmbd_joints import PlaneContact


def test_rows_keep_their_order_across_blocks(monkeypatch):
    monkeypatch.setattr(history, "BLOCK_ROWS", 8)
    grow = history._Growing((2, 3))
    rng = np.random.default_rng(1)
    parts = [rng.standard_normal((k, 2, 3)) for k in (3, 5, 1, 13, 8, 0, 7)]
    for part in parts:
        grow.extend(part)
    assert np.array_equal(grow.rows(), np.concatenate(parts))
    assert len(grow.blocks) == 5  # 37 rows in blocks of 8
    scalars = history._Growing(())
    for x in (1.5, np.arange(9.0), 2.5):  # a scalar is one row
        scalars.extend(x)
    assert np.array_equal(scalars.rows(), [1.5, *range(9), 2.5])


def test_rows_of_no_numbers_are_counted_not_stored():
    grow = history._Growing((0, 2))
    grow.extend(np.zeros((128, 0, 2)))
    grow.extend(np.zeros((5, 0, 2)))
    assert grow.rows().shape == (133, 0, 2)
    assert grow.nbytes == 0 and not grow.blocks


def _ball(penetration: float) -> System:
    """A ball pressed into the floor by `penetration`, moving into it: one compliant contact."""
    system = System(gravity=(0, -9.81, 0))
    R = 0.05
    ball = system.add_body(
        RigidBody("ball", 1.0, (1e-3,) * 3, position=(0, R - penetration, 0), velocity=(0.3, -1, 0))
    )
    law = CompliantContact(stiffness=1e6, exponent=1.5, restitution=0.5)
    system.add_joint(PlaneContact("floor", ball, [(0, -R, 0)], contact=law))
    return system


@pytest.mark.parametrize("contacts", [1, 4])
def test_compliant_evaluation_is_the_models_function(contacts):
    """CompliantContacts.at (evaluated in place, without DM conversions) gives the numbers and
    shapes of model.compliant_force called on DMs, bit for bit, a 1 x 1 output included."""
    if contacts == 1:
        system = _ball(1e-4)
    else:
        system, _ = get_case("stick_slip").build({"contact": "compliant"})
    m = SymbolicModel.build(system)
    assert m.n_compliant == contacts
    q, v = system.initial_state()
    z = np.linspace(0.5, 1.0, m.n_compliant)
    got = CompliantContacts(m).at(0.01, q, v, z)
    Q, gap, rate, _, force, _ = (np.asarray(a) for a in m.compliant_force(0.01, q, v, z))
    assert got.Q.shape == (m.n_v,) and got.gap.shape == got.rate.shape == (m.n_compliant,)
    assert got.force.shape == (3, m.n_compliant)
    assert np.array_equal(got.Q, Q.ravel()) and np.array_equal(got.gap, gap.ravel())
    assert np.array_equal(got.rate, rate.ravel()) and np.array_equal(got.force, force)
    if contacts == 1:
        assert got.gap[0] == pytest.approx(1e-4) and np.abs(got.Q).max() > 1.0  # loaded


def test_no_compliant_contacts_are_evaluated_once_per_run(monkeypatch):
    """Without compliant contacts there is nothing to evaluate after each chunk (it cost ~0.4 ms
    a chunk, 24 % of the compiled pendulum's loop)."""
    calls = []
    at = CompliantContacts.at

    def counted(self, *args):
        calls.append(1)
        return at(self, *args)

    monkeypatch.setattr(CompliantContacts, "at", counted)
    system, _ = get_case("pendulum").build({})
    options = SimulationOptions(
        t_end=0.2, h_min=1e-3, h_max=1e-3, solver="qp", chunk_steps=16, codegen="off"
    )
    r = simulate(system, options)
    assert r.meta["chunk_steps"] == 200  # 13 chunks
    assert len(calls) <= 2  # the initial point's row and the first chunk's start


def test_a_run_without_contacts_records_empty_contact_arrays():
    system = System(gravity=(0, -9.81, 0))
    system.add_body(RigidBody("free", 1.0, (1e-3,) * 3, velocity=(1, 0, 0)))
    r = simulate(system, SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3, codegen="off"))
    assert r.gap.shape == (51, 0) and r.contact_force.shape == (51, 0, 3)
    assert r.node_q.shape == (51, 0, 2) and r.q.shape == (51, 7)
    assert r.q[-1, 0] == pytest.approx(0.05)
