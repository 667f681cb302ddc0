"""The predictor: a StepSolver composed of two, a fast one that takes the step at h = h_hi
(the QP) and one that may choose h (the NLP).

The prediction is kept when the second solver adopts it (StepSolver.adopt: for the NLP, when
it is a KKT point of the NLP that passes the kernel's acceptance test, step/adoption.py);
otherwise the second solver runs, started from what its adoption gave (for IPOPT: the QP's
point, primal and dual), or from the previous step when the prediction failed.
"""

from __future__ import annotations

import time
from dataclasses import replace

from .solver import StepInputs, StepSolution, StepSolver


class Predictor(StepSolver):
    def __init__(self, predictor: StepSolver, corrector: StepSolver) -> None:
        super().__init__(corrector.kernel)
        self.predictor, self.corrector = predictor, corrector
        self.variable_h = corrector.variable_h
        self.predicted = 0

    def counters(self) -> dict[str, int]:
        out = {**self.predictor.counters(), **self.corrector.counters()}
        return {**out, "predicted_steps": self.predicted}

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        tic = time.perf_counter()
        # the prediction at h = h_hi, from scratch: it uses nothing of the previous step
        guess = self.predictor.solve(replace(inputs, h_lo=inputs.h_hi), None)
        start = warm
        if not guess.failed:
            own = self.corrector.adopt(inputs, guess)
            if own is not None and not own.failed:
                self.predicted += 1
                own.solve_time = time.perf_counter() - tic
                return own
            if own is not None:
                start = own
        sol = self.corrector.solve(inputs, start)
        sol.solve_time = time.perf_counter() - tic
        return sol
