"""RunState: everything the stepping loop carries from one step to the next, and what a
checkpoint stores to resume exactly there."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..io.schema import COUNTERS as META_COUNTERS
from ..step.solver import StepSolution

#: Counters of the loop itself (the solvers report theirs through StepSolver.counters).
LOOP_COUNTERS = (
    "projection_failures",
    "curvature_fallbacks",
    "controller_rejections",
    "chunk_steps",
    "chunk_steps_discarded",
    "first_order_steps",
)
#: Every counter recorded in meta.json, zero when it does not apply (io/schema.py says what each
#: counts); the loop's, the solvers' and the chunks' counts of one name add up.
COUNTERS = tuple(META_COUNTERS)
assert set(LOOP_COUNTERS) <= set(COUNTERS)


@dataclass
class RunState:
    """The state of a run between two steps.

    t, q, v: time and state; step: steps taken; warm: the last step's solution (the next
    step's warm start); h_next: the step-size controller's next h (h_max without one);
    counts: the loop's own counters; earlier: all counters of the run this one resumes;
    impact_speed: per compliant contact, its penetration speed when it began (the contact law's
    memory, model/contact.py); error: the sum of the steps' local error estimates (m,
    run/controller.py), the resumed run's included (meta error_estimate: over CALIBRATION).
    """

    t: float
    q: np.ndarray
    v: np.ndarray
    h_next: float
    impact_speed: np.ndarray
    step: int = 0
    warm: StepSolution | None = None
    error: float = 0.0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LOOP_COUNTERS, 0))
    earlier: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))

    def count(self, name: str, k: int | bool = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + int(k)

    def totals(self, solver_counters: dict[str, int]) -> dict[str, int]:
        """Every counter of COUNTERS: this run's (the solvers' plus the loop's) plus the
        resumed run's."""
        now = dict.fromkeys(COUNTERS, 0)
        for name, k in [*solver_counters.items(), *self.counts.items()]:
            now[name] = now.get(name, 0) + int(k)
        return {k: int(now[k]) + int(self.earlier.get(k, 0)) for k in COUNTERS}
