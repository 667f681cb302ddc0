"""simulate: build a run once, advance its RunState to t_end, and return the typed result."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..errors import InputError, SolverFailure
from ..io.result import SimulationResult
from ..model.system import System
from .options import SimulationOptions
from .progress import Progress
from .run import Run
from .solvers import SolverFactory
from .state import RunState


def simulate(
    system: System,
    options: SimulationOptions,
    *,
    progress: bool = False,
    meta: dict[str, Any] | None = None,
    on_step: Callable[[int, float], None] | None = None,
    checkpoint: Callable[[SimulationResult], None] | None = None,
    checkpoint_every: float | None = None,
    resume: SimulationResult | None = None,
    stop: Callable[[], bool] | None = None,
    force: bool = False,
    solver: SolverFactory | None = None,
) -> SimulationResult:
    """Simulate `system` from its initial state (or from `resume`) to options.time.t_end, with
    the system's own option defaults (System.option_defaults: its case's) where `options` were
    not given (SimulationOptions.over).

    Raises InputError for an inconsistent initial configuration, or a run larger than the
    sane bounds (run/limits.py) unless `force`; SolverFailure, carrying the partial result
    (`completed: false`), when a step fails after the retry ladder (step/retry.py), when the
    motion diverges, or when `stop()` returns True (checked after every step or chunk: an
    interruption between steps, so the partial result is always consistent; a signal handler
    should set a flag for it rather than raise; chained chunks, run/chunks.py, are one chunk
    here: at most CHAIN_SECONDS of them).

    `on_step(step, t)` is called after every step (after every chunk on the QP fast path).
    `checkpoint(partial)` receives the partial result, with the state to resume from
    (run/checkpoint.py), whenever `checkpoint_every` seconds of wall time (default: the options'
    output.checkpoint_every) have passed since the last one; `resume` (such a partial result of
    the same system and options) continues the run with the same arrays as an uninterrupted run.
    meta["warnings"] lists the validity checks the result breaks (run/validity.py).
    `solver(kernel, options)` builds another step solver (a StepSolver of step/solver.py) in
    place of the one the options choose.
    """
    if not isinstance(options, SimulationOptions):
        raise InputError(f"options must be SimulationOptions, got {type(options).__name__}")
    if not isinstance(system, System):
        raise InputError(f"system must be a System, got {type(system).__name__}")
    options = options.over(system.option_defaults)  # its case's defaults, below the given ones
    wall0 = time.perf_counter()
    run = Run(system, options, meta, force, solver)
    state = run.start(resume)
    every = options.output.checkpoint_every if checkpoint_every is None else checkpoint_every
    with Progress(progress, options.time.t_end, state.t) as bar:
        try:
            run.prepare(state)
            run.info["setup_time"] = time.perf_counter() - wall0  # with any C compilation
            _advance(run, state, bar, on_step, checkpoint, every, stop, wall0)
        except SolverFailure as err:
            err.partial = run.finish(state, False, str(err), wall0)
            raise
        except KeyboardInterrupt as err:
            partial = run.finish(state, False, "interrupted", wall0)
            raise SolverFailure("interrupted by the user", partial) from err
    return run.finish(state, True, "completed", wall0)


def _advance(
    run: Run,
    state: RunState,
    bar: Progress,
    on_step: Callable[[int, float], None] | None,
    checkpoint: Callable[[SimulationResult], None] | None,
    every: float,
    stop: Callable[[], bool] | None,
    wall0: float,
) -> None:
    """Step (or chunk) to t_end, with the callbacks between steps."""
    advance = run.stepper.chunk if run.stepper.runner else run.stepper.one_step
    end = run.options.time.t_end - run.end_tolerance
    last_checkpoint = time.perf_counter()
    while state.t < end:
        bar.update(advance(state))
        if on_step is not None:
            on_step(state.step, state.t)
        if checkpoint is not None and time.perf_counter() - last_checkpoint >= every:
            checkpoint(run.finish(state, False, "checkpoint", wall0))
            last_checkpoint = time.perf_counter()
        if stop is not None and stop():
            raise KeyboardInterrupt
