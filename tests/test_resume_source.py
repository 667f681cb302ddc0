"""Nothing mixed (issue 34): `run --resume` continues only a run of the same model. A model file
edited after the checkpoint, or a built-in case resuming a model file's run of the same name
(and the other way round), is refused with one line naming the change; --force continues with
the model as it is now and records that in meta.json."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixtures import reseal

from nlpmbd import SimulationResult
from nlpmbd.apps.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum.toml"
QUIET = ["--no-plot", "--quiet"]


def _interrupted(model: str, out: Path, cwd: Path) -> None:
    """`run MODEL` stopped by Ctrl-C after its first checkpoint: a partial result in out."""
    argv = [model, "--t-end", "0.6", "--checkpoint-every", "1e-9", "--out", str(out), *QUIET]
    argv += ["--solver", "nlp"]  # the Python loop: still stepping when Ctrl-C comes
    proc = subprocess.Popen(
        [sys.executable, "-m", "nlpmbd", "run", *argv],
        cwd=cwd,
        env=dict(os.environ, MPLBACKEND="Agg"),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not (out / "meta.json").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert not SimulationResult.load(out).completed


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> Path:
    """A folder with pendulum.toml (the built-in case as a model file) and partial results of
    it (`file`) and of the built-in case (`case`)."""
    root = tmp_path_factory.mktemp("resume")
    shutil.copy(EXAMPLE, root / "pendulum.toml")
    _interrupted("pendulum.toml", root / "file", root)
    _interrupted("pendulum", root / "case", root)
    return root


@pytest.fixture()
def work(checkpoints, tmp_path, monkeypatch) -> Path:
    shutil.copytree(checkpoints, tmp_path / "w")
    monkeypatch.chdir(tmp_path / "w")
    return tmp_path / "w"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _refused(capsys, *words: str) -> None:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlpmbd: error: --resume"), lines
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.slow
def test_the_source_is_recorded(work):
    meta = json.loads((work / "file" / "meta.json").read_text())
    assert meta["source"]["kind"] == "model file" and len(meta["source"]["sha256"]) == 64
    assert json.loads((work / "case" / "meta.json").read_text())["source"] == {
        "kind": "case",
        "name": "pendulum",
    }


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("mass = 1.0", "mass = 2.0"),
        ("inertia = [0.002, 0.085, 0.085]", "inertia = [0.002, 0.085, 0.086]"),
        ("gravity = [0.0, -9.81, 0.0]", "gravity = [0.0, -3.7, 0.0]"),
    ],
)
def test_an_edited_model_file_is_refused(work, capsys, old, new):
    before = (work / "file" / "result.npz").read_bytes()
    _edit(work / "pendulum.toml", old, new)
    assert main(["run", "pendulum.toml", "--resume", "file", *QUIET]) == 2
    _refused(capsys, "pendulum.toml", "changed since the checkpoint", "--force")
    assert (work / "file" / "result.npz").read_bytes() == before


@pytest.mark.slow
def test_an_unchanged_model_file_resumes(work):
    _edit(work / "pendulum.toml", "# examples/pendulum.toml", "# examples/pendulum.toml")
    assert main(["run", "pendulum.toml", "--resume", "file", *QUIET]) == 0
    done = SimulationResult.load(work / "file")
    assert done.completed and done.meta["warnings"] == []


def test_a_built_in_case_does_not_resume_a_model_files_run(work, capsys):
    assert main(["run", "pendulum", "--resume", "file", *QUIET]) == 2
    _refused(capsys, "model file", "built-in case")
    assert main(["run", "pendulum.toml", "--resume", "case", *QUIET]) == 2
    _refused(capsys, "built-in case", "model file")


def test_a_result_without_a_source_is_refused(work, capsys):
    reseal(work / "case", lambda meta: meta.pop("source"))
    assert main(["run", "pendulum", "--resume", "case", *QUIET]) == 2
    _refused(capsys, "no model source")


@pytest.mark.slow
def test_force_resumes_and_records_the_change(work, capsys):
    _edit(work / "pendulum.toml", "mass = 1.0", "mass = 2.0")
    partial = SimulationResult.load(work / "file")
    assert main(["run", "pendulum.toml", "--resume", "file", "--force", *QUIET]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "changed since the checkpoint" in err
    done = SimulationResult.load(work / "file")
    assert done.completed and len(done.meta["resume_forced"]) == 1
    assert f"t = {partial.t[-1]:.6g} s" in done.meta["resume_forced"][0]
    assert done.meta["warnings"][0] == done.meta["resume_forced"][0]
    assert done.meta["source"]["sha256"] != partial.meta["source"]["sha256"]
