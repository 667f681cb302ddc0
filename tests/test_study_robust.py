"""Issue 12, items 11-12: a study whose runs fail or are interrupted still writes its table
(one row per run, with how it ended) and study.json; Ctrl-C stops it promptly with exit 130."""

from __future__ import annotations

import csv
import json
import os
import signal

import pytest

from nlpmbd.apps.cli import main
from nlpmbd.apps.registry import get_study, load_studies
from nlpmbd.apps.study import RunOutcome, RunSpec
from nlpmbd.apps.study_report import run_study


def _table(out) -> list[dict]:
    with open(out / "table.csv") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "failed"),
    [
        (["clearance-sweep", "--set", "clearances=1e-2,0.5"], {"c=0.5"}),
        (["step-strategies", "--set", "h_min=0.01", "--set", "h_max=0.001"], {"nlp", "controller"}),
    ],
)
def test_a_failed_run_is_a_row_of_the_table(tmp_path, argv, failed):
    out = tmp_path / "study"
    code = main(["study", *argv, "--t-end", "0.02", "--workers", "1", "--out", str(out), "--quiet"])
    assert code == 3
    rows = _table(out)
    assert {r["run"] for r in rows if r["status"] == "failed"} == failed
    assert all(r["message"] for r in rows if r["status"] == "failed")
    assert all(r["status"] == "ok" for r in rows if r["run"] not in failed)
    info = json.loads((out / "study.json").read_text())
    assert len(info["runs"]) == len(rows) and info["analysis_error"] == ""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(load_studies()))
def test_every_study_tabulates_a_run_that_failed(tmp_path, monkeypatch, name):
    """The last run of each study fails: its analysis draws the others and keeps its row."""
    import nlpmbd.apps.study_run as runner

    study = get_study(name)
    specs = study.specs({p.name: p.default for p in study.parameters} | {"t_end": 0.01})
    real = runner.execute

    def last_fails(spec, root, stop=None):
        if spec.label == specs[-1].label:
            return RunOutcome(spec.label, "failed", str(root), "made to fail")
        return real(spec, root, stop)

    monkeypatch.setattr(runner, "execute", last_fails)
    report = run_study(study, {"t_end": "0.01"}, tmp_path, workers=1)
    assert report.analysis_error == ""
    rows = _table(tmp_path)
    assert [r["run"] for r in rows] == [s.label for s in specs]
    assert rows[-1]["status"] == "failed" and rows[-1]["message"] == "made to fail"
    assert all(r["status"] == "ok" for r in rows[:-1])


@pytest.mark.slow
def test_ctrl_c_stops_a_serial_study_and_writes_what_completed(tmp_path, monkeypatch, capsys):
    import nlpmbd.apps.study_run as runner

    real, started = runner.execute, []

    def second_is_interrupted(spec, root, stop=None):
        started.append(spec.label)
        if len(started) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while this run starts
        return real(spec, root, stop)

    monkeypatch.setattr(runner, "execute", second_is_interrupted)
    out = tmp_path / "study"
    argv = ["study", "step-ranges", "--t-end", "0.02", "--workers", "1", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 130
    assert len(started) == 2  # no run was started after the interruption
    rows = _table(out)
    assert [r["status"] for r in rows[:2]] == ["ok", "interrupted"]
    assert all(r["status"] == "not run" for r in rows[2:]) and len(rows) == 6
    assert (out / "study.json").is_file()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "run the same command again" in err[0]
    # the same command again reuses the completed run and finishes the others
    assert main([*argv, "--quiet"]) == 0
    assert _table(out)[0]["status"] == "reused"


@pytest.mark.slow
def test_a_pool_study_stops_promptly(tmp_path):
    """Stopped after the first run finishes: the other runs are abandoned, not waited for."""
    from nlpmbd.apps.study_run import run_specs

    # the others on the Python loop: still running when the first has finished
    slow = {"t_end": 2.0, "solver": "nlp", "predictor": False}
    specs = [RunSpec(f"run{k}", "pendulum", **(slow if k else {"t_end": 0.01})) for k in range(4)]
    done = []
    outcomes = run_specs(specs, tmp_path, workers=2, on_done=done.append, stop=lambda: bool(done))
    assert outcomes[0].status == "ok"
    assert {o.status for o in outcomes[1:]} <= {"ok", "not run"}
    assert any(o.status == "not run" for o in outcomes[1:])


def test_pool_workers_leave_ctrl_c_to_the_parent():
    from nlpmbd.apps.study_pool import _ignore_interrupts

    before = signal.getsignal(signal.SIGINT)
    try:
        _ignore_interrupts()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_study_out_is_checked_and_locked(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    argv = ["study", "step-ranges", "--t-end", "0.02", "--workers", "1", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "file")]) == 2
    from nlpmbd.io.outdir import OutputLock

    (tmp_path / "busy").mkdir()
    with OutputLock(tmp_path / "busy"):
        assert main([*argv, "--out", str(tmp_path / "busy")]) == 2
    err = capsys.readouterr().err
    assert "is a file" in err and "in use by" in err
