"""Studies when their workers die (issue "Nothing mixed, nothing overwritten", item 6): a killed
pool worker costs its own run only (a failed row with the reason; the table and study.json are
written; exit code 3 as for failed runs); pool workers die with the study's process; on Dask, a
cluster that lost every worker ends with failed rows instead of hanging, Ctrl-C ends the study
within seconds, and a lost scheduler is one line plus the table of what completed."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from nlpmbd.apps import registry
from nlpmbd.apps.cli import main
from nlpmbd.apps.study import RunSpec, Study

psutil = pytest.importorskip("psutil")

#: A run that takes minutes: it is always still running when its worker is killed. The default
#: path runs the pendulum's 60 s in about a second; IPOPT at every step takes about 80 s.
LONG = 60.0
SLOW = {"solver": "nlp", "predictor": False}


def _table(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "table.csv") as fh:
        return {row["run"]: row for row in csv.DictReader(fh)}


def _study(specs: list[RunSpec]) -> Study:
    def analyse(params, specs, results, out):
        return [{"run": s.label, "drawn": results[s.label] is not None} for s in specs]

    return Study("workers-test", "runs for worker tests", (), lambda params: specs, analyse)


def _workers(pid: int) -> list:
    """The pool's worker processes under `pid` (not multiprocessing's resource tracker)."""
    workers = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(child.cmdline()):
                workers.append(child)
        except psutil.Error:  # it ended (a zombie until joined)
            pass
    return workers


@pytest.mark.slow
def test_a_killed_pool_worker_is_a_failed_row_and_the_others_complete(tmp_path, monkeypatch):
    specs = [
        RunSpec("a", "pendulum", t_end=0.01),
        RunSpec("long", "pendulum", t_end=LONG, **SLOW),
        RunSpec("b", "pendulum", t_end=0.01),
    ]
    monkeypatch.setattr(registry, "get_study", lambda name: _study(specs))
    out = tmp_path / "study"
    killed: list[int] = []

    def kill_the_long_runs_worker() -> None:
        """Once a and b are written, the only busy worker is the long run's."""
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline:
            if all((out / "runs" / label / "result.npz").exists() for label in ("a", "b")):
                time.sleep(0.5)
                for child in _workers(os.getpid()):
                    killed.append(child.pid)
                    child.send_signal(signal.SIGKILL)
                return
            time.sleep(0.1)

    threading.Thread(target=kill_the_long_runs_worker, daemon=True).start()
    tic = time.monotonic()
    code = main(["study", "workers-test", "--workers", "2", "--out", str(out), "--quiet"])
    assert killed and time.monotonic() - tic < LONG
    assert code == 3  # as for a failed run
    rows = _table(out)
    assert [rows[k]["status"] for k in ("a", "long", "b")] == ["ok", "failed", "ok"]
    assert "worker process running it died (killed by SIGKILL)" in rows["long"]["message"]
    assert rows["a"]["drawn"] == "True" and rows["long"]["drawn"] == "False"
    info = json.loads((out / "study.json").read_text())
    assert [r["outcome"]["status"] for r in info["runs"]] == ["ok", "failed", "ok"]


ORPHAN = """
import sys
from nlpmbd.apps.study import RunSpec
from nlpmbd.apps.study_run import run_specs

if __name__ == "__main__":
    specs = [RunSpec(f"long{k}", "pendulum", t_end=%r, **%r) for k in range(2)]
    run_specs(specs, sys.argv[1], workers=2)
"""


@pytest.mark.slow
def test_pool_workers_die_with_the_study_process(tmp_path):
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN % (LONG, SLOW))
    parent = subprocess.Popen([sys.executable, str(script), str(tmp_path / "out")])
    workers: list = []
    try:
        deadline = time.monotonic() + 60.0
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _workers(parent.pid)
        assert len(workers) == 2
        parent.kill()  # SIGKILL: no chance to clean up
        parent.wait()
        gone, alive = psutil.wait_procs(workers, timeout=10.0)
        assert not alive, f"workers outlived the study's process: {[p.pid for p in alive]}"
    finally:
        parent.kill()
        for process in workers:
            if process.is_running():
                process.kill()


DASK = """
import json, os, signal, subprocess, sys, threading, time
from pathlib import Path


def lose_workers(cluster, mode):
    from distributed import Client

    with Client(cluster.scheduler_address) as client:
        while not any(client.processing().values()):
            time.sleep(0.1)
        time.sleep(0.5)
        cluster.scale(0)
        while client.scheduler_info()["workers"]:
            time.sleep(0.1)
    LOST.append(time.monotonic())
    if mode == "interrupt":
        os.kill(os.getpid(), signal.SIGINT)


def main():
    import distributed
    from nlpmbd.apps import registry
    from nlpmbd.apps.cli import main as cli
    from nlpmbd.apps.study import RunSpec, Study

    try:
        import nlpmbd.apps.study_dask as study_dask
        study_dask.NO_WORKERS_GRACE = 1.0 if mode == "workers" else 600.0
    except ImportError:  # an nlpmbd without it
        pass
    specs = [RunSpec("short", "pendulum", t_end=0.01)]
    specs += [RunSpec(f"long{k}", "pendulum", t_end=LONG, **SLOW) for k in range(2)]
    study = Study("t", "dask test", (), lambda p: specs, lambda p, s, r, o: [])
    registry.get_study = lambda name: study
    processes = []
    if mode == "scheduler":
        info = out.parent / "scheduler.json"
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
            stderr=subprocess.DEVNULL,
        ))
        while not info.exists():
            time.sleep(0.1)
        time.sleep(0.3)
        address = json.loads(info.read_text())["address"]
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "2",
             "--nthreads", "1", "--no-dashboard"],
            stderr=subprocess.DEVNULL,
        ))

        def lose_scheduler():
            while not (out / "runs" / "short" / "result.npz").exists():
                time.sleep(0.1)
            time.sleep(0.5)
            processes[0].kill()
            LOST.append(time.monotonic())

        threading.Thread(target=lose_scheduler, daemon=True).start()
    else:
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        address = cluster.scheduler_address
        threading.Thread(target=lose_workers, args=(cluster, mode), daemon=True).start()
    try:
        code = cli(["study", "t", "--cluster", address, "--out", str(out), "--quiet"])
    finally:
        for process in processes:
            process.kill()
    print("RESULT", json.dumps({"code": code, "after": time.monotonic() - LOST[0]}), flush=True)
    os._exit(0)  # the test's cluster is not the subject


LOST = []
if __name__ == "__main__":
    mode, out, LONG = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    SLOW = json.loads(sys.argv[4])
    main()
"""


def _dask_study(tmp_path: Path, mode: str) -> tuple[dict, list[str], Path]:
    """The DASK script in a session of its own (killed whole if it hangs): its result, its
    stderr lines from nlpmbd, and the study's directory."""
    pytest.importorskip("distributed")
    script, out = tmp_path / "dask_study.py", tmp_path / "study"
    script.write_text(DASK)
    proc = subprocess.Popen(
        [sys.executable, str(script), mode, str(out), str(LONG), json.dumps(SLOW)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the Dask study ({mode}) hung")
    finally:
        with __import__("contextlib").suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the cluster's processes
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, stderr[-3000:]
    mine = [line for line in stderr.splitlines() if line.startswith("nlpmbd")]
    return json.loads(lines[0].removeprefix("RESULT ")), mine, out


@pytest.mark.slow
def test_a_dask_study_that_lost_every_worker_ends_with_failed_rows(tmp_path):
    result, err, out = _dask_study(tmp_path, "workers")
    assert result["code"] == 3 and result["after"] < 15.0
    rows = _table(out)
    assert [rows[f"long{k}"]["status"] for k in range(2)] == ["failed", "failed"]
    assert all("no worker for 1 s" in rows[f"long{k}"]["message"] for k in range(2))
    assert (out / "study.json").is_file()


@pytest.mark.slow
def test_ctrl_c_ends_a_dask_study_within_seconds(tmp_path):
    """All workers gone, then one Ctrl-C: the study ends and writes its table at once."""
    result, err, out = _dask_study(tmp_path, "interrupt")
    assert result["code"] == 130 and result["after"] < 10.0, result
    assert len(err) == 1 and "interrupted" in err[0], err
    assert {row["status"] for row in _table(out).values()} <= {"ok", "not run"}


@pytest.mark.slow
def test_a_lost_dask_scheduler_is_one_line_and_the_table_of_what_completed(tmp_path):
    result, err, out = _dask_study(tmp_path, "scheduler")
    assert result["code"] == 3 and result["after"] < 15.0
    assert len(err) == 1 and "lost the Dask scheduler" in err[0], err
    assert "holds the 1 runs that completed" in err[0]
    rows = _table(out)
    assert rows["short"]["status"] == "ok"
    assert all(rows[f"long{k}"]["message"].startswith("lost the Dask scheduler") for k in range(2))


class _Future:
    """What study_dask reads of a Dask future: its status, result and exception."""

    def __init__(self, status: str, result=None, error: Exception | None = None):
        self.status, self._result, self._error = status, result, error

    def result(self, timeout: float):
        if isinstance(self._result, Exception):
            raise self._result
        return self._result

    def exception(self, timeout: float) -> Exception | None:
        return self._error


class _Client:
    def __init__(self, workers: int | None):
        self.workers = workers

    def scheduler_info(self, n_workers: int) -> dict:
        if self.workers is None:
            raise OSError("scheduler gone")
        return {"workers": {f"w{k}": {} for k in range(self.workers)}}


def test_a_dask_task_that_failed_or_was_lost_is_a_failed_row():
    """Fast cover of apps/study_dask.py without a cluster (its cluster runs are slow tests)."""
    from nlpmbd.apps.study import RunOutcome, RunSpec
    from nlpmbd.apps.study_dask import _outcome, _workerless

    spec = RunSpec("a", "pendulum")
    done = RunOutcome("a", "ok", "/r/runs/a")
    assert _outcome(_Future("finished", done), spec, "/r") is done
    lost = _outcome(_Future("finished", KeyError("gone")), spec, "/r")
    assert (lost.status, lost.message) == ("failed", "KeyError: 'gone'")
    assert lost.directory == os.path.join("/r", "runs", "a")
    error = _outcome(_Future("error", error=ValueError("bad")), spec, "/r")
    assert error.message == "its Dask task failed (ValueError: bad)"
    assert _outcome(_Future("cancelled"), spec, "/r").message == "its Dask task was cancelled"
    assert _workerless(_Client(2), 5.0) is None  # a worker: the clock stops
    since = _workerless(_Client(0), None)
    assert since is not None and _workerless(_Client(0), since) == since
    assert _workerless(_Client(None), 7.0) == 7.0  # cannot tell: unchanged
