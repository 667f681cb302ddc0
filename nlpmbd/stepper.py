"""The stepping loop: build the step problem once, then solve one NLP per step."""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

import numpy as np

from .errors import InputError, SolverFailure
from .options import SimulationOptions
from .results import SimulationResult
from .step_problem import StepProblem, StepSolution
from .system import System

#: A joint may be violated by at most this much at t = 0 (m or rad).
ASSEMBLY_TOL = 1e-6


class _History:
    """Grows per-step lists and stacks them into a SimulationResult."""

    def __init__(self, t0: float, q0, v0, n_gap: int, n_eq: int, gap0, eq0, energy0) -> None:
        self.t, self.q, self.v = [t0], [q0], [v0]
        self.lam, self.lam_eq = [np.zeros(n_gap)], [np.zeros(n_eq)]
        self.gap, self.eq, self.energy = [gap0], [eq0], [energy0]
        self.h, self.eom, self.norm, self.comp = [], [], [], []
        self.iterations, self.solve_time, self.status = [], [], []

    def append(
        self,
        t: float,
        sol: StepSolution,
        gap,
        eq,
        energy,
        status: int,
        iters: int,
        solve_time: float,
    ) -> None:
        self.t.append(t)
        self.q.append(sol.q)
        self.v.append(sol.v)
        self.lam.append(sol.lam)
        self.lam_eq.append(sol.lam_eq)
        self.gap.append(gap)
        self.eq.append(eq)
        self.energy.append(energy)
        self.h.append(sol.h)
        self.eom.append(sol.eom_residual)
        self.norm.append(sol.norm_drift)
        self.comp.append(sol.comp_residual)
        self.iterations.append(iters)
        self.solve_time.append(solve_time)
        self.status.append(status)

    def result(self, meta: dict[str, Any], n_gap: int, n_eq: int, n_q: int, n_v: int):
        def stack(rows, width):
            return np.array(rows, dtype=float).reshape(len(rows), width)

        return SimulationResult(
            t=np.array(self.t),
            h=np.array(self.h),
            q=stack(self.q, n_q),
            v=stack(self.v, n_v),
            lam=stack(self.lam, n_gap),
            lam_eq=stack(self.lam_eq, n_eq),
            gap=stack(self.gap, n_gap),
            energy=stack(self.energy, 3),
            eom_residual=np.array(self.eom),
            norm_residual=np.array(self.norm),
            eq_residual=np.array(self.eq),
            comp_residual=np.array(self.comp),
            iterations=np.array(self.iterations, dtype=int),
            solve_time=np.array(self.solve_time),
            status=np.array(self.status, dtype=int),
            meta=meta,
        )


def _versions() -> dict[str, str]:
    out = {}
    for pkg in ("nlpmbd", "casadi", "numpy", "scipy", "pyquaternion", "matplotlib", "tqdm"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def step_bounds(remaining: float, h_min: float, h_max: float) -> tuple[float, float]:
    """Bounds [h_lo, h_hi] of the next step so that the run lands exactly on t_end.

    A step much shorter than h_min must never happen: the linearised constraints
    c(qm) + h C_v v = 0 [eqs. 23-24] correct the O(h^2) drift of c(qm) through a velocity of
    size c(qm) / h, so a sliver step would inject a large velocity. Hence when less than
    h_max + h_min is left, the remainder is split into two equal steps (each >= h_max / 2).
    """
    if remaining <= h_max * (1 + 1e-9):
        return remaining, remaining
    if remaining < h_max + h_min:
        return remaining / 2, remaining / 2
    return h_min, h_max


def simulate(
    system: System,
    options: SimulationOptions,
    *,
    progress: bool = False,
    meta: dict[str, Any] | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> SimulationResult:
    """Simulate `system` from its initial state to options.t_end.

    Raises InputError for an inconsistent initial configuration and SolverFailure (carrying the
    partial result, `completed: false`) when a step fails after the retry ladder: warm start,
    cold start, then (variable h only) a four times smaller upper bound on h.
    """
    if not isinstance(options, SimulationOptions):
        raise InputError(f"options must be SimulationOptions, got {type(options).__name__}")
    if not isinstance(system, System):
        raise InputError(f"system must be a System, got {type(system).__name__}")
    wall0 = time.perf_counter()
    q, v = system.initial_state()
    problem = StepProblem.build(system, options)
    m = problem.model
    t = 0.0

    def diagnostics(q_, v_, t_):
        gap = np.asarray(m.Phi(q_)).ravel()
        eq = float(np.linalg.norm(np.asarray(m.Phi_eq(q_, t_)).ravel()))
        kin, pot = np.asarray(m.energy(q_, v_)).ravel()
        return gap, eq, np.array([kin, pot, kin + pot])

    gap0, eq0, e0 = diagnostics(q, v, t)
    eq_labels, gap_labels = system.eq_labels, system.gap_labels
    if eq0 > ASSEMBLY_TOL:
        vals = np.abs(np.asarray(m.Phi_eq(q, t)).ravel())
        worst = eq_labels[int(np.argmax(vals))]
        raise InputError(
            f"initial configuration violates joint constraint {worst} by "
            f"{vals.max():.3g} (allowed {ASSEMBLY_TOL})"
        )
    if gap0.size and gap0.max() > ASSEMBLY_TOL:
        worst = gap_labels[int(np.argmax(gap0))]
        raise InputError(
            f"bodies start penetrating at contact {worst} by {gap0.max():.3g} m "
            f"(allowed {ASSEMBLY_TOL})"
        )

    info = dict(meta or {})
    info.update(
        {
            "options": options.as_dict(),
            "bodies": [b.name for b in system.bodies],
            "contact_labels": gap_labels,
            "eq_labels": eq_labels,
            "gravity": system.gravity.tolist(),
            "versions": _versions(),
            "completed": False,
        }
    )
    hist = _History(t, q, v, m.n_gap, m.n_eq, gap0, eq0, e0)
    n_q, n_v = q.size, v.size

    def finish(completed: bool, message: str) -> SimulationResult:
        info.update(completed=completed, message=message, wall_time=time.perf_counter() - wall0)
        return hist.result(info, m.n_gap, m.n_eq, n_q, n_v)

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=options.t_end,
            unit="s",
            unit_scale=False,
            mininterval=0.5,
            bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} s [{elapsed}<{remaining}]",
        )
    warm: StepSolution | None = None
    eps = 1e-6 * options.h_min  # no sliver of a last step from round-off
    step = 0
    try:
        while t < options.t_end - eps:
            h_lo, h_hi = step_bounds(options.t_end - t, options.h_min, options.h_max)
            attempts = [(warm, h_hi), (None, h_hi)]
            if h_lo < h_hi:
                attempts.append((None, max(h_lo, 0.25 * h_hi)))
            attempts = attempts[: 1 + options.max_retries]
            if warm is None:  # the first step has nothing to warm from
                attempts = attempts[1:] or attempts
            iters, spent, sol = 0, 0.0, None
            for k, (w, hi) in enumerate(attempts):
                sol = problem.solve(t, q, v, w, h_lo, hi)
                iters += sol.iterations
                spent += sol.solve_time
                if sol.status < 3:
                    status = 2 if k > 0 else sol.status
                    break
            if sol is None or sol.status == 3:
                raise SolverFailure(
                    f"step {step + 1} at t = {t:.6g} s failed after {len(attempts)} attempt(s): "
                    f"IPOPT returned {sol.return_status if sol else 'nothing'}"
                )
            t = t + sol.h
            q, v = sol.q, sol.v
            gap, eq, e = diagnostics(q, v, t)
            hist.append(t, sol, gap, eq, e, status, iters, spent)
            warm = sol
            step += 1
            if bar is not None:
                bar.update(sol.h)
            if on_step is not None:
                on_step(step, t)
    except SolverFailure as err:
        err.partial = finish(False, str(err))
        raise
    except KeyboardInterrupt as err:
        raise SolverFailure("interrupted by the user", finish(False, "interrupted")) from err
    finally:
        if bar is not None:
            bar.close()
    return finish(True, "completed")
