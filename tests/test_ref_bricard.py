"""Bricard's mechanism, IFToMM A04 (issue 31, item 7; benchmarks/reference_problems/bricard.py):
conservative, so energy is the reference; one of its 30 joint equations is dependent."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.reference_problems.bricard import measures, run
from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd.step.dependent import equality_regularisation


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


def test_the_dependent_equation_is_found_at_the_start():
    """Six revolute joints: rank 29 of 30 at the assembled start, so the rows are compliant
    (step/dependent.py); the universal closing's 29 rows are independent, so they are not."""
    rho, models = {}, {}
    for closing in ("revolute", "universal"):
        system, _ = get_case("bricard").build({"closing": closing})
        q0, _ = system.initial_state()
        models[closing] = SymbolicModel.build(system)
        rho[closing] = equality_regularisation(models[closing], q0)
    assert rho["universal"] == 0.0 and rho["revolute"] > 0.0
    # assembled only to the run's tolerance (1e-6, run/limits.py): still found
    rough = q0 + 1e-7 * np.random.default_rng(0).standard_normal(q0.size)
    assert np.abs(np.asarray(models["revolute"].Phi_eq(rough, 0.0))).max() < 1e-6
    assert equality_regularisation(models["revolute"], rough) > 0.0


def test_six_revolute_joints_run_without_a_failed_step():
    """The mechanism as specified (the strict xfail of before): its dependent row compliant,
    every step passes the acceptance test, and the energy holds."""
    result, _, failure = run("revolute", t_end=0.3)
    assert not failure, failure
    m = measures(result)
    # 6.5e-7 J at 0.3 s (kinetic energy 0.77 J), the universal closing's too
    assert m["failed"] == 0 and m["kinetic"] > 0.5 and m["drift"] < 2e-6


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["qp", "nlp"])
def test_six_revolute_joints_conserve_energy_and_move_as_the_universal_closing(solver):
    """No failed step over 1 s, the energy of the universal closing's run, and the same motion
    (J4's path)."""
    result, _, failure = run("revolute", solver, t_end=1.0)
    assert not failure, failure
    m = measures(result)
    assert m["failed"] == 0 and m["kinetic"] > 1.0 and m["drift"] < 1e-5
    # rod 5 about Z is now J6's own equation: held to its rows' give
    assert m["tilt"] < 1e-9
    reference, _, _ = run("universal", solver, t_end=1.0)
    assert reference is not None
    # the same motion to the joints' give (rho h^2 lambda ~ 4e-12 m) and round-off: 1.5e-10 m
    assert np.abs(m["j4"] - measures(reference)["j4"]).max() < 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("integrator", ["euler", "verlet"])
def test_ipopt_takes_every_step_of_the_six_revolute_joints(integrator):
    """IPOPT at every step (no QP predictor): before the rows' compliance its multipliers ran
    up to 1e8 N and the first-order step failed its acceptance test at step 16."""
    case = get_case("bricard")
    system, _ = case.build({"closing": "revolute"})
    options = SimulationOptions(
        t_end=0.1, h_min=case.h_min, h_max=case.h_max, solver="nlp", predictor=False,
        integrator=integrator,
    )  # fmt: skip
    result = simulate(system, options)
    assert result.meta["predicted_steps"] == 0 and np.all(result.status == 0)
    # the joint forces stay those of the loop's weight (27.5 N at the start), none of 1e8 N
    assert np.abs(result.lam_eq).max() < 100.0
