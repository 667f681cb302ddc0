"""The retry ladder's last rung (step/retry.py): a second-order run takes a step its own scheme
cannot close with the first-order scheme, built once on first need (issue 31: the velocity
stage of `four_bar_clearance`). The second-order step is the real one, failed in a window of t
the way a velocity stage that does not settle fails it."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.errors import SolverFailure
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd.run.controller import ControlLaw, StepController, control_law
from nlpmbd.run.solvers import build_kernel, build_solver, first_order
from nlpmbd.run.validity import FIRST_ORDER_STEPS
from nlpmbd.step.config import Integrator, Verification
from nlpmbd.step.kernel import StepKernel
from nlpmbd.step.qp_graph import attempt_function
from nlpmbd.step.retry import solve_with_retries
from nlpmbd.step.solver import FAILED, RETRIED, StepInputs, StepSolution, StepSolver
from nlpmbd.step.verlet import VerletStep

WHY = "velocity stage: friction fixed point not settled"


class FailsInWindow(StepSolver):
    """The run's own step solver (build_solver's), whose second-order steps (or, with `every`,
    all steps) starting in [lo, hi) come back FAILED."""

    def __init__(
        self, kernel, options, lo: float = 0.0, hi: float = np.inf, every: bool = False
    ) -> None:
        super().__init__(kernel)
        self.inner = build_solver(kernel, options).solver
        self.lo, self.hi, self.every = lo, hi, every

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        sol = self.inner.solve(inputs, warm)
        if (self.kernel.verlet or self.every) and self.lo <= inputs.t < self.hi:
            return replace(sol, status=FAILED, return_status=WHY)
        return sol


def _pendulum(h: float = 1e-3, **options):
    system, _ = get_case("pendulum").build({})
    options = {"solver": "qp", **options}
    return system, SimulationOptions(t_end=0.1, h_min=h, h_max=h, **options)


def test_the_last_rung_takes_the_step_first_order_and_is_built_once():
    system, options = _pendulum(h=1e-2)
    model = SymbolicModel.build(system)
    kernel = build_kernel(model, options)
    assert kernel.verlet
    q, v = system.initial_state()
    inputs = StepInputs(0.0, q, v + 0.5, 1e-2, 1e-2, True)
    built: list = []

    def factory(k, o):
        built.append(k)
        return build_solver(k, o).solver

    rung = first_order(model, options, factory)
    assert built == []  # nothing built before it is needed
    failing = FailsInWindow(kernel, options)
    with pytest.raises(SolverFailure, match=WHY):
        solve_with_retries(failing, inputs, None, None, 3, 0)
    solved = solve_with_retries(failing, inputs, None, None, 3, 0, rung)
    assert solved.first_order and solved.status == RETRIED
    assert len(built) == 1 and built[0].integrator is Integrator.EULER
    euler = build_solver(built[0], options.replace(integrator="euler")).solver.solve(inputs)
    verlet = failing.inner.solve(inputs)
    assert np.allclose(solved.solution.v, euler.v, rtol=0, atol=1e-12)
    assert not np.allclose(solved.solution.v, verlet.v, rtol=0, atol=1e-6)
    solve_with_retries(failing, inputs, None, None, 3, 0, rung)
    assert len(built) == 1  # once
    # a working second-order step never reaches the rung
    plain = solve_with_retries(failing.inner, inputs, None, None, 3, 0, rung)
    assert not plain.first_order and np.allclose(plain.solution.v, verlet.v, atol=1e-12)


def test_a_step_neither_scheme_takes_names_both_reasons():
    system, options = _pendulum(h=1e-2)
    model = SymbolicModel.build(system)
    kernel = build_kernel(model, options)
    q, v = system.initial_state()
    inputs = StepInputs(0.0, q, v, 1e-2, 1e-2, True)
    rung = first_order(model, options, lambda k, o: FailsInWindow(k, o, every=True))
    with pytest.raises(SolverFailure, match=f"{WHY}; first-order step: {WHY}"):
        solve_with_retries(FailsInWindow(kernel, options), inputs, None, None, 3, 0, rung)


def _failing(lo: float, hi: float):
    return lambda kernel, options: FailsInWindow(kernel, options, lo, hi)


def test_a_run_survives_the_steps_its_scheme_fails_with_first_order_estimates():
    system, options = _pendulum()
    lo, hi = 0.0495, 0.0525  # three steps
    result = simulate(system, options, solver=_failing(lo, hi))
    assert result.meta["completed"] and result.meta["integrator"] == "verlet"
    starts = result.t[:-1]
    window = (starts >= lo) & (starts < hi)
    assert result.meta["first_order_steps"] == np.count_nonzero(window) == 3
    assert np.all(result.status[window] == RETRIED) and np.all(result.status[~window] == 0)
    # each step's estimate is its scheme's: the first-order law's on the rung's steps
    m = SymbolicModel.build(system)
    laws = {s: StepController(control_law(m, s), options, m.n_q, m.n_v) for s in (0, 1)}
    q, v, h = result.q, result.v, np.diff(result.t)
    per_step = [
        laws[not window[k]].error(h[k], q[k], v[k], q[k + 1], v[k + 1]) for k in range(h.size)
    ]
    total = result.meta["error_estimate"] * ControlLaw.CALIBRATION
    assert total == pytest.approx(sum(per_step), rel=1e-9)
    first = [laws[1].error(h[k], q[k], v[k], q[k + 1], v[k + 1]) for k in np.flatnonzero(window)]
    assert sum(first) < sum(per_step[k] for k in np.flatnonzero(window))  # it would underrate
    # 3 of 100 steps are more than FIRST_ORDER_STEPS: said; one is not
    assert 3 > FIRST_ORDER_STEPS * result.n_steps
    assert any("first-order scheme" in w for w in result.meta["warnings"])
    one = simulate(system, options, solver=_failing(lo, lo + 1e-3))
    assert one.meta["first_order_steps"] == 1
    assert not any("first-order scheme" in w for w in one.meta["warnings"])


def test_no_retries_means_no_rung():
    system, options = _pendulum(max_retries=0)
    with pytest.raises(SolverFailure, match=WHY) as err:
        simulate(system, options, solver=_failing(0.05, 0.06))
    assert err.value.partial.meta["first_order_steps"] == 0


def test_a_failed_velocity_stage_names_itself():
    """The failed step's reason is the stage that failed, not the first stage's success."""
    system, options = _pendulum(h=1e-2, solver="nlp")
    model = SymbolicModel.build(system)
    solver = build_solver(build_kernel(model, options), options).solver
    assert isinstance(solver, VerletStep)
    # a velocity stage whose EoM bound no point meets (negative): the position stage passes
    strict = StepKernel(model, verification=Verification(eom=-1.0), integrator=Integrator.VERLET)
    attempt = attempt_function(strict, "daqp", options.friction, 1, whole=False)
    q, v = system.initial_state()
    sol = VerletStep(solver.first, attempt, "daqp").solve(StepInputs(0.0, q, v, 1e-2, 1e-2))
    assert sol.failed
    assert re.fullmatch(
        r"position stage: [^;]+; velocity stage \(QP over h/2\): EoM residual "
        r"\S+ N above its bound",
        sol.return_status,
    ), sol.return_status
    passed = solver.solve(StepInputs(0.0, q, v, 1e-2, 1e-2))
    assert not passed.failed and sol.return_status.startswith(
        f"position stage: {passed.return_status};"
    )
