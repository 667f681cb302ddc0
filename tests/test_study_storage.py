"""Where a study's runs on a cluster are written: in the directory the client asked for (made
absolute on the client, so a worker's working directory does not matter), by the worker when it
sees that directory (shared storage, checked with a marker file), otherwise returned to the
client and written there (issue 33)."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures import dask_worker_in

from nlpmbd import SimulationResult
from nlpmbd.apps.study import RunSpec, Study
from nlpmbd.apps.study_report import run_study
from nlpmbd.apps.study_run import execute, run_specs
from nlpmbd.apps.study_storage import Returned, keep_returned, run_on_worker, shared_marker

SPEC = RunSpec("short", "pendulum", t_end=0.005)


def _arrays(directory) -> dict[str, np.ndarray]:
    result = vars(SimulationResult.load(directory))
    return {k: v for k, v in result.items() if isinstance(v, np.ndarray) and k != "solve_time"}


def test_a_worker_that_sees_the_directory_writes_the_run_there(tmp_path):
    with shared_marker(str(tmp_path)) as marker:
        assert (tmp_path / marker).is_file()
        sent = run_on_worker(execute, SPEC, str(tmp_path), marker)
    assert not (tmp_path / marker).exists()  # the marker goes with the study
    assert not isinstance(sent, Returned) and sent.status == "ok"
    assert SimulationResult.load(tmp_path / "runs" / "short").completed


def test_a_worker_that_cannot_see_the_directory_returns_the_run_to_the_client(tmp_path):
    serial = run_specs([SPEC], tmp_path / "serial", workers=1)
    root = tmp_path / "study"
    root.mkdir()
    sent = run_on_worker(execute, SPEC, str(root), ".nlpmbd-shared.seen-by-no-worker")
    assert isinstance(sent, Returned) and sent.files and not (root / "runs").exists()
    outcome = keep_returned(sent, SPEC, str(root))  # on the client
    assert (outcome.status, outcome.directory) == ("ok", str(root / "runs" / "short"))
    assert outcome.iterations == serial[0].iterations
    mine, theirs = _arrays(root / "runs" / "short"), _arrays(tmp_path / "serial" / "runs" / "short")
    assert mine.keys() == theirs.keys()
    assert all(np.array_equal(mine[k], theirs[k]) for k in mine)
    blocked = tmp_path / "blocked" / "runs"
    blocked.mkdir(parents=True)
    (blocked / "short").write_text("a file where the run's folder goes")
    refused = keep_returned(sent, SPEC, str(blocked.parent))
    assert refused.status == "failed" and "could not be written" in refused.message


@pytest.mark.slow
def test_a_dask_worker_in_another_directory_writes_where_the_client_asked(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    client_dir, worker_dir = tmp_path / "client", tmp_path / "worker"
    client_dir.mkdir()
    worker_dir.mkdir()
    monkeypatch.chdir(client_dir)
    study = Study(
        "t",
        "one run",
        (),
        lambda p: [SPEC],
        lambda p, specs, results, out: [{"run": "short", "end": float(results["short"].t[-1])}],
    )
    with dask_worker_in(worker_dir) as address:
        report = run_study(study, {}, "study", cluster=address)
    assert [o.status for o in report.outcomes] == ["ok"], report.outcomes
    assert report.rows[0]["end"] == pytest.approx(0.005) and not report.analysis_error
    assert SimulationResult.load(client_dir / "study" / "runs" / "short").completed
    assert not (worker_dir / "study").exists()
    assert [p.name for p in (client_dir / "study").glob(".nlpmbd-shared*")] == []
