"""A study's runs on a Dask distributed cluster (apps/study_run.py), as robust as the local pool:

- a run whose task failed (e.g. KilledWorker: its workers died while running it) is a failed
  outcome with the reason;
- when the cluster has had no worker for NO_WORKERS_GRACE seconds, the runs not done are failed
  outcomes (waiting for workers that never come hung the study);
- a stop (Ctrl-C) is seen within POLL seconds, not at the next run's end;
- a lost scheduler ends the runs not done as failed outcomes whose message begins
  LOST_SCHEDULER (the command line says so in one line), instead of a traceback;
- runs are written in the directory the client asked for, made absolute here: in place by a
  worker that shares the client's storage, else returned to the client (apps/study_storage.py).

Dask's own log lines (it logs a lost connection with a traceback) are held back while a study
runs: the outcomes say what happened.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import InputError
from ..validation import short_repr
from .study import RunOutcome, RunSpec, Stop
from .study_storage import Returned, keep_returned, run_on_worker, shared_marker

#: How often a waiting study looks at its stop flag and at the cluster (s).
POLL = 0.5
#: How long a cluster may have no worker before the runs not done are given up (s): long
#: enough for a restarted or adaptive worker to join.
NO_WORKERS_GRACE = 30.0
#: How a run's message begins when the scheduler was lost before the run was done.
LOST_SCHEDULER = "lost the Dask scheduler"

Work = Callable[..., RunOutcome]


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's loggers (each of its configured ones has its own level and handler) silenced."""
    loggers = [
        logger
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger) and name.split(".")[0] == "distributed"
    ]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _connect(cluster: str) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--cluster needs Dask: pip install 'nlpmbd[cluster]'") from None
    try:
        return Client(cluster, timeout="10s")
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(
            f"cannot reach the Dask cluster at {short_repr(cluster)} ({err})"
        ) from None


def _failed(spec: RunSpec, root: str, message: str) -> RunOutcome:
    return RunOutcome(spec.label, "failed", os.path.join(root, "runs", spec.label), message)


def _outcome(future: Any, spec: RunSpec, root: str) -> RunOutcome:
    """The run's outcome, or a failed one saying why its task did not give one."""
    if future.status == "finished":
        try:
            outcome: RunOutcome | Returned = future.result(timeout=60)
        except Exception as err:  # e.g. the result was lost with its worker
            return _failed(spec, root, f"{type(err).__name__}: {err}")
        return keep_returned(outcome, spec, root) if isinstance(outcome, Returned) else outcome
    if future.status == "error":
        error = future.exception(timeout=60)
        return _failed(spec, root, f"its Dask task failed ({type(error).__name__}: {error})")
    return _failed(spec, root, f"its Dask task was {future.status}")


def run_dask(
    todo: list[RunSpec], root: str, cluster: str, stop: Stop, work: Work
) -> Iterator[RunOutcome]:
    """Outcomes of `work(spec, root=root)` for every spec, as they finish, on the cluster
    (reached now: InputError if it cannot be). `root` is taken from this process's working
    directory, not from each worker's."""
    return _outcomes(_connect(cluster), todo, os.path.abspath(root), cluster, stop, work)


def _outcomes(
    client: Any, todo: list[RunSpec], root: str, cluster: str, stop: Stop, work: Work
) -> Iterator[RunOutcome]:
    futures: dict[Any, RunSpec] = {}
    with _quiet_dask():
        try:
            with shared_marker(root) as marker:
                for spec in todo:
                    task = client.submit(run_on_worker, work, spec, root, marker, pure=False)
                    futures[task] = spec
                yield from _collect(client, futures, root, cluster, stop)
        finally:
            _close(client, list(futures))


def _collect(
    client: Any, futures: dict[Any, RunSpec], root: str, cluster: str, stop: Stop
) -> Iterator[RunOutcome]:
    """The outcomes of the submitted runs as they finish, until all are done or `stop()`."""
    from distributed import wait

    pending = set(futures)
    workerless = None
    while pending and not stop():
        try:
            done, pending = wait(pending, timeout=POLL, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        except Exception as err:  # the connection to the scheduler is gone
            reason = f"{LOST_SCHEDULER} at {short_repr(cluster)} ({type(err).__name__})"
            for future in [f for f in futures if f in pending]:
                yield _failed(futures[future], root, reason)
            return
        for future in done:
            yield _outcome(future, futures[future], root)
        workerless = _workerless(client, workerless)
        if workerless is not None and time.monotonic() - workerless > NO_WORKERS_GRACE:
            reason = f"the Dask cluster had no worker for {NO_WORKERS_GRACE:g} s"
            for future in pending:
                yield _failed(futures[future], root, reason)
            return


def _workerless(client: Any, since: float | None) -> float | None:
    """Since when the cluster has had no worker (None: it has one, or cannot tell)."""
    try:
        count = len(client.scheduler_info(n_workers=-1).get("workers", {}))
    except Exception:  # a lost scheduler shows at the next wait
        return since
    if count:
        return None
    return time.monotonic() if since is None else since


def _close(client: Any, futures: list[Any]) -> None:
    """Cancel what is left and disconnect, without waiting long on a lost scheduler."""
    with contextlib.suppress(Exception):
        if client.status == "running":
            client.cancel(futures, asynchronous=False)
    with contextlib.suppress(Exception):
        client.close(timeout=5)
