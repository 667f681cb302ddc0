"""The step solver of a run, composed from the options (the strategy objects of the step
layer): NLP, NLP behind the QP predictor, NLP inside the friction fixed point, or the QP with the
NLP as its fallback."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..model.symbolic import SymbolicModel
from ..step.config import Formulation, Integrator, QPPlugin, SolverPath
from ..step.fallback import WithFallback
from ..step.friction import FrictionFixedPoint
from ..step.kernel import StepKernel
from ..step.nlp import NLPStep
from ..step.predictor import Predictor
from ..step.qp import BACKUP_ROUNDS, QPStep
from ..step.qp_graph import attempt_function
from ..step.rows import joint_friction
from ..step.rows.impact import ImpactLaws
from ..step.solver import StepSolver
from ..step.verlet import VerletStep
from .chunk_graph import Sizing
from .option_groups import StepControl
from .options import SimulationOptions

#: Builds a run's step solver from its kernel and options (the `solver` of simulate).
SolverFactory = Callable[[StepKernel, SimulationOptions], StepSolver]


def build_kernel(
    model: SymbolicModel, options: SimulationOptions, q0: np.ndarray | None = None
) -> StepKernel:
    """The run's kernel; `q0`, the assembled start, where dependent equalities are found."""
    integrator = options.scheme.integrator
    if (
        integrator is Integrator.AUTO
        and model.has_friction
        and options.solver_path is SolverPath.NLP
    ):
        # the velocity stage's friction fixed point does not settle where the normal forces'
        # split is not unique (a block on four corners) on the NLP path: first order there
        integrator = Integrator.EULER
    return StepKernel(
        model,
        correction=options.scheme.gap_correction,
        renormalize=options.scheme.renormalize,
        verification=options.verification,
        curvature_guard=options.tolerances.curvature_guard,
        linearization=options.scheme.gap_linearization,
        integrator=integrator,
        q0=q0,
    )


def qp_plugin(kernel: StepKernel, options: SimulationOptions) -> QPPlugin:
    """The step QP's plugin, `auto` resolved (step/config.py, QPPlugin)."""
    plugin = options.path.qp_solver
    return QPPlugin.DAQP if plugin is QPPlugin.AUTO else plugin


def nlp_solver(kernel: StepKernel, options: SimulationOptions) -> StepSolver:
    s, tol = options.scheme, options.tolerances
    nlp = NLPStep(
        kernel,
        h_max=options.time.h_max,
        formulation=s.formulation,
        tol=tol.tol,
        ipopt=tol.ipopt,
        h_preference=s.h_preference,
        sigma=s.sigma,
        friction=options.friction,
    )
    m, plugin = kernel.model, qp_plugin(kernel, options)
    first: StepSolver = nlp
    if m.has_friction:
        first = FrictionFixedPoint(nlp, options.friction)
    elif predictable(kernel, options):
        first = Predictor(QPStep(kernel, plugin, backup=None, whole=False), nlp)
    if not kernel.verlet:
        return first
    # the velocity stage's friction fixed point starts from the position stage's normal
    # forces, which a contact set that changes within the step (a block settling on fewer
    # corners) moves far: 8 rounds left it unsettled; rounds run only while needed
    rounds = BACKUP_ROUNDS * 8
    attempt = attempt_function(kernel, plugin, options.friction, rounds, False, velocity=True)
    return VerletStep(first, attempt, plugin)


def predictable(kernel: StepKernel, options: SimulationOptions) -> bool:
    """Whether the QP predictor serves the NLP: the implicit form without friction,
    restitution, compliant contacts or flexible bodies (the predictor's point has no z block of
    flexible bodies, step/elastic.py)."""
    m = kernel.model
    plain = not (m.has_friction or m.has_restitution or m.n_compliant or m.flexible or m.has_soft)
    plain = plain and not m.joint_friction.n  # the NLP smooths joint friction, the QP does not
    implicit = options.scheme.formulation is Formulation.IMPLICIT
    return options.path.predictor and implicit and plain


@dataclass
class Plan:
    """The run's step solver, and the QP step and sizing of its chunks (no chunks: None)."""

    solver: StepSolver
    qp: QPStep | None = None
    sizing: Sizing = Sizing.FIXED
    nlp: NLPStep | None = None


def build_solver(kernel: StepKernel, options: SimulationOptions) -> Plan:
    """The run's step solver and chunks. The QP path runs chunks (h fixed, or the controller's)
    with the NLP for the steps they fail; auto with the NLP's h takes the predictor's test into
    the chunks where the predictor serves the NLP (PREDICTED), else the NLP in Python."""
    if options.solver_path is SolverPath.NLP:
        ImpactLaws(kernel.model.gap_laws).check_nlp()  # Newton's rows only
        joint_friction.check_nlp(kernel.model)  # constant bounds only
        solver = nlp_solver(kernel, options)
        auto = options.path.solver is SolverPath.AUTO
        if auto and predictable(kernel, options) and not kernel.verlet:
            assert isinstance(solver, Predictor) and isinstance(solver.corrector, NLPStep)
            qp = QPStep(kernel, qp_plugin(kernel, options), friction=options.friction)
            return Plan(solver, qp, Sizing.PREDICTED, solver.corrector)
        return Plan(solver)
    qp = QPStep(kernel, qp_plugin(kernel, options), friction=options.friction)
    # a step the QP fails is retried by the NLP on the same kernel (the same gap rows)
    fallback_options = options.replace(solver="nlp", predictor=False, codegen="auto")
    sizing = (
        Sizing.CONTROLLED if options.time.step_control is StepControl.CONTROLLER else Sizing.FIXED
    )
    return Plan(WithFallback(qp, lambda: nlp_solver(kernel, fallback_options)), qp, sizing)


def first_order(
    model: SymbolicModel,
    options: SimulationOptions,
    factory: SolverFactory | None = None,
    q0: np.ndarray | None = None,
) -> Callable[[], StepSolver]:
    """The last rung of a second-order run's retry ladder (step/retry.py): the run's step
    solver (its `factory`'s, else build_solver's) on a first-order kernel of the same model and
    options, built on the first call, once."""
    euler = options.replace(integrator=Integrator.EULER.value)

    def build() -> StepSolver:
        kernel = build_kernel(model, euler, q0)
        return factory(kernel, euler) if factory else build_solver(kernel, euler).solver

    return functools.cache(build)
