"""Running a study's RunSpecs (apps/study.py): in this process, on a local process pool or on a
Dask cluster, reusing completed runs.

`stop()` (e.g. a Ctrl-C flag) stops a study between runs: no new run starts, a run in this
process ends after its current step, runs on a pool or cluster are abandoned; they end as the
outcomes "interrupted" and "not run". A run whose pool worker or Dask workers died is a failed
outcome with the reason (apps/study_pool.py, apps/study_dask.py); the others go on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..validation import short_repr
from .study import RunOutcome, RunSpec, Stop, reusable, run_directory
from .study_dask import run_dask
from .study_pool import run_pool
from .study_progress import StudyProgress


def execute(spec: RunSpec, root: str, stop: Stop | None = None) -> RunOutcome:
    """Run one spec and write DIR/runs/LABEL/. Never raises but for KeyboardInterrupt: a
    failure becomes the outcome (the partial result of a solver failure is written first)."""
    from ..errors import SolverFailure
    from ..run.options import SimulationOptions
    from ..run.simulate import simulate
    from .registry import get_case

    out = run_directory(root, spec)
    tic = time.perf_counter()

    def outcome(status: str, message: str = "", result: Any = None) -> RunOutcome:
        cost: dict[str, Any] = {}
        if result is not None:
            cost = {
                "iterations": int(result.iterations.sum()),
                "solve_time": float(result.solve_time.sum()),
            }
        return RunOutcome(
            spec.label, status, str(out), message, wall_time=time.perf_counter() - tic, **cost
        )

    try:
        case = get_case(spec.case) if spec.model is None else spec.model.case()
        system, params = case.build(spec.params)
        given = spec.simulation_options(case, system.option_defaults)
        options = SimulationOptions.with_defaults(given, system.option_defaults)
        meta = {"case": case.name, "parameters": params, "spec": spec.as_dict()}
        if spec.model is not None:  # what `animate` rebuilds the model from
            meta["source"] = spec.model.record(case.name)
        result = simulate(system, options, meta=meta, stop=stop)
    except SolverFailure as err:
        if err.partial is None:
            return outcome("failed", str(err))
        err.partial.meta["spec"] = spec.as_dict()
        err.partial.save(out)
        interrupted = err.partial.meta.get("message") == "interrupted"
        return outcome("interrupted" if interrupted else "failed", str(err))
    except Exception as err:  # a study reports every failure and goes on with the others
        return outcome("failed", f"{type(err).__name__}: {err}")
    result.save(out)
    return outcome("ok", result=result)


def backend(
    todo: list[RunSpec], root: str, workers: int | None, cluster: str | None, stop: Stop
) -> Iterator[RunOutcome]:
    """Outcomes as runs finish, from the chosen executor (a cluster is reached now: an
    unreachable one is an InputError before anything is shown)."""
    if not todo:
        return iter(())
    if cluster is not None:
        return run_dask(todo, root, cluster, stop, execute)
    n = workers or os.cpu_count() or 1
    if n == 1 or len(todo) == 1:
        return iterate_serial(todo, root, stop)
    return run_pool(todo, root, min(n, len(todo)), stop, execute)


def run_specs(
    specs: Sequence[RunSpec],
    root: str | os.PathLike,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = False,
    on_done: Callable[[RunOutcome], None] | None = None,
    stop: Stop | None = None,
) -> list[RunOutcome]:
    """Execute the specs (reusing completed ones) and return their outcomes in spec order.

    workers: size of the local process pool (default: the number of cores; 1 = serial, in this
    process). cluster: address of an existing Dask distributed scheduler (tcp://host:port);
    needs the `cluster` extra. stop: see the module docstring.
    """
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        raise InputError("run labels of a study must be unique")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise InputError(f"workers must be an integer >= 1, got {short_repr(workers)}")
    if workers is not None and cluster is not None:
        raise InputError("--workers and --cluster cannot be combined")
    root = str(root)
    Path(root).mkdir(parents=True, exist_ok=True)
    done: dict[str, RunOutcome] = {}
    todo = []
    for spec in specs:
        previous = reusable(spec, root)
        if previous is None:
            todo.append(spec)
        else:
            done[spec.label] = previous
    outcomes = backend(todo, root, workers, cluster, stop or (lambda: False))
    with StudyProgress(progress, len(specs), len(done)) as bar:
        for outcome in outcomes:
            done[outcome.label] = outcome
            bar.update(outcome)
            if on_done is not None:
                on_done(outcome)
    return [done.get(s.label) or RunOutcome(s.label, "not run", "") for s in specs]


def iterate_serial(todo: list[RunSpec], root: str, stop: Stop) -> Iterator[RunOutcome]:
    """The runs one after the other in this process; a stop ends the current run between
    steps and starts no other."""
    for spec in todo:
        if stop():
            return
        yield execute(spec, root, stop)
