"""Advancing a RunState: one step solved in Python (any solver, the step-size controller, the
retry ladder), or a chunk of fixed-h QP steps evaluated by one CasADi Function."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import SolverFailure
from ..model.symbolic import SymbolicModel
from ..step.numeric import Numeric
from ..step.qp import normal_history, predictor
from ..step.retry import Solved, solve_with_retries
from ..step.solver import StepInputs, StepSolver
from .chunk_graph import CHUNK_COUNTERS
from .chunks import ChunkRunner, chunk_end
from .contact_memory import CompliantContacts
from .controller import StepController, control_law
from .grid import step_bounds
from .history import History
from .options import SimulationOptions
from .state import RunState
from .validity import RunChecks


@dataclass
class Stepper:
    """What advances a run: the model, its solver, and where the steps are recorded.
    `estimator` gives every step's local error estimate (run/controller.py); `controller` is
    the same law when it also chooses h (step_control = controller); `first_order` the last
    rung of a second-order run's retry ladder (step/retry.py), whose steps take the first-order
    law's estimate."""

    model: SymbolicModel
    options: SimulationOptions
    solver: StepSolver
    history: History
    contact_memory: CompliantContacts
    checks: RunChecks
    estimator: StepController
    controller: StepController | None = None
    runner: ChunkRunner | None = None
    parameters: np.ndarray | None = None  # the chunks' PARAMETERS, one row per column
    first_order: Callable[[], StepSolver] | None = None

    # ---- one step in Python ------------------------------------------------------------
    def one_step(self, state: RunState) -> float:
        """Solve and record the next step; returns the time it covered."""
        grid = self.options.time
        # the controller's h stands in for h_max: a landing step never exceeds it
        h_lo, h_hi = step_bounds(grid.t_end - state.t, grid.h_min, state.h_next)
        inputs = StepInputs(
            state.t, state.q, state.v, h_lo, h_hi, True, self.contact_memory.applied()
        )
        if self.controller is None:
            smaller = (h_lo, max(h_lo, 0.25 * h_hi)) if h_lo < h_hi else None
            solved = self._solve(state, inputs, smaller)
        else:
            solved = self._controlled(state, inputs)
        return self._record(state, solved)

    def _solve(
        self, state: RunState, inputs: StepInputs, smaller: tuple[float, float] | None
    ) -> Solved:
        solved = solve_with_retries(
            self.solver,
            inputs,
            state.warm,
            smaller,
            self.options.tolerances.max_retries,
            state.step,
            self.first_order if self.options.tolerances.max_retries else None,
        )
        state.count("curvature_fallbacks", solved.curvature_fallback)
        return solved

    @functools.cached_property
    def _first_order_law(self) -> StepController:
        m = self.model
        return StepController(control_law(m, False), self.options, m.n_q, m.n_v)

    def _error(self, solved: Solved, q0: np.ndarray, v0: np.ndarray) -> float:
        """The step's local error estimate: a first-order step's is the first-order law's
        (run/controller.py), which the second-order one would underrate."""
        sol = solved.solution
        law = self._first_order_law if solved.first_order else self.estimator
        return law.error(sol.h, q0, v0, sol.q, sol.v)

    def _controlled(self, state: RunState, inputs: StepInputs) -> Solved:
        """A step at the controller's h, halved (down to h_min) while the true gap penetrates
        by more than controller_penetration of a clearance; a landing step (a fixed pair of
        bounds) is never halved, it could leave a sliver of a step."""
        h_min, limit = self.options.time.h_min, self.options.tolerances.controller_penetration
        h, landing = inputs.h_hi, inputs.h_lo == inputs.h_hi
        iters, spent, rejected = 0, 0.0, False
        while True:
            h_small = max(h_min, 0.25 * h)
            smaller = None if landing or h_small >= h else (h_small, h_small)
            attempt = StepInputs(inputs.t, inputs.q, inputs.v, h, h, True, inputs.applied)
            solved = self._solve(state, attempt, smaller)
            iters, spent, h = iters + solved.iterations, spent + solved.solve_time, solved.h_hi
            sol, c = solved.solution, self.controller
            assert c is not None
            err = self._error(solved, state.q, state.v)
            # a first-order step is not rejected on its error (its law rejects none)
            if not (landing or h <= h_min or solved.first_order) and c.too_large(sol.h, err):
                state.count("controller_rejections")
                rejected, h = True, c.next(sol.h, err, True)
                continue
            if landing or h <= h_min or self.solver.kernel.penetration_fraction(sol.q) <= limit:
                break
            state.count("controller_rejections")
            rejected = True
            h = max(h_min, 0.5 * h)
        state.h_next = c.next(sol.h, err, rejected)
        return Solved(
            sol, solved.status, iters, spent, h, solved.curvature_fallback, solved.first_order
        )

    def _record(self, state: RunState, solved: Solved) -> float:
        """Take a solved step into the state and the history: update, gap projection."""
        sol, m = solved.solution, self.model
        t0 = state.t
        state.error += self._error(solved, state.q, state.v)
        state.count("first_order_steps", solved.first_order)  # once per step taken
        state.t = state.t + sol.h
        state.q, state.v = sol.q, sol.v
        gap_raw = self._gaps(state.q) if m.n_gap else -np.inf
        projection = self.solver.kernel.projection
        if projection is not None and gap_raw > 0:
            state.q, ok = projection.apply(state.q, state.t)
            state.count("projection_failures", not ok)
        self.history.add_step(
            sol, solved.status, solved.iterations, solved.solve_time, gap_raw if m.n_gap else 0.0
        )
        applied = self.contact_memory.after_step(state)
        current = self.contact_memory.current
        gap_c = current.gap if self.contact_memory.n and current is not None else None
        self.history.add_point(
            state.t, state.q, state.v, sol.lam, sol.lam_eq, sol.friction, gap_c, applied
        )
        state.warm = sol
        state.step += 1
        self._diverged(state.t, state.q)
        return state.t - t0

    @functools.cached_property
    def _phi(self) -> Numeric:
        return Numeric(self.model.Phi)

    def _gaps(self, q: np.ndarray) -> float:
        """max_j Phi_j(q) (in place: no DM conversions in the Python loop)."""
        (phi,) = self._phi(q)  # model.Phi's one output
        return float(np.max(np.atleast_1d(phi)))

    def _diverged(self, t: Any, q: np.ndarray) -> None:
        why = self.checks.diverged(t, q)
        if why:
            raise SolverFailure(why)

    # ---- a chunk of QP steps -----------------------------------------------------------
    def chunk(self, state: RunState) -> float:
        """Run the next chunk from `state`; a step the chunk could not take is taken in Python.
        Returns the time covered."""
        assert self.runner is not None and self.parameters is not None
        t0, layout = state.t, self.runner.state
        lam, lam1, lam2 = normal_history(state.warm, self.model.n_gap)
        X0 = layout.stack(
            {
                "t": state.t,
                "q": state.q,
                "v": state.v,
                "lam": lam,
                "lam1": lam1,
                "lam2": lam2,
                **predictor(state.warm, layout["lag"].stop - layout["lag"].start),
                "z": state.impact_speed,
                "counts": np.zeros(len(CHUNK_COUNTERS)),
                "h_next": state.h_next,
                "rejected": 0.0,
                "column": 0.0,
                "failed": 0.0,
            }
        )
        rows = self.runner.run(X0, self.parameters)
        X = layout.split(rows.state)
        state.h_next = X["h_next"].item()
        state.count("controller_rejections", rows.rejected)
        state.count("chunk_steps_discarded", rows.discarded)
        for name, k in zip(CHUNK_COUNTERS, X["counts"], strict=True):  # the steps taken
            state.count(name, int(k))
        if rows.k:
            self._store(state, rows.k, rows.points, rows.steps)
            state.t, state.q, state.v = X["t"].item(), X["q"].copy(), X["v"].copy()
            state.impact_speed = X["z"].copy()
            state.error += float(np.sum(rows.error))
            self.contact_memory.start(state)
            state.warm = chunk_end(rows, layout)
            state.step += rows.k
            state.count("chunk_steps", rows.k)
        if rows.failed:
            self.one_step(state)  # the step the chunk could not take
        self.runner.after(self.options.time.t_end - state.t)
        return state.t - t0

    def _store(self, state: RunState, k: int, points: dict, steps: dict) -> None:
        """A chunk's k rows into the history, then checked there (contiguous rows: no copy of
        the chunk's); the partial result ends at the first step past the divergence limit."""
        history = self.history
        history.extend(**points, **steps)
        q, nodes = history.tail("q", k), history.tail("node_q", k).reshape(k, -1)
        bad = self.checks.diverged_at(
            history.tail("t", k), np.hstack([q, nodes]) if nodes.size else q
        )
        if bad:
            index, message = bad
            history.drop(k - index - 1)
            state.count("chunk_steps", index + 1)
            raise SolverFailure(message)
