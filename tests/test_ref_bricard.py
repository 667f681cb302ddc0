"""Bricard's mechanism, IFToMM A04 (issue 31, item 7; benchmarks/reference_problems/bricard.py):
conservative, so energy is the reference; one of its 30 joint equations is dependent."""

from __future__ import annotations

import pytest

from benchmarks.reference_problems.bricard import measures, run


@pytest.mark.parametrize("solver", ["qp", pytest.param("nlp", marks=pytest.mark.slow)])
def test_energy_is_conserved_once_the_dependent_equation_is_dropped(solver):
    result, _, failure = run("universal", solver, t_end=1.0)
    assert not failure and result is not None
    m = measures(result)
    assert m["failed"] == 0
    # second-order default step, h = 1e-3, kinetic energy up to 4.5 J: 3.6e-6 J over 10 s in
    # the benchmark; 1e-5 J is 2e-6 of it, far below a first-order step's 2.7e-3 J in 1 s
    assert m["kinetic"] > 1.0 and m["drift"] < 1e-5
    # the universal joint at J6 lets rod 5 turn about Z; Bricard's loop never does (the dropped
    # equation is the dependent one): zero to round-off
    assert m["tilt"] < 1e-9


@pytest.mark.xfail(
    strict=True,
    reason="dependent equalities: the velocity stage's QP (DAQP) and IPOPT return multipliers "
    "whose EoM residual misses the acceptance bound (docs/reference_problems/bricard.md)",
)
def test_six_revolute_joints_run_without_a_failed_step():
    result, _, failure = run("revolute", t_end=0.05)
    assert not failure, failure
