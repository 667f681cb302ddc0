"""The retry ladder of a step and the curvature guard, for any StepSolver.

A step that fails is solved again: cold (no warm start), then with smaller h bounds (when
given), then without the second-order gap term (a Taylor estimate from the previous velocity,
which an impact within the step can make wrong), at most 1 + max_retries solves. A solved step
that still penetrates by more than the kernel's curvature_guard of a clearance is solved again
without the term, and the step that penetrates less is kept (the guard).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import SolverFailure
from .solver import FAILED, RETRIED, StepInputs, StepSolution, StepSolver


@dataclass(frozen=True)
class Solved:
    """A step that passed: its solution, the status recorded (RETRIED after a failed attempt),
    the iterations and solver time of all attempts, the h_hi of the attempt that succeeded, and
    whether the guard replaced it by the solve without the second-order term."""

    solution: StepSolution
    status: int
    iterations: int
    solve_time: float
    h_hi: float
    curvature_fallback: bool


def solve_with_retries(
    solver: StepSolver,
    inputs: StepInputs,
    warm: StepSolution | None,
    smaller: tuple[float, float] | None,
    max_retries: int,
    step: int,
) -> Solved:
    """Solve one step through the ladder; raises SolverFailure if every attempt fails."""
    ladder: list[tuple[StepSolution | None, StepInputs]] = [(warm, inputs), (None, inputs)]
    if smaller is not None:
        ladder.append((None, replace(inputs, h_lo=smaller[0], h_hi=smaller[1])))
    if solver.kernel.uses_curvature:
        ladder.append((None, replace(inputs, curvature=False)))
    if warm is None:  # the first step has nothing to warm from
        ladder = ladder[1:]
    ladder = ladder[: 1 + max_retries]
    iters, spent, sol, status, k = 0, 0.0, None, FAILED, 0
    for k, (start, attempt) in enumerate(ladder):
        sol = solver.solve(attempt, start)
        iters += sol.iterations
        spent += sol.solve_time
        if not sol.failed:
            status = RETRIED if k > 0 else sol.status
            break
    if sol is None or status == FAILED:
        raise SolverFailure(
            f"step {step + 1} at t = {inputs.t:.6g} s failed after {len(ladder)} attempt(s): "
            f"{sol.return_status if sol else 'nothing'}"
        )
    attempt = ladder[k][1]
    fell_back = False
    if solver.kernel.uses_curvature and attempt.curvature:
        sol, fell_back = _guard(solver, sol, attempt, warm)
    return Solved(sol, status, iters, spent, attempt.h_hi, fell_back)


def _guard(
    solver: StepSolver, sol: StepSolution, attempt: StepInputs, warm: StepSolution | None
) -> tuple[StepSolution, bool]:
    kernel = solver.kernel
    frac = kernel.penetration_fraction(sol.q)
    if frac <= kernel.curvature_guard:
        return sol, False
    plain = solver.solve(replace(attempt, curvature=False), warm)
    plain.iterations += sol.iterations
    plain.solve_time += sol.solve_time
    if not plain.failed and kernel.penetration_fraction(plain.q) < frac:
        plain.status = max(plain.status, sol.status)
        return plain, True
    return sol, False
