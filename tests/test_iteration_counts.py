"""Iteration counts in the open (issue 30, item 3): meta.json's QP solves made cold and steps that
reached an iteration cap, checked against the result's per-step QP solves, between the compiled
chunks' counting and the Python loop's, and read back from results written before them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.cli_run import print_summary
from nlpmbd.apps.registry import get_case
from nlpmbd.errors import InputError, SolverFailure
from nlpmbd.io.files import read_result, write_result
from nlpmbd.io.result import SimulationResult
from nlpmbd.io.schema import COUNTERS
from nlpmbd.run.solvers import qp_plugin
from nlpmbd.step.qp import QPStep

NEW = ("qp_cold_solves", "steps_capped_friction", "steps_capped_cuts", "steps_capped_releases")
NEW_ALL = (*NEW, "steps_capped_ipopt")


def _run(case: str, params: dict | None = None, python: bool = False, **kw) -> SimulationResult:
    """The case on the QP path, in chunks (the VM), or with `python` step by step in Python
    (a solver factory: no chunks)."""
    system, _ = get_case(case).build(params or {})
    options = SimulationOptions(solver="qp", codegen="off", **kw)
    return simulate(system, options, solver=_python_qp if python else None)


def _python_qp(kernel, options):
    return QPStep(kernel, qp_plugin(kernel, options), friction=options.friction)


def _counts(r: SimulationResult) -> dict[str, int]:
    return {k: r.meta[k] for k in NEW}


def test_cold_solves_are_the_guesses_missed():
    """A frictionless box landing on its corners, first order (one QP per step): each step
    makes the guessed solve and DAQP's only on a miss (the gap projection's QPs are cold and
    counted in both), so the cold solves are the step's solves beyond the first; the first miss
    is the landing."""
    kw = {"t_end": 0.3, "h_min": 2e-3, "h_max": 2e-3, "integrator": "euler"}
    chunks = _run("box_drop", **kw)
    assert chunks.meta["chunk_steps"] == chunks.n_steps
    cold = chunks.meta["qp_cold_solves"]
    assert 0 < cold == int(chunks.iterations.sum()) - chunks.n_steps
    first_miss = int(np.argmax(chunks.iterations > 1))
    landing = int(np.argmax(chunks.lam[1:].max(axis=1) > 0))  # lam's row k + 1: step k's
    assert first_miss == landing
    python = _run("box_drop", python=True, **kw)
    assert python.meta["chunk_steps"] == 0
    assert _counts(python) == _counts(chunks)
    assert chunks.summary()["mean_cold_solves"] == pytest.approx(cold / chunks.n_steps)


def test_without_a_guess_every_solve_is_cold_and_cut_rounds_are_counted(monkeypatch):
    """Clearance pins under the vector linearisation (frictionless: Newton's cut rounds): every
    QP of a step is guessed first (the position stage's by step/qp_guess_sparse.py, the
    velocity stage's by step/qp_warm.py) and DAQP's cold solve follows only a miss, so the
    solves beyond the cold ones are at least two a step; without the guesses of the position
    stage a first-order step's solves are all cold."""
    kw = {"t_end": 0.03, "h_min": 1e-3, "h_max": 1e-3}
    params = {"links": 2, "joint": "clearance"}
    chunks = _run("chain", params, **kw)
    cold, total = chunks.meta["qp_cold_solves"], int(chunks.iterations.sum())
    assert 0 <= cold and total - cold >= 2 * chunks.n_steps
    # a step that made its last cut round made at least N_CUTS + 1 QP solves
    from nlpmbd.step.cuts import N_CUTS

    assert chunks.meta["steps_capped_cuts"] <= np.count_nonzero(chunks.iterations > N_CUTS)
    assert _counts(_run("chain", params, python=True, **kw)) == _counts(chunks)
    first = _run("chain", params, integrator="euler", **kw)
    assert int(first.iterations.sum()) - first.meta["qp_cold_solves"] >= first.n_steps
    from nlpmbd.step import qp_guess_sparse

    monkeypatch.setattr(qp_guess_sparse, "applies", lambda *args: False)
    first = _run("chain", params, integrator="euler", **kw)
    assert first.meta["qp_cold_solves"] == int(first.iterations.sum()) > 0


def test_painleves_rod_reaches_the_friction_rounds_cap():
    """Painleve's rod slides into the configuration without a sliding solution: the friction
    fixed point's substitution cannot settle, so its steps make all `rounds` (QPStep: 8)
    rounds, each at least one QP solve."""
    kw = {"t_end": 0.02}
    chunks = _run("painleve", **kw)
    capped = chunks.meta["steps_capped_friction"]
    assert 0 < capped <= np.count_nonzero(chunks.iterations >= 8)
    assert _counts(_run("painleve", python=True, **kw)) == _counts(chunks)
    free = _run("box_drop", t_end=0.05, h_min=2e-3, h_max=2e-3)  # no friction: no rounds
    assert free.meta["steps_capped_friction"] == 0


def test_ipopts_max_iter_is_counted():
    system, _ = get_case("pendulum").build({})
    kw = {"t_end": 0.01, "solver": "nlp", "predictor": False}
    assert simulate(system, SimulationOptions(**kw)).meta["steps_capped_ipopt"] == 0
    with pytest.raises(SolverFailure) as failed:
        simulate(system, SimulationOptions(**kw, ipopt={"max_iter": 0}))
    assert failed.value.partial.meta["steps_capped_ipopt"] >= 1


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    r = _run("painleve", t_end=0.005)
    return r.save(tmp_path_factory.mktemp("painleve") / "r")


def _rewrite(directory: Path, change) -> Path:
    """The result with its metadata changed and resealed (checksum matching)."""
    arrays, meta = read_result(directory)
    return write_result(directory, arrays, change(meta))


def test_the_counters_are_read_back_and_summarised(saved, capsys):
    r = SimulationResult.load(saved)
    assert set(NEW_ALL) <= set(r.counters) and set(r.counters) <= set(COUNTERS)
    assert r.counters["steps_capped_friction"] > 0
    print_summary(r, saved)
    out = capsys.readouterr().out
    assert f"of which cold {r.meta['qp_cold_solves'] / r.n_steps:.2f}" in out
    capped = r.counters["steps_capped_friction"]
    assert f"every round a cap allows: friction fixed point's rounds {capped}" in out


def test_a_result_written_before_the_counters_loads_without_them(saved, tmp_path, capsys):
    old = tmp_path / "old"
    old.mkdir()
    for f in ("result.npz", "meta.json"):
        (old / f).write_bytes((saved / f).read_bytes())
    _rewrite(old, lambda meta: {k: v for k, v in meta.items() if k not in NEW_ALL})
    r = SimulationResult.load(old)
    assert not set(NEW_ALL) & set(r.counters) and "chunk_steps" in r.counters
    assert "mean_cold_solves" not in r.summary()
    print_summary(r, old)
    out = capsys.readouterr().out
    assert "QP solves/step" in out and "cold" not in out and "a cap allows" not in out


@pytest.mark.parametrize("value", [-1, 1.5, True, "3"])
def test_a_damaged_counter_is_refused_in_one_line(saved, tmp_path, value):
    bad = tmp_path / "bad"
    bad.mkdir()
    for f in ("result.npz", "meta.json"):
        (bad / f).write_bytes((saved / f).read_bytes())
    _rewrite(bad, lambda meta: {**meta, "qp_cold_solves": value})
    with pytest.raises(InputError, match="qp_cold_solves must be a count") as caught:
        SimulationResult.load(bad)
    assert "\n" not in str(caught.value)
