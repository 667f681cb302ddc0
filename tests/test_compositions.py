"""The step solvers composed of others (step/predictor.py, step/friction.py) take any StepSolver:
here they wrap a solver that is not one of the engine's classes, passed to
`simulate(..., solver=...)`, and give the built-in arrays bit for bit."""

from __future__ import annotations

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.run.solvers import nlp_solver, qp_plugin
from nlpmbd.step.friction import FrictionFixedPoint
from nlpmbd.step.predictor import Predictor
from nlpmbd.step.qp import QPStep
from nlpmbd.step.solver import StepInputs, StepSolution, StepSolver


class Forwarding(StepSolver):
    """Any StepSolver: hands each step to another one and keeps the inputs it was given. It
    has no `adopt`, so a predictor's step is never taken as its own."""

    def __init__(self, inner: StepSolver) -> None:
        super().__init__(inner.kernel)
        self.inner, self.variable_h = inner, inner.variable_h
        self.seen: list[StepInputs] = []

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        self.seen.append(inputs)
        return self.inner.solve(inputs, warm)


ARRAYS = ("t", "q", "v", "lam", "friction_force", "eom_residual", "iterations")


def _same(a, b) -> None:
    for name in ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_the_friction_fixed_point_wraps_any_step_solver():
    system, _ = get_case("stick_slip").build({})
    options = SimulationOptions(t_end=0.05, h_min=2e-3, h_max=2e-3, solver="nlp")
    built_in = simulate(system, options)
    wrapped: list[Forwarding] = []

    def factory(kernel, opts):
        nlp = nlp_solver(kernel, opts)
        assert isinstance(nlp, FrictionFixedPoint)
        wrapped.append(Forwarding(nlp.inner))
        return FrictionFixedPoint(wrapped[0], opts.friction)

    result = simulate(system, options, solver=factory)
    _same(result, built_in)
    assert np.max(np.abs(built_in.friction_force)) > 0.01  # the block slides against friction
    assert built_in.meta["friction_solves"] > 0  # and the fixed point iterates on it
    normals = [s.friction_normal for s in wrapped[0].seen]
    assert all(n is not None for n in normals)
    assert max(float(np.max(n)) for n in normals) > 1.0  # the normal forces it was handed


def test_the_predictor_composes_any_two_step_solvers():
    system, _ = get_case("pendulum").build({})
    options = SimulationOptions(t_end=0.05, h_min=1e-4, h_max=1e-3, solver="nlp")
    predicted = simulate(system, options)
    assert predicted.meta["predicted_steps"] == predicted.h.size  # NLPStep adopts the QP steps
    plain = simulate(system, options.replace(predictor=False))
    correctors: list[Forwarding] = []

    def factory(kernel, opts):
        nlp = nlp_solver(kernel, opts.replace(predictor=False))
        correctors.append(Forwarding(nlp))
        qp = QPStep(kernel, qp_plugin(kernel, opts), backup=None, whole=False)
        return Predictor(qp, correctors[0])

    result = simulate(system, options, solver=factory)
    # a corrector without `adopt` solves every step itself, from the previous step: the NLP's
    # own arrays, and no step predicted
    _same(result, plain)
    assert result.meta["predicted_steps"] == 0
    assert len(correctors[0].seen) == result.h.size
