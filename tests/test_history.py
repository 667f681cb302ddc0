"""What the run loop does between chunks: History's arrays (run/history.py, run/storage.py) and the
compliant contacts' evaluation (run/contact_memory.py). Both run after every chunk, so their
cost counts against the compiled steps (benchmarks/profile_defaults.py)."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import GROUND, RigidBody, SimulationOptions, SolverFailure, System, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.io.schema import SCHEMA, bytes_per_step
from nlpmbd.model.compliant import CompliantContact
from nlpmbd.model.springs import SpringDamper
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd.run import storage
from nlpmbd.run.contact_memory import CompliantContacts
from nlpmbd.run.limits import RESERVE_BYTES, TOUCH_BYTES, expected_points
from nlpmbd.run.validity import DIVERGENCE_FACTOR, length_scale
from nlpmbd_joints import PlaneContact


def test_rows_keep_their_order_across_blocks(monkeypatch):
    monkeypatch.setattr(storage, "BLOCK_ROWS", 8)
    grow = storage.RowStore((2, 3))
    rng = np.random.default_rng(1)
    parts = [rng.standard_normal((k, 2, 3)) for k in (3, 5, 1, 13, 8, 0, 7)]
    for part in parts:
        grow.extend(part)
    assert np.array_equal(grow.rows(), np.concatenate(parts))
    assert len(grow.blocks) == 5  # 37 rows in blocks of 8
    scalars = storage.RowStore(())
    for x in (1.5, np.arange(9.0), 2.5):  # a scalar is one row
        scalars.extend(x)
    assert np.array_equal(scalars.rows(), [1.5, *range(9), 2.5])


def test_rows_of_no_numbers_are_counted_not_stored():
    grow = storage.RowStore((0, 2))
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


def test_rows_within_the_capacity_are_handed_out_without_a_copy(monkeypatch):
    """The first block holds `capacity` rows (its first `touched` written at once): the rows
    in it are returned as a view; past it, blocks of BLOCK_ROWS and one concatenation."""
    monkeypatch.setattr(storage, "BLOCK_ROWS", 4)
    grow = storage.RowStore((2,), capacity=10, touched=6)
    assert np.array_equal(grow.blocks[0][:6], np.zeros((6, 2))) and grow.n == 0
    rng = np.random.default_rng(2)
    parts = [rng.standard_normal((k, 2)) for k in (3, 7)]
    for part in parts:
        grow.extend(part)
    rows = grow.rows()
    assert np.shares_memory(rows, grow.blocks[0]) and np.array_equal(rows, np.vstack(parts))
    parts.append(rng.standard_normal((6, 2)))  # past the capacity: 10 + 4 + 2
    grow.extend(parts[-1])
    rows = grow.rows()
    assert len(grow.blocks) == 3 and not np.shares_memory(rows, grow.blocks[0])
    assert np.array_equal(rows, np.vstack(parts))
    ints = storage.RowStore((), capacity=4, dtype="int64")
    ints.extend(np.array([3.0, 7.0]))  # converted as stored
    assert ints.rows("int64").dtype == np.int64 and ints.rows("int64").tolist() == [3, 7]


@pytest.mark.parametrize("huge_pages", [True, False])
def test_reserved_arrays_are_disjoint_views_of_one_arena(monkeypatch, huge_pages):
    """Each array's reserved rows are its own part of the arena (also without mmap)."""
    if not huge_pages:

        def refused(*args, **kwargs):
            raise OSError("no anonymous mapping")

        monkeypatch.setattr(storage.mmap, "mmap", refused)
    shapes = [((3,), "float64"), ((), "int64"), ((0, 3), "float64"), ((2, 3), "float64")]
    stores = storage.reserve(shapes, capacity=5, touched=2)
    for i, store in enumerate(stores):
        assert store.empty or np.array_equal(store.blocks[0][:2], np.zeros((2, *store.tail)))
        store.extend(np.full((5, *store.tail), i + 1.0))
    for i, (store, (tail, dtype)) in enumerate(zip(stores, shapes, strict=True)):
        rows = store.rows(dtype)
        assert rows.shape == (5, *tail) and rows.dtype == np.dtype(dtype) and np.all(rows == i + 1)


def test_the_last_rows_are_read_and_dropped_across_blocks(monkeypatch):
    monkeypatch.setattr(storage, "BLOCK_ROWS", 4)
    grow = storage.RowStore((3,), capacity=5)
    rows = np.arange(33.0).reshape(11, 3)
    grow.extend(rows[:4])
    grow.extend(rows[4:11])  # blocks [0, 5), [5, 9), [9, 13)
    assert np.array_equal(grow.tail_rows(3), rows[8:11])  # across two blocks
    assert np.array_equal(grow.tail_rows(2), rows[9:11])
    grow.drop(5)  # back into the first block
    assert np.array_equal(grow.last(), rows[5]) and grow.n == 6
    grow.extend(-rows[:6])
    assert np.array_equal(grow.rows(), np.vstack([rows[:6], -rows[:6]]))


def test_a_run_reserves_its_rows_and_touches_those_every_step_control_fills():
    system, _ = get_case("pendulum").build({})
    m = SymbolicModel.build(system)
    fixed = SimulationOptions(t_end=0.3, h_min=1e-3, h_max=1e-3)
    assert expected_points(m, fixed) == (303, 301)  # 300 steps at a fixed h
    controlled = SimulationOptions(t_end=1.0, h_min=1e-4, h_max=2e-3)
    assert expected_points(m, controlled) == (10003, 501)
    long = SimulationOptions(t_end=1e6, h_min=1e-3, h_max=1e-3)
    reserved, touched = expected_points(m, long)
    row = bytes_per_step(m.sizes)
    assert reserved * row <= RESERVE_BYTES < (reserved + 1) * row
    assert touched * row <= TOUCH_BYTES < (touched + 1) * row


@pytest.mark.parametrize("reserve", [(64, 0), (64, 64), (0, 0)])
def test_a_run_past_its_reserved_rows_has_the_same_arrays(monkeypatch, reserve):
    """Rows in blocks past the reserved ones (blocks of 16 rows here) and rows in the reserve
    give the same result, bit for bit, dtypes included (solve_time is measured)."""
    system, _ = get_case("pendulum").build({})
    options = SimulationOptions(
        t_end=0.3, h_min=1e-3, h_max=1e-3, solver="qp", chunk_steps=32, codegen="off"
    )
    ref = simulate(system, options)
    monkeypatch.setattr(storage, "BLOCK_ROWS", 16)
    monkeypatch.setattr("nlpmbd.run.run.expected_points", lambda model, options: reserve)
    got = simulate(system, options)
    assert got.n_steps == 300
    for spec in SCHEMA:
        a, b = getattr(got, spec.name), getattr(ref, spec.name)
        assert a.dtype == b.dtype == np.dtype(spec.dtype) and a.shape == b.shape, spec.name
        assert spec.name == "solve_time" or np.array_equal(a, b), spec.name  # wall time


def test_a_diverging_chunk_keeps_its_rows_up_to_the_first_diverged_one():
    """The fast path checks the rows once stored and drops those after the first past the
    limit: every array ends at that row."""
    system = System(gravity=(0, -9.81, 0))
    body = system.add_body(RigidBody("mass", 1.0, (1e-3,) * 3, position=(0, -0.1, 0)))
    system.add_load(SpringDamper("spring", GROUND, body, (0, 0, 0), (0, -0.1, 0), stiffness=1e12))
    opts = SimulationOptions(t_end=1.0, h_min=1e-3, h_max=1e-3, solver="qp", codegen="off")
    with pytest.raises(SolverFailure, match="^diverged") as info:
        simulate(system, opts)
    partial = info.value.partial
    n, limit = partial.n_steps, DIVERGENCE_FACTOR * length_scale(system)
    assert 0 < n == partial.meta["chunk_steps"]
    for spec in SCHEMA:
        assert getattr(partial, spec.name).shape[0] == spec.rows(n), spec.name
    r = np.linalg.norm(partial.q[:, :3], axis=1)
    assert r[-1] > limit and np.all(r[:-1] <= limit)
