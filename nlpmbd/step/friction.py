"""Coulomb friction as a fixed point of Tresca steps (model/contact.py, HardContact).

Each solve of the NLP takes the friction bounds g_j = mu_j lambda_j with lambda_j given (the
parameters' `friction_normal`); the step is solved again with the normal forces it produced
until they stop changing (Friction.tol; at most Friction.iterations solves, each warm-started
from the one before). The fixed point is a Coulomb step: no normal dilation, unlike Anitescu's
convex relaxation.
"""

from __future__ import annotations

import numpy as np

from .config import Friction
from .nlp import NLPStep
from .solver import FAILED, StepInputs, StepSolution, StepSolver


class FrictionFixedPoint(StepSolver):
    """Wraps an NLPStep whose graph has friction terms."""

    variable_h = True

    def __init__(self, nlp: NLPStep, settings: Friction) -> None:
        super().__init__(nlp.kernel)
        self.nlp, self.settings = nlp, settings
        self.extra_solves = 0  # solves beyond the first, over the run
        self.unconverged = 0  # steps that reached settings.iterations
        self._last_normal = np.zeros(0)

    def counters(self) -> dict[str, int]:
        return {"friction_solves": self.extra_solves, "friction_unconverged": self.unconverged}

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        model = self.kernel.model
        nc, tol = model.n_gap, self.settings.tol
        normal = self._last_normal.copy() if self._last_normal.size == nc else np.zeros(nc)
        if warm is not None and warm.lam.size == nc:
            normal = warm.lam.copy()
        iters, spent, start = 0, 0.0, warm
        for _ in range(self.settings.iterations):
            sol = self.nlp.solve(inputs, start, friction_normal=normal)
            iters += max(sol.iterations, 0)
            spent += sol.solve_time
            if sol.status == FAILED:
                break
            change = np.max(model.mu_static * np.abs(sol.lam - normal), initial=0.0)
            size = np.max(model.mu_static * np.abs(sol.lam), initial=0.0)
            # over redundant contacts the split of lambda is not unique, but v is (the step is
            # strictly convex in v): a step whose v no longer moves has converged too
            same_v = (
                start is not None
                and start is not warm
                and np.max(np.abs(sol.v - start.v), initial=0.0)
                <= tol * max(1.0, np.max(np.abs(sol.v), initial=0.0))
            )
            normal, start = sol.lam.copy(), sol
            if change <= tol * max(size, 1.0) or same_v:
                break
            self.extra_solves += 1
        else:
            self.unconverged += 1
        sol.iterations, sol.solve_time = iters, spent
        self._last_normal = sol.lam.copy()
        return sol
