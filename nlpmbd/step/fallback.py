"""A StepSolver that hands the steps its primary solver fails to a second one (built on first
use): the fixed-h QP path falls back to the NLP, cold-started at the same h."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .solver import StepInputs, StepSolution, StepSolver


class WithFallback(StepSolver):
    def __init__(self, primary: StepSolver, make_fallback: Callable[[], StepSolver]) -> None:
        super().__init__(primary.kernel)
        self.primary, self._make = primary, make_fallback
        self.fallback: StepSolver | None = None
        self.fallback_steps = 0
        self.variable_h = primary.variable_h

    def counters(self) -> dict[str, int]:
        out = dict(self.primary.counters())
        if self.fallback is not None:
            out.update(self.fallback.counters())
        out["qp_fallback_steps"] = self.fallback_steps
        return out

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        first = self.primary.solve(inputs, warm)
        if not first.failed:
            return first
        if self.fallback is None:
            self.fallback = self._make()
        self.fallback_steps += 1
        sol = self.fallback.solve(replace(inputs, h_lo=inputs.h_hi), None)
        sol.solve_time += first.solve_time
        return sol
