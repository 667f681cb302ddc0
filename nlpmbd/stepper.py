"""The stepping loop: build the step problem once, then solve one NLP per step."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from importlib import metadata
from typing import Any

import numpy as np

from .checkpoint import restore, resume_state
from .errors import InputError, SolverFailure
from .fast_loop import ChunkRunner, state_of
from .history import History
from .model import SymbolicModel
from .options import SimulationOptions
from .qp_step import QPStep
from .results import SimulationResult
from .step_problem import CURVATURE_GUARD, StepProblem, StepSolution
from .system import System
from .validity import RunChecks, check_run_size

#: Counters of a run recorded in meta.json (carried over when a run is resumed).
COUNTERS = (
    "projection_failures",
    "curvature_fallbacks",
    "controller_rejections",
    "chunk_steps",
    "chunk_steps_discarded",
    "projection_nlp_solves",
    "predicted_steps",
    "qp_fallback_steps",
    "qp_backup_solves",
    "friction_solves",
    "friction_unconverged",
)

#: A joint may be violated by at most this much at t = 0 (m or rad).
ASSEMBLY_TOL = 1e-6


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


def _penetration_fraction(problem: StepProblem, q: np.ndarray) -> float:
    phi = np.asarray(problem.model.Phi(q)).ravel()
    scale = np.asarray(problem.gap_scales, dtype=float)
    if phi.size == 0 or scale.size != phi.size:
        return 0.0
    frac = np.where(scale > 0, phi / np.where(scale > 0, scale, 1.0), 0.0)
    return float(frac.max())


def _guard_curvature(problem, sol, t, q, v, warm, h_lo, h_hi):
    """The second-order gap term is a Taylor estimate built from the previous velocity; during
    impacts and chatter the velocity changes within the step and the estimate can point the
    wrong way. If the step still penetrates by more than CURVATURE_GUARD of a clearance, solve
    it again without the term and keep whichever step penetrates less."""
    frac = _penetration_fraction(problem, sol.q)
    if frac <= CURVATURE_GUARD:
        return sol, 0
    plain = problem.solve(t, q, v, warm, h_lo, h_hi, False)
    plain.iterations += sol.iterations
    plain.solve_time += sol.solve_time
    if plain.status < 3 and _penetration_fraction(problem, plain.q) < frac:
        plain.status = max(plain.status, sol.status)
        return plain, 1
    return sol, 0


#: A controller step whose true gap (before correction) penetrates by more than this fraction
#: of a clearance is rejected and solved again with half the step.
CONTROLLER_PENETRATION = 0.1


class StepController:
    """Step-size control of our own (step_control = "controller"), an alternative to the
    paper's NLP-chosen h, which is not error control: with no active contact the Gauss
    objective does not depend on h.

    Every step is solved at a fixed h. The local error of the semi-implicit Euler position
    update q_n = q + h v_n against the trapezoidal one q + h (v_n + v_{n-1}) / 2 is the
    mass-weighted RMS displacement (m)
        err = h/2 * sqrt(dv^T M dv / m_total),  dv = v_n - v_{n-1},
    and the next step is
        h_next = clip(h * clamp(0.9 * sqrt(error_tol / err), 0.5, 2), h_min, h_max)
    (err = O(h^2) for smooth motion, hence the square root). The first step is h_min, since
    nothing is known yet. No step is rejected on err: an impact makes dv large whatever h is,
    so h only shrinks after it and grows back. Steps are rejected for penetration only (simulate),
    and after such a rejection h does not grow on the next step (the usual rule after a rejected
    step; otherwise every other step is rejected while penetration limits h).
    """

    def __init__(self, options: SimulationOptions, M: np.ndarray, total_mass: float) -> None:
        self.h_min, self.h_max, self.tol = options.h_min, options.h_max, options.error_tol
        self.M = np.asarray(M, dtype=float)
        self.total_mass = float(total_mass)

    def first(self) -> float:
        return self.h_min

    def error(self, h: float, v_prev: np.ndarray, v_new: np.ndarray) -> float:
        dv = np.asarray(v_new, dtype=float) - np.asarray(v_prev, dtype=float)
        return 0.5 * h * float(np.sqrt(max(dv @ self.M @ dv, 0.0) / self.total_mass))

    def next(self, h: float, err: float, rejected: bool = False) -> float:
        factor = min(2.0, max(0.5, 0.9 * float(np.sqrt(self.tol / max(err, 1e-300)))))
        if rejected:  # h just failed the penetration test: do not grow it straight back
            factor = min(factor, 1.0)
        return min(self.h_max, max(self.h_min, h * factor))


def _solve_with_retries(problem, options, step, t, q, v, warm, lo, hi, smaller):
    """Solve one step with h in [lo, hi] through the retry ladder: warm start, cold start,
    `smaller` (h bounds, or None), and with no second-order gap term (which is a Taylor
    estimate from the previous velocity). Returns (sol, status, iters, spent, h_hi of the
    attempt that succeeded, curvature fallbacks); raises SolverFailure if all fail."""
    attempts = [(warm, lo, hi, True), (None, lo, hi, True)]
    if smaller is not None:
        attempts.append((None, *smaller, True))
    if problem.uses_curvature:
        attempts.append((None, lo, hi, False))
    if warm is None:  # the first step has nothing to warm from
        attempts = attempts[1:]
    attempts = attempts[: 1 + options.max_retries]
    iters, spent, sol, status = 0, 0.0, None, 3
    for k, (w, a_lo, a_hi, curv) in enumerate(attempts):
        sol = problem.solve(t, q, v, w, a_lo, a_hi, curv)
        iters += sol.iterations
        spent += sol.solve_time
        if sol.status < 3:
            status = 2 if k > 0 else sol.status
            break
    if sol is None or status == 3:
        raise SolverFailure(
            f"step {step + 1} at t = {t:.6g} s failed after {len(attempts)} attempt(s): "
            f"IPOPT returned {sol.return_status if sol else 'nothing'}"
        )
    _, a_lo, a_hi, curv = attempts[k]
    fell_back = 0
    if problem.uses_curvature and curv:
        sol, fell_back = _guard_curvature(problem, sol, t, q, v, warm, a_lo, a_hi)
    return sol, status, iters, spent, a_hi, fell_back


def _check_assembly(system: System, model: SymbolicModel, q: np.ndarray) -> None:
    eq = np.abs(np.asarray(model.Phi_eq(q, 0.0)).ravel())
    if eq.size and eq.max() > ASSEMBLY_TOL:
        worst = system.eq_labels[int(np.argmax(eq))]
        raise InputError(
            f"initial configuration violates joint constraint {worst} by "
            f"{eq.max():.3g} (allowed {ASSEMBLY_TOL})"
        )
    gap = np.asarray(model.Phi(q)).ravel()
    if gap.size and gap.max() > ASSEMBLY_TOL:
        worst = system.gap_labels[int(np.argmax(gap))]
        raise InputError(
            f"bodies start penetrating at contact {worst} by {gap.max():.3g} m "
            f"(allowed {ASSEMBLY_TOL})"
        )


def fixed_step_sizes(t0: float, t_end: float, h: float) -> Iterator[float]:
    """The step sizes the stepping loop takes from t0 to t_end at a fixed step h (step_bounds,
    with t accumulated in the same floating-point order), generated as they are needed: a list
    of a long run's steps would take memory and time before the first step."""
    t, eps = t0, 1e-6 * h
    while t < t_end - eps:
        step = step_bounds(t_end - t, h, h)[1]
        yield step
        t = t + step


def _next_sizes(sizes: Iterator[float], pending: np.ndarray, n: int) -> np.ndarray:
    """`pending` topped up from `sizes` to n step sizes (fewer at the end of the run)."""
    more = np.fromiter(itertools.islice(sizes, n - len(pending)), dtype=float)
    return np.concatenate([pending, more]) if len(pending) else more


def _build_problem(model: SymbolicModel, system: System, options: SimulationOptions):
    """The per-step problem: StepProblem (IPOPT) or QPStep, whose failed QPs fall back to an
    NLP without the predictor."""
    if options.solver == "nlp":
        return StepProblem(model, options, system.gap_scales)
    needs_nlp = [
        what
        for what, present in (
            ("friction", model.has_friction),
            ("restitution", model.has_restitution),
            ("compliant contact", model.n_compliant > 0),
        )
        if present
    ]
    if needs_nlp:
        raise InputError(
            f"solver must be 'nlp' for a system with {' and '.join(needs_nlp)}, got 'qp'"
        )
    nlp_options = replace(options, solver="nlp", predictor=False)
    return QPStep(
        model,
        options,
        system.gap_scales,
        fallback=lambda: StepProblem(model, nlp_options, system.gap_scales),
    )


def simulate(
    system: System,
    options: SimulationOptions,
    *,
    progress: bool = False,
    meta: dict[str, Any] | None = None,
    on_step: Callable[[int, float], None] | None = None,
    checkpoint: Callable[[SimulationResult], None] | None = None,
    checkpoint_every: float = 60.0,
    resume: SimulationResult | None = None,
    stop: Callable[[], bool] | None = None,
    force: bool = False,
) -> SimulationResult:
    """Simulate `system` from its initial state to options.t_end.

    Raises InputError for an inconsistent initial configuration and SolverFailure (carrying the
    partial result, `completed: false`) when a step fails after the retry ladder: warm start,
    cold start, (variable h only) a four times smaller upper bound on h, then without the
    second-order gap term.

    options.step_control chooses h: "nlp" leaves it to each step's NLP within step_bounds;
    "controller" solves each step at a fixed h from StepController, within [h_min, h_max]
    (the last one or two steps come from step_bounds with the controller's h in place of h_max,
    so they end the run on t_end and never exceed that h), and re-solves with h halved (down to
    h_min; not for those last steps, where it could leave a sliver of a step) a step
    whose true gap penetrates by more than CONTROLLER_PENETRATION of a clearance, counted in
    meta["controller_rejections"] (0 with "nlp"). The recorded iterations and solve time of a
    step include its rejected solves.

    options.solver = "qp" with a fixed step runs the fast path (fast_loop.py): chunks of
    steps evaluated by one CasADi Function, a step that fails its checks taken again here.
    `on_step(step, t)` is then called once per chunk instead of once per step.

    `checkpoint(partial)` is called with the partial result (completed false, plus the state to
    resume from, see checkpoint.py) whenever `checkpoint_every` seconds of wall time have passed
    since the last one; `resume` (such a partial result, for the same system and options)
    continues a run from where it stopped, with the same arrays as an uninterrupted run.
    `stop()` is asked after every step (or chunk); True ends the run as an interruption
    (SolverFailure "interrupted" with the partial result), between steps, so the partial result
    is always consistent (a signal handler should set a flag for it rather than raise).

    A run of more than validity.MAX_STEPS steps (t_end / h_min), or whose result would not fit
    in memory, is refused with InputError unless `force`. A body that flies off (validity.py,
    DIVERGENCE_FACTOR) ends the run with SolverFailure("diverged: ..."). meta["warnings"] lists
    the validity checks the result breaks (RunChecks.warnings), for partial results too.
    """
    if not isinstance(options, SimulationOptions):
        raise InputError(f"options must be SimulationOptions, got {type(options).__name__}")
    if not isinstance(system, System):
        raise InputError(f"system must be a System, got {type(system).__name__}")
    wall0 = time.perf_counter()
    q, v = system.initial_state()
    m = SymbolicModel.build(system)
    _check_assembly(system, m, q)
    check_run_size(m, options, force)
    checks = RunChecks(system, m)
    problem = _build_problem(m, system, options)
    info = dict(meta or {})
    info.update(
        {
            "options": options.as_dict(),
            "bodies": [b.name for b in system.bodies],
            "contact_labels": system.gap_labels,
            "contact_scales": system.gap_scales,
            "compliant_labels": system.compliant_labels,
            "joint_geometry": {j.name: j.describe() for j in system.joints if j.describe()},
            "eq_labels": system.eq_labels,
            "joints": [j.name for j in system.joints],
            "gravity": system.gravity.tolist(),
            "versions": _versions(),
            "completed": False,
        }
    )
    t = 0.0
    hist = History(m)
    count = dict.fromkeys(COUNTERS, 0)
    controller = None
    if options.step_control == "controller":
        controller = StepController(options, m.M, float(np.sum(m.masses)))
    h_next = controller.first() if controller else options.h_max
    runner = None
    warm: StepSolution | None = None
    step = 0
    earlier = dict.fromkeys(COUNTERS, 0)  # counters of the run a resumed one continues
    # compliant contacts: the penetration speed at which each one began (contact.py)
    impact_speed = np.zeros(m.n_compliant)

    def compliant_at(t, q, v):
        """(generalised force, gaps, rates, force vectors (3, C)) of the compliant contacts."""
        Q, gap, rate, _, force, _ = (np.asarray(a) for a in m.compliant(t, q, v, impact_speed))
        return Q.ravel(), gap.ravel(), rate.ravel(), force

    if resume is None:
        hist.add_point(t, q, v, np.zeros(m.n_gap), np.zeros(m.n_eq), None, compliant_at(t, q, v)[1])
    else:
        arrays, warm, h_next, previous = restore(resume, system, options)
        impact_speed = np.asarray(
            resume.meta["resume"].get("impact_speed", impact_speed), dtype=float
        )
        earlier.update({k: int(previous.get(k, 0)) for k in COUNTERS})
        hist.extend(**arrays)
        t, q, v = float(arrays["t"][-1]), arrays["q"][-1].copy(), arrays["v"][-1].copy()
        step = resume.n_steps

    def counters() -> dict[str, int]:
        now = dict(
            count,
            projection_nlp_solves=problem.projection.nlp_solves if problem.projection else 0,
            friction_solves=getattr(problem, "friction_solves", 0),
            friction_unconverged=getattr(problem, "friction_unconverged", 0),
            predicted_steps=getattr(problem, "predicted_steps", 0),
            qp_fallback_steps=getattr(problem, "nlp_fallbacks", 0),
            qp_backup_solves=getattr(problem, "backup_solves", 0),
        )
        return {k: int(now[k]) + earlier[k] for k in COUNTERS}

    def finish(completed: bool, message: str) -> SimulationResult:
        totals = counters()
        info.update(
            completed=completed,
            message=message,
            **totals,
            codegen=runner.codegen if runner else "off",
            setup_time=setup_time,
            wall_time=time.perf_counter() - wall0,
            resumed=resume is not None,
        )
        info.pop("resume", None)
        if not completed:
            info["resume"] = resume_state(warm, h_next, totals, step)
            info["resume"]["impact_speed"] = impact_speed.tolist()
        result = hist.result(dict(info))
        result.meta["warnings"] = checks.warnings(result)
        return result

    last_checkpoint = time.perf_counter()

    def maybe_checkpoint() -> None:
        nonlocal last_checkpoint
        if checkpoint is not None and time.perf_counter() - last_checkpoint >= checkpoint_every:
            checkpoint(finish(False, "checkpoint"))
            last_checkpoint = time.perf_counter()

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=options.t_end,
            unit="s",
            mininterval=0.5,
            bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} s [{elapsed}<{remaining}]",
            initial=t,
        )

    def take(sol: StepSolution, status: int, iters: int, spent: float) -> None:
        """Record a step solved in Python: update, gap projection, history."""
        nonlocal t, q, v, warm, step, impact_speed
        t0 = t
        t = t + sol.h
        q, v = sol.q, sol.v
        gap_raw = float(np.max(np.asarray(m.Phi(q)), initial=-np.inf))
        if problem.projection is not None and gap_raw > 0:
            q, ok = problem.projection.apply(q, t)
            count["projection_failures"] += not ok
        hist.add_step(sol, status, iters, spent, gap_raw if m.n_gap else 0.0)
        applied = None  # the compliant forces of this step (at its start, like lam)
        if m.n_compliant:
            applied, was = compliant[0][3], compliant[0][1]
            new = compliant_at(t, q, v)
            # a contact that begins now keeps its penetration speed; an open one forgets it
            speed = np.where(
                new[1] > 0, np.where(was > 0, impact_speed, np.maximum(new[2], 0.0)), 0.0
            )
            if not np.array_equal(speed, impact_speed):  # the force depends on it
                impact_speed = speed
                new = compliant_at(t, q, v)
            compliant[0] = new
        hist.add_point(
            t,
            q,
            v,
            sol.lam,
            sol.lam_eq,
            sol.friction,
            compliant[0][1] if m.n_compliant else None,
            applied,
        )
        warm = sol
        step += 1
        if bar is not None:
            bar.update(t - t0)
        why = checks.diverged(t, q)
        if why:
            raise SolverFailure(why)

    # the compliant contacts at the current state, computed once per step
    compliant = [compliant_at(t, q, v)]

    def python_step() -> None:
        nonlocal h_next
        if m.n_compliant:
            problem.compliant_force = compliant[0][0]
        # the controller's h stands in for h_max: a landing step never exceeds it
        h_lo, h_hi = step_bounds(options.t_end - t, options.h_min, h_next)
        if controller is None:
            smaller = (h_lo, max(h_lo, 0.25 * h_hi)) if h_lo < h_hi else None
            sol, status, iters, spent, _, fell_back = _solve_with_retries(
                problem, options, step, t, q, v, warm, h_lo, h_hi, smaller
            )
            count["curvature_fallbacks"] += fell_back
        else:
            h, landing = h_hi, h_lo == h_hi  # a fixed pair is a landing step (or h_min)
            iters, spent, rejected = 0, 0.0, False
            while True:
                h_small = max(options.h_min, 0.25 * h)
                smaller = None if landing or h_small >= h else (h_small, h_small)
                sol, status, it, sp, h, fell_back = _solve_with_retries(
                    problem, options, step, t, q, v, warm, h, h, smaller
                )
                iters, spent = iters + it, spent + sp
                count["curvature_fallbacks"] += fell_back
                if (
                    landing
                    or h <= options.h_min
                    or _penetration_fraction(problem, sol.q) <= CONTROLLER_PENETRATION
                ):
                    break
                count["controller_rejections"] += 1
                rejected = True
                h = max(options.h_min, 0.5 * h)
            h_next = controller.next(sol.h, controller.error(sol.h, v, sol.v), rejected)
        take(sol, status, iters, spent)

    setup_time = time.perf_counter() - wall0
    try:
        if options.solver == "qp" and options.fixed_step:
            sizes = fixed_step_sizes(t, options.t_end, options.h_max)
            # only codegen="auto" uses the count: an estimate will do
            n_steps = math.ceil((options.t_end - t) / options.h_max)
            runner = ChunkRunner(problem, n_steps, options.codegen)
            setup_time = time.perf_counter() - wall0  # includes any C compilation
            chunk = _next_sizes(sizes, np.zeros(0), runner.n)
            while len(chunk):
                rows = runner.run(np.concatenate([[t], q, v]), chunk)
                if rows.k:
                    hist.extend(**rows.points, **rows.steps)
                    X = state_of(rows)
                    if bar is not None:
                        bar.update(X[0] - t)
                    t, q, v = float(X[0]), X[1 : 1 + q.size], X[1 + q.size :]
                    step += rows.k
                    count["chunk_steps"] += rows.k
                    count["chunk_steps_discarded"] += rows.discarded
                    why = checks.diverged(rows.points["t"], rows.points["q"])
                    if why:
                        raise SolverFailure(why)
                done = rows.k
                if rows.k < len(chunk):
                    warm = None
                    python_step()  # the step the chunk could not take
                    done += 1
                chunk = _next_sizes(sizes, chunk[done:], runner.n)
                if on_step is not None:
                    on_step(step, t)
                maybe_checkpoint()
                if stop is not None and stop():
                    raise KeyboardInterrupt
        else:
            eps = 1e-6 * options.h_min  # no sliver of a last step from round-off
            while t < options.t_end - eps:
                python_step()
                if on_step is not None:
                    on_step(step, t)
                maybe_checkpoint()
                if stop is not None and stop():
                    raise KeyboardInterrupt
    except SolverFailure as err:
        err.partial = finish(False, str(err))
        raise
    except KeyboardInterrupt as err:
        raise SolverFailure("interrupted by the user", finish(False, "interrupted")) from err
    finally:
        if bar is not None:
            bar.close()
    return finish(True, "completed")
