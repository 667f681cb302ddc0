"""The QP fast path (solver="qp") against the NLP path solved by IPOPT, compiled against
interpreted chunks, failures handed back to Python, and the NLP path's QP predictor."""

from __future__ import annotations

import numpy as np
import pytest
from test_engine import nan_after

from nlpmbd import SimulationOptions, SolverFailure, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd.run.codegen import find_compiler
from nlpmbd.run.solvers import build_kernel, nlp_solver
from nlpmbd.step.solver import StepInputs

H = 1e-3


def positions(res) -> np.ndarray:
    """(n+1, 3N) centre-of-mass positions of all bodies."""
    cols = np.concatenate([np.arange(7 * k, 7 * k + 3) for k in range(res.q.shape[1] // 7)])
    return res.q[:, cols]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "params"),
    [
        ("pendulum", {}),  # ideal revolute joint
        ("pendulum", {"joint": "clearance"}),  # revolute clearance (radial) + ideal axial
        ("cylindrical", {}),
        ("prismatic", {}),
        ("box_drop", {}),  # 8 plane contacts
        ("free_body", {}),  # no constraint at all
    ],
    ids=["ideal-revolute", "revolute-clearance", "cylindrical", "prismatic", "plane", "free"],
)
def test_fast_path_agrees_with_ipopt_at_equal_fixed_step(case, params):
    """Every joint type, ideal and clearance: 1 s at h = 1e-3, the fast path (interpreted
    chunks) and the NLP solved by IPOPT (no predictor) agree to 1e-6 m at every step."""
    system, _ = get_case(case).build(params)
    qp = simulate(
        system, SimulationOptions(t_end=1.0, h_min=H, h_max=H, solver="qp", codegen="off")
    )
    nlp = simulate(system, SimulationOptions(t_end=1.0, h_min=H, h_max=H, predictor=False))
    assert qp.completed and np.all(qp.status < 3)
    assert np.array_equal(qp.t, nlp.t)
    assert np.abs(positions(qp) - positions(nlp)).max() <= 1e-6
    assert qp.meta["chunk_steps"] + qp.meta["qp_fallback_steps"] >= qp.n_steps - 1
    assert qp.eom_residual.max() <= 1e-7 and qp.comp_residual.max() <= 1e-8
    # same joint forces in the plane of motion where they are unique (no redundant contacts;
    # the pendulum's small axial force chatters in sign between the pin's two ends)
    if case in ("pendulum", "cylindrical"):
        np.testing.assert_allclose(qp.joint_force[..., :2], nlp.joint_force[..., :2], atol=1e-4)


@pytest.mark.slow
def test_revolute_chaos_separates_any_two_solvers_alike():
    """On `revolute` (rocking chatter) the fast path and IPOPT agree to 1e-9 m for the first
    0.25 s, then a round-off difference grows through the impacts; two IPOPT formulations of
    the same step (implicit, MPCC) separate at the same rate, so this is the mechanism's
    sensitivity, not an error of the QP."""
    system, _ = get_case("revolute").build({})
    opts = dict(t_end=0.25, h_min=H, h_max=H)
    qp = simulate(system, SimulationOptions(**opts, solver="qp", codegen="off"))
    nlp = simulate(system, SimulationOptions(**opts, predictor=False))
    assert np.abs(positions(qp) - positions(nlp)).max() <= 1e-9


@pytest.mark.slow
@pytest.mark.skipif(find_compiler() is None, reason="no C compiler on this machine")
def test_compiled_chunks_give_the_same_arrays_as_the_virtual_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("NLPMBD_CACHE", str(tmp_path))
    system, _ = get_case("revolute").build({})
    opts = dict(t_end=0.3, h_min=H, h_max=H, solver="qp")
    vm = simulate(system, SimulationOptions(**opts, codegen="off"))
    cc = simulate(system, SimulationOptions(**opts, codegen="on"))
    assert vm.meta["codegen"] == "off" and cc.meta["codegen"] == "compiled"
    again = simulate(system, SimulationOptions(**opts, codegen="on"))
    assert again.meta["codegen"] == "cached"
    for name in ("t", "q", "v", "lam", "lam_eq", "gap", "joint_force", "eom_residual"):
        assert np.array_equal(getattr(cc, name), getattr(again, name)), name
    # the same QPs' optima: the compiled DAQP starts from a working set (run/codegen_source.py
    # warm_daqp), the VM's from none, so they differ by round-off (8.8e-13 m at 0.3 s here)
    assert np.array_equal(vm.t, cc.t)
    assert np.abs(vm.q - cc.q).max() <= 1e-10
    assert np.abs(vm.lam - cc.lam).max() <= 1e-6 * np.abs(vm.lam).max()


def test_no_compiler_falls_back_to_the_virtual_machine(monkeypatch):
    monkeypatch.setattr("nlpmbd.run.codegen.find_compiler", lambda: None)
    system, _ = get_case("pendulum").build({})
    res = simulate(
        system, SimulationOptions(t_end=0.05, h_min=H, h_max=H, solver="qp", codegen="on")
    )
    assert res.completed and res.meta["codegen"] == "no C compiler found"


def test_failed_qp_step_goes_to_the_nlp_and_a_failure_keeps_the_partial_result():
    """A load that turns NaN at t = 0.02: the chunk flags the step, the NLP fallback fails
    too, and the run stops with the steps before it."""
    with pytest.raises(SolverFailure) as info:
        simulate(nan_after(0.02), SimulationOptions(t_end=0.1, h_min=H, h_max=H, solver="qp"))
    partial = info.value.partial
    assert partial is not None and not partial.completed
    assert 0.019 <= partial.t[-1] <= 0.0211 and np.all(np.isfinite(partial.q))
    assert partial.n_steps == len(partial.t) - 1


def test_qp_with_the_step_size_controller():
    system, _ = get_case("pendulum").build({"joint": "clearance"})
    opts = dict(t_end=0.3, h_min=1e-4, h_max=2e-3, step_control="controller", error_tol=1e-6)
    qp = simulate(system, SimulationOptions(**opts, solver="qp"))
    nlp = simulate(system, SimulationOptions(**opts, predictor=False))
    assert qp.completed and np.all(qp.h >= 1e-4 * (1 - 1e-12))
    assert np.abs(positions(qp)[-1] - positions(nlp)[-1]).max() <= 1e-6


def test_predicted_steps_are_at_least_as_good_as_ipopts():
    """With h free in [1e-3, 2e-3], a step the QP predictor accepts (h = h_max, no IPOPT) must
    be feasible and have an objective no larger than IPOPT's from the same state."""
    # the predictor serves the NLP's own choice of h (step_control=nlp) in the one-solve step
    # (euler) whose NLP is compared below, and its point is one of the NLP's scalar gap rows
    # (with vector rows it served 1 step in 102): none of them is the default any more
    nlp_h = dict(h_min=1e-3, h_max=2e-3, solver="nlp", step_control="nlp", integrator="euler")
    nlp_h |= dict(gap_linearization="scalar")
    system, _ = get_case("revolute").build({})
    ref = simulate(system, SimulationOptions(t_end=0.2, **nlp_h))
    assert ref.meta["predicted_steps"] > 0.5 * ref.n_steps
    model = SymbolicModel.build(system)
    opts = SimulationOptions(t_end=1.0, **nlp_h)
    kernel = build_kernel(model, opts)
    with_pred = nlp_solver(kernel, opts)
    plain = nlp_solver(kernel, opts.replace(predictor=False))
    f = plain.solver_cold.get_function("nlp_f")
    g = plain.solver_cold.get_function("nlp_g")
    checked = 0
    for n in range(0, ref.n_steps, 10):
        inputs = StepInputs(ref.t[n], ref.q[n], ref.v[n], 1e-3, 2e-3)
        a = with_pred.solve(inputs)
        if a.return_status != "QP predictor":
            continue
        b = plain.solve(inputs)
        P = plain.parameters(inputs)
        fa, fb = float(f(a.warm["x"], P)), float(f(b.warm["x"], P))
        assert fa <= fb + 1e-12 * max(1.0, abs(fb))
        ga = np.asarray(g(a.warm["x"], P)).ravel()
        viol = np.maximum(ga - plain.graph.ubg, plain.graph.lbg - ga).max()
        assert viol <= 1e-9
        assert a.h == pytest.approx(2e-3, rel=1e-12) and b.h == pytest.approx(2e-3, rel=1e-4)
        np.testing.assert_allclose(a.v, b.v, atol=1e-6 * max(1.0, np.abs(b.v).max()))
        checked += 1
    assert checked >= 5


def test_qp_option_errors():
    from nlpmbd.errors import InputError

    with pytest.raises(InputError, match="qp_solver must be one of"):
        SimulationOptions(solver="qp", qp_solver="gurobi")
    with pytest.raises(InputError, match="codegen must be one of"):
        SimulationOptions(codegen="yes")


def test_qp_path_with_an_h_range_steps_at_h_max():
    """The QP has no h to choose: solver=qp with h_min < h_max (and the NLP's step control)
    takes h_max, landing on t_end like any fixed-step run; auto takes the NLP there."""
    system, _ = get_case("pendulum").build({})
    # the NLP's step control is no longer the default (the controller's is): asked for
    nlp_h = dict(h_min=1e-3, h_max=2e-3, step_control="nlp")
    options = SimulationOptions(t_end=0.0105, **nlp_h, solver="qp")
    res = simulate(system, options)
    assert res.meta["solver_path"] == "qp"
    np.testing.assert_allclose(res.h, [2e-3] * 4 + [1.25e-3] * 2, rtol=1e-12)
    assert SimulationOptions(**nlp_h).solver_path.value == "nlp"
    controlled = SimulationOptions(h_min=1e-3, h_max=2e-3, step_control="controller")
    assert controlled.solver_path.value == "qp"


@pytest.mark.slow
def test_other_qp_plugins_match_qrqp():
    system, _ = get_case("pendulum").build({"joint": "clearance"})
    runs = {
        plugin: simulate(
            system,
            SimulationOptions(t_end=0.2, h_min=H, h_max=H, solver="qp", qp_solver=plugin),
        )
        for plugin in ("qrqp", "qpoases")
    }
    # the two solvers' answers may straddle the cut threshold CUT_TOL c = 1e-10 m in a step, so
    # one takes a cut round the other does not: 3.6e-8 m measured; without cuts they agree to 1e-12
    assert np.abs(positions(runs["qrqp"]) - positions(runs["qpoases"])).max() <= 1e-7
