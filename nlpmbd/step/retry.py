"""The retry ladder of a step and the curvature guard, for any StepSolver.

A step that fails is solved again: cold (no warm start), then with smaller h bounds (when
given), then without the second-order gap term (a Taylor estimate from the previous velocity,
which an impact within the step can make wrong), at most 1 + max_retries solves. A solved step
that still penetrates by more than the kernel's curvature_guard of a clearance is solved again
without the term, and the step that penetrates less is kept (the guard).

The last rung, given a `first_order` solver (a second-order run's, run/solvers.py): a step that
every attempt of the run's scheme failed is taken once more, cold, by the first-order scheme on
the same model (then with the smaller h bounds, when given). The second-order step solves two
friction fixed points, the velocity stage's at the new positions from the position stage's
normal forces, which a journal pressed hard on its bearing wall can keep from settling (the
`four_bar_clearance` case, before the QP fixed point's continuation of step/qp_rounds.py); the
first-order step has one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..errors import SolverFailure
from .solver import FAILED, RETRIED, StepInputs, StepSolution, StepSolver


@dataclass(frozen=True)
class Solved:
    """A step that passed: its solution, the status recorded (RETRIED after a failed attempt),
    the iterations and solver time of all attempts, the h_hi of the attempt that succeeded, and
    whether the guard replaced it by the solve without the second-order term; `first_order`
    when the last rung (the first-order scheme) took it."""

    solution: StepSolution
    status: int
    iterations: int
    solve_time: float
    h_hi: float
    curvature_fallback: bool
    first_order: bool = False


def solve_with_retries(
    solver: StepSolver,
    inputs: StepInputs,
    warm: StepSolution | None,
    smaller: tuple[float, float] | None,
    max_retries: int,
    step: int,
    first_order: Callable[[], StepSolver] | None = None,
) -> Solved:
    """Solve one step through the ladder; raises SolverFailure if every attempt fails.
    `first_order` gives the last rung's solver (called only when the rung is needed)."""
    ladder: list[tuple[StepSolution | None, StepInputs]] = [(warm, inputs), (None, inputs)]
    if smaller is not None:
        ladder.append((None, _smaller(inputs, smaller)))
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
    why = sol.return_status if sol else "nothing"
    attempt, rescued = ladder[k][1], False
    rungs = [inputs] if smaller is None else [inputs, _smaller(inputs, smaller)]
    if status == FAILED and first_order is not None:
        solver, warm = first_order(), None
        for attempt in rungs:
            sol = solver.solve(attempt, None)
            iters, spent = iters + sol.iterations, spent + sol.solve_time
            rescued, last = not sol.failed, sol.return_status
            if rescued:
                break
        status = RETRIED if rescued else FAILED
        why = f"{why}; first-order step: {last}"
    if sol is None or status == FAILED:
        tries = len(ladder) + (len(rungs) if first_order is not None else 0)
        raise SolverFailure(
            f"step {step + 1} at t = {inputs.t:.6g} s failed after {tries} attempt(s): {why}"
        )
    fell_back = False
    if solver.kernel.uses_curvature and attempt.curvature:
        sol, fell_back = _guard(solver, sol, attempt, warm)
    return Solved(sol, status, iters, spent, attempt.h_hi, fell_back, rescued)


def _smaller(inputs: StepInputs, smaller: tuple[float, float]) -> StepInputs:
    """`inputs` with the smaller h bounds of the ladder."""
    return replace(inputs, h_lo=smaller[0], h_hi=smaller[1])


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
