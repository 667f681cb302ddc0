"""The local process pool of a study (apps/study_run.py): each worker process runs one run at a
time, so a worker that dies (killed, out of memory, a crash in C code) costs its own run only.
That run becomes a failed outcome saying how the process ended, and a new worker takes the runs
still to do (concurrent.futures' pool instead breaks as a whole, with a traceback).

Workers are fresh interpreters ("spawn": no fork of a process holding CasADi/IPOPT state), leave
Ctrl-C to the parent (the terminal sends it to the whole process group; the parent stops the
study) and die with the parent: on Linux the kernel kills them when it dies
(PR_SET_PDEATHSIG; strictly when the thread that started them ends, which is the thread that
consumes `run_pool`), elsewhere a thread watches for it.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from .study import RunOutcome, RunSpec, Stop

#: How often a waiting study looks at its stop flag (s).
POLL = 0.2
#: prctl option: the signal a process gets when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1
#: How long a finished or abandoned worker may take to exit before it is killed (s).
EXIT_GRACE = 5.0

Work = Callable[[RunSpec, str], RunOutcome]


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops the study."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _die_with_parent(parent: int) -> None:
    """End this process when `parent` (the study's process) ends, however it ends."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != parent:  # it died before the request took effect
                os._exit(1)
            return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _serve(conn: Connection, parent: int, work: Work) -> None:
    """A worker: (spec, root) jobs from `conn`, their outcomes back, until None or EOF."""
    _die_with_parent(parent)
    _ignore_interrupts()
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        spec, root = job
        try:
            outcome = work(spec, root)
        except Exception as err:  # a study reports every failure and goes on with the others
            outcome = RunOutcome(spec.label, "failed", "", f"{type(err).__name__}: {err}")
        conn.send(outcome)


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    spec: RunSpec | None = None
    since: float = 0.0


def _start(context: Any, work: Work) -> _Worker:
    mine, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(theirs, os.getpid(), work), daemon=True)
    process.start()
    theirs.close()  # so that its death reads as EOF here
    return _Worker(process, mine)


def _died(worker: _Worker, root: str) -> RunOutcome:
    """The outcome of the run whose worker ended before sending it."""
    worker.process.join(EXIT_GRACE)
    code = worker.process.exitcode
    if code is not None and code < 0:
        how = f"killed by {signal.Signals(-code).name}"
    else:
        how = f"exit code {code}"
    assert worker.spec is not None
    label = worker.spec.label
    message = f"the worker process running it died ({how}); the other runs went on"
    wall = time.perf_counter() - worker.since
    return RunOutcome(label, "failed", os.path.join(root, "runs", label), message, wall_time=wall)


def _collect(worker: _Worker, ready: list[Any], root: str) -> RunOutcome | None:
    """The outcome a busy worker sent, or that of its run if it died; None while it runs."""
    if worker.conn not in ready and worker.process.sentinel not in ready:
        return None
    try:
        if worker.conn.poll():
            outcome: RunOutcome = worker.conn.recv()
            worker.spec = None
            return outcome
    except (EOFError, OSError):  # it died (EOF), perhaps while sending
        return _died(worker, root)
    return _died(worker, root) if not worker.process.is_alive() else None


def _stop(workers: list[_Worker]) -> None:
    """Idle workers are told to exit, busy ones (abandoned runs) are terminated; any still
    alive after EXIT_GRACE is killed."""
    for w in workers:
        if w.spec is None and w.process.is_alive() and not w.conn.closed:
            try:
                w.conn.send(None)
            except OSError:
                pass
        else:
            w.process.terminate()
    deadline = time.monotonic() + EXIT_GRACE
    for w in workers:
        w.process.join(max(0.0, deadline - time.monotonic()))
        if w.process.is_alive():
            w.process.kill()
            w.process.join()
        w.conn.close()


def run_pool(
    todo: list[RunSpec], root: str, n: int, stop: Stop, work: Work
) -> Iterator[RunOutcome]:
    """Outcomes of `work(spec, root)` for every spec, as they finish, on n worker processes."""
    context = multiprocessing.get_context("spawn")
    queue = list(reversed(todo))
    workers: list[_Worker] = []
    retired: list[_Worker] = []
    try:
        while not stop():
            _assign(workers, retired, queue, n, root, lambda: _start(context, work))
            if not workers:
                return
            ready = wait([x for w in workers for x in (w.conn, w.process.sentinel)], POLL)
            for w in list(workers):
                if w.spec is None:  # idle: drop it if it died
                    if not w.process.is_alive():
                        workers.remove(w)
                        w.conn.close()
                    continue
                outcome = _collect(w, ready, root)
                if outcome is None:
                    continue
                if w.spec is not None:  # its run ended with the process (_died)
                    workers.remove(w)
                    w.conn.close()
                yield outcome
    finally:
        _stop(workers + retired)


def _assign(
    workers: list[_Worker],
    retired: list[_Worker],
    queue: list[RunSpec],
    n: int,
    root: str,
    start: Callable[[], _Worker],
) -> None:
    """Give each idle worker a run, start workers up to n for the others, and let idle workers
    go when no run is left. A worker found dead when it is given a run gives it back."""
    for w in [w for w in workers if w.spec is None and not queue]:
        workers.remove(w)
        retired.append(w)
        try:
            w.conn.send(None)  # it exits; joined at the end
        except OSError:
            pass
    while queue:
        idle = [w for w in workers if w.spec is None]
        if not idle and len(workers) >= n:
            return
        worker = idle[0] if idle else start()
        if not idle:
            workers.append(worker)
        spec = queue.pop()
        try:
            worker.conn.send((spec, root))
        except OSError:
            queue.append(spec)
            workers.remove(worker)
            worker.conn.close()
            continue
        worker.spec, worker.since = spec, time.perf_counter()
