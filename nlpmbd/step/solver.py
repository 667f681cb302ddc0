"""What every step solver takes and gives: StepInputs -> StepSolution, behind the StepSolver
interface. The NLP (IPOPT), the QP, the predictor (QP first, then the NLP), the friction fixed
point and the QP-with-fallback are all StepSolvers; adding a backend is one subclass."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .kernel import StepKernel

#: Step status codes (the result's `status` array).
SOLVED, ACCEPTABLE, RETRIED, FAILED = 0, 1, 2, 3


@dataclass(frozen=True)
class StepInputs:
    """One step's data: the state at its start, the bounds of h, and the step's parameters.

    `curvature` False drops the second-order gap term (the last rung of the retry ladder);
    `applied` is an extra generalised force (6N, N and N m, body axes for moments) held constant
    over the step: the compliant contacts' force, evaluated by the run loop with their memory;
    `friction_normal` the normal forces (M) of the friction bounds mu_j lambda_j, given by the
    friction fixed point (step/friction.py) to a solver that takes them (None: its own).
    """

    t: float
    q: np.ndarray
    v: np.ndarray
    h_lo: float
    h_hi: float
    curvature: bool = True
    applied: np.ndarray | None = None
    friction_normal: np.ndarray | None = None


@dataclass
class StepSolution:
    """Everything one step produced (NumPy arrays; no solver types).

    `warm` is the solver's own restart data for the next step (e.g. IPOPT's primal and dual
    point), a dict of float arrays that a checkpoint stores as it is; None for solvers that
    have none.
    """

    h: float
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    lam_eq: np.ndarray
    eom_residual: float
    comp_residual: float
    norm_drift: float
    status: int  # SOLVED, ACCEPTABLE, RETRIED or FAILED
    iterations: int
    solve_time: float
    return_status: str
    warm: dict[str, np.ndarray] | None = None
    friction: np.ndarray | None = None  # (3, M) friction force on each contact's moving body
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.status == FAILED


class StepSolver(ABC):
    """Solves one step from StepInputs. Built once per simulation; `solve` is called per step."""

    #: True when the solver can choose h within [h_lo, h_hi]; False: it takes h = h_hi.
    variable_h: bool = False

    def __init__(self, kernel: StepKernel) -> None:
        self.kernel = kernel

    @abstractmethod
    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        """The step from `inputs`; `warm` is the previous step's solution (for warm starts).
        A step that misses a tolerance comes back with status FAILED, it never raises."""

    def adopt(self, inputs: StepInputs, other: StepSolution) -> StepSolution | None:
        """`other`, a step another solver took from `inputs` at h = inputs.h_hi, as this
        solver's solution: not FAILED when it solves this solver's step too, and its `warm`
        starts this solver from it; None when this solver cannot take another's step (the
        default). The predictor's hook (step/predictor.py)."""
        return None

    def counters(self) -> dict[str, int]:
        """Counts of this solver's special events so far (recorded in a result's meta)."""
        return {}


def finite(*values: Any) -> bool:
    """True when every number in `values` (floats, NumPy arrays) is finite. Their sum is finite
    exactly then, unless it overflows (NaN and inf propagate, inf - inf is NaN): one cheap test
    for the usual case."""
    total = 0.0
    for a in values:  # Python floats: ~10x faster than NumPy reductions on arrays this small
        total += sum(a.ravel().tolist()) if isinstance(a, np.ndarray) else a
    if math.isfinite(total):
        return True
    return all(np.all(np.isfinite(a)) for a in values)
