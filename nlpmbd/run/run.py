"""Run: one simulation built once (model, kernel, solver, history, metadata), the RunState it
starts from, and the result it ends with."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..io.result import SimulationResult
from ..model.symbolic import SymbolicModel
from ..model.system import System
from ..step.config import COMPILED_PLUGINS
from .checkpoint import restore, resume_state
from .chunk_graph import chunk_parameters
from .chunks import ChunkRunner
from .contact_memory import CompliantContacts
from .controller import ControlLaw, StepController, control_law
from .grid import end_tolerance
from .history import History
from .limits import check_assembly, check_run_size, expected_points
from .meta import run_info
from .option_groups import Codegen, StepControl
from .options import SimulationOptions
from .solvers import Plan, SolverFactory, build_kernel, build_solver, first_order
from .state import RunState
from .stepping import Stepper
from .validity import RunChecks


class Run:
    def __init__(
        self,
        system: System,
        options: SimulationOptions,
        meta: dict[str, Any] | None,
        force: bool,
        solver: SolverFactory | None = None,
    ) -> None:
        self.system, self.options = system, options
        q, _ = system.initial_state()
        m = self.model = SymbolicModel.build(system)
        check_assembly(system, m, q)
        check_run_size(m, options, force)
        self.checks = RunChecks(system, m)
        self.kernel = build_kernel(m, options, q)
        if solver is None:
            self.plan = build_solver(self.kernel, options)
        else:  # a solver of the caller's: the Python loop, no chunks
            self.plan = Plan(solver(self.kernel, options))
        step_solver, self.qp = self.plan.solver, self.plan.qp
        self.law = control_law(m, self.kernel.verlet)
        estimator = StepController(self.law, options, m.n_q, m.n_v)
        controlled = options.time.step_control is StepControl.CONTROLLER
        self.history = History(m, *expected_points(m, options))
        self.stepper = Stepper(
            m,
            options,
            step_solver,
            self.history,
            CompliantContacts(m),
            self.checks,
            estimator,
            estimator if controlled else None,
        )
        if self.kernel.verlet:
            self.stepper.first_order = first_order(m, options, solver, q)
        self.end_tolerance = end_tolerance(options.time.h_min)
        self.info = run_info(system, options, meta)
        # what auto resolved to for this system
        self.info["integrator"] = self.kernel.integrator.value
        self.info["gap_correction"] = self.kernel.correction.value
        self.resumed = False

    def start(self, resume: SimulationResult | None) -> RunState:
        """The state at t = 0, or the one a checkpoint stopped at."""
        compliant = self.stepper.contact_memory
        if resume is None:
            q, v = self.system.initial_state()
            controller = self.stepper.controller
            h_next = controller.first() if controller else self.options.time.h_max
            state = RunState(0.0, q, v, h_next, np.zeros(self.model.n_compliant))
            gap = compliant.at(0.0, q, v, state.impact_speed).gap
            self.history.add_point(
                0.0, q, v, np.zeros(self.model.n_gap), np.zeros(self.model.n_eq), None, gap
            )
        else:
            arrays, state = restore(resume, self.system, self.options)
            self.history.extend(**arrays)
            self.resumed = True
        compliant.start(state)
        return state

    def prepare(self, state: RunState) -> None:
        """The chunk Function of the QP path (compiled to C if asked)."""
        o = self.options
        if self.qp is None:
            return
        path = o.path
        codegen = path.codegen if self.qp.plugin in COMPILED_PLUGINS else Codegen.OFF
        n, plan = path.chunk_steps, self.plan
        self.stepper.runner = ChunkRunner(self.qp, n, codegen, self.law, plan.sizing, plan.nlp)
        self.stepper.parameters = np.tile(chunk_parameters(o, self.law), (n, 1))
        # the initial point's derived rows now (model.report mapped over one point), not
        # in the first chunk's reading: the same batch either way
        self.history.flush()

    def counters(self, state: RunState) -> dict[str, int]:
        solver = dict(self.stepper.solver.counters())
        if self.kernel.projection is not None:
            solver.update(self.kernel.projection.counters())
        return state.totals(solver)

    def finish(
        self, state: RunState, completed: bool, message: str, wall0: float
    ) -> SimulationResult:
        totals = self.counters(state)
        runner = self.stepper.runner
        if runner is not None and completed:
            runner.close()
        info = self.info
        info.update(
            completed=completed,
            message=message,
            **totals,
            codegen=runner.codegen if runner else "off",
            wall_time=time.perf_counter() - wall0,
            resumed=self.resumed,
            error_estimate=state.error / ControlLaw.CALIBRATION,
        )
        info.pop("resume", None)
        if not completed:
            info["resume"] = resume_state(state, totals)
        result = self.history.result(dict(info))
        # the caller's warnings (a forced resume's) first, then the validity checks'
        given = [w for w in info.get("warnings") or [] if isinstance(w, str)]
        result.meta["warnings"] = [*given, *self.checks.warnings(result)]
        return result
