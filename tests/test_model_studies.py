"""Studies, sweeps and Dask runs of model files (issue 33, item 0): `RunSpec(label, FILE)`
carries the file's bytes, so a worker anywhere runs the same model; an edited file is another
spec; `clearance-sweep --set case=FILE` sweeps a file's clearance parameter, also on a local Dask
cluster whose worker runs in another directory; the runs record their model file, so `animate`
draws its joints."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fixtures import dask_worker_in

from nlpmbd import InputError, SimulationResult
from nlpmbd.apps.cli import main
from nlpmbd.apps.cli_animate import rebuild_scene
from nlpmbd.apps.study import RunSpec
from nlpmbd.apps.study_report import run_study
from nlpmbd.apps.study_run import execute, run_specs
from nlpmbd_cases.studies.clearance_sweep import CLEARANCE_SWEEP

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "revolute.toml"
#: A short run of the example (its own [options] ask for 5 s).
SHORT = {"t_end": 0.01, "h_min": 1e-3, "h_max": 1e-3}


def _copy(directory: Path) -> Path:
    path = directory / "pin.toml"
    path.write_text(EXAMPLE.read_text())
    return path


@pytest.mark.slow
def test_a_spec_carries_the_file_to_a_worker_in_another_directory(tmp_path, monkeypatch):
    client, worker = tmp_path / "client", tmp_path / "worker"
    client.mkdir()
    worker.mkdir()
    monkeypatch.chdir(client)
    _copy(client)
    spec = RunSpec("c", "pin.toml", {"clearance": 1e-3}, **SHORT)
    assert spec.model is not None and spec.model.path == str(client / "pin.toml")
    assert spec.as_dict()["model_sha256"] == spec.model.sha256
    monkeypatch.chdir(worker)  # where the file is not
    outcome = execute(spec, str(tmp_path / "study"))
    assert outcome.status == "ok", outcome.message
    result = SimulationResult.load(outcome.directory)
    assert result.meta["parameters"]["clearance"] == 1e-3 and result.completed
    assert result.meta["source"]["sha256"] == spec.model.sha256
    scene, note = rebuild_scene(result)  # animate finds the file where the client had it
    assert note == "" and scene.from_system and [k.kind for k in scene.links] == ["pin"]
    assert scene.links[0].clearance == pytest.approx(1e-3)


@pytest.mark.slow
def test_an_edited_file_is_another_spec(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _copy(tmp_path)
    before = RunSpec("c", "pin.toml", **SHORT)
    first = run_specs([before], "s", workers=1)
    again = run_specs([RunSpec("c", "pin.toml", **SHORT)], "s", workers=1)
    assert [first[0].status, again[0].status] == ["ok", "reused"]
    path.write_text(path.read_text().replace("mass = 1.0", "mass = 2.0"))
    scene, note = rebuild_scene(SimulationResult.load(first[0].directory))
    assert "changed since the run" in note and not scene.from_system  # cubes, not a wrong model
    after = RunSpec("c", "pin.toml", **SHORT)
    assert after.as_dict()["model_sha256"] != before.as_dict()["model_sha256"]
    edited = run_specs([after], "s", workers=1)
    assert edited[0].status == "ok"
    assert SimulationResult.load(edited[0].directory).meta["spec"] == after.as_dict()


def test_bad_model_file_specs_are_refused_where_they_are_made(tmp_path):
    with pytest.raises(InputError, match=r"missing\.toml: cannot read the model file"):
        RunSpec("a", str(tmp_path / "missing.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace('"$mu"', '"$friction"'))
    with pytest.raises(InputError, match=r"contact.mu: unknown parameter \$friction"):
        RunSpec("a", str(bad))
    text = EXAMPLE.read_text()
    head, body = text.split("[parameters.clearance]")[0], text.split("[[bodies]]", 1)[1]
    for reference, value in (
        ("$mu", "0.0"),
        ("$axial_play", "0.0001"),
        ("0.01 + $clearance", "0.0101"),
    ):
        body = body.replace(f'"{reference}"', value)
    plain = tmp_path / "plain.toml"
    plain.write_text(f"{head}[[bodies]]{body}")
    with pytest.raises(InputError, match="has no parameter clearance"):
        run_study(CLEARANCE_SWEEP, {"case": str(plain)}, tmp_path / "s", workers=1)


@pytest.mark.slow
def test_the_sweep_of_a_model_file_is_the_sweep_of_its_case(tmp_path, monkeypatch):
    """clearance-sweep of examples/revolute.toml: the revolute case's runs, bit for bit."""
    monkeypatch.chdir(tmp_path)
    _copy(tmp_path)
    argv = ["study", "clearance-sweep", "--set", "clearances=1e-2,1e-3", "--t-end", "0.01"]
    assert (
        main([*argv, "--set", "case=pin.toml", "--out", "file", "--quiet", "--workers", "1"]) == 0
    )
    assert (
        main([*argv, "--set", "case=revolute", "--out", "case", "--quiet", "--workers", "1"]) == 0
    )
    rows = (tmp_path / "file" / "table.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["c=0.01", "c=0.001"]  # no joint: no ideal
    for label in ("c=0.01", "c=0.001"):
        mine = SimulationResult.load(tmp_path / "file" / "runs" / label)
        theirs = SimulationResult.load(tmp_path / "case" / "runs" / label)
        assert mine.meta["source"]["kind"] == "model file"
        assert np.array_equal(mine.q, theirs.q) and np.array_equal(
            mine.joint_force, theirs.joint_force
        )


@pytest.mark.slow
def test_a_clearance_sweep_of_a_model_file_on_dask_with_a_worker_elsewhere(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    client_dir, worker_dir = tmp_path / "client", tmp_path / "worker"
    client_dir.mkdir()
    worker_dir.mkdir()
    monkeypatch.chdir(client_dir)
    _copy(client_dir)
    with dask_worker_in(worker_dir) as address:
        argv = ["study", "clearance-sweep", "--set", "case=pin.toml", "--quiet"]
        argv += ["--set", "clearances=1e-2,1e-3", "--t-end", "0.02", "--out", "sweep"]
        assert main([*argv, "--cluster", address]) == 0
    assert not (worker_dir / "sweep").exists() and not (worker_dir / "pin.toml").exists()
    serial = run_specs(
        [RunSpec("c=0.001", "pin.toml", {"clearance": 1e-3}, t_end=0.02, h_min=1e-3, h_max=1e-3)],
        "serial",
        workers=1,
    )
    study = json.loads((client_dir / "sweep" / "study.json").read_text())
    assert [r["outcome"]["status"] for r in study["runs"]] == ["ok", "ok"], study["runs"]
    assert {r["spec"]["model_sha256"] for r in study["runs"]} == {
        RunSpec("x", "pin.toml").as_dict()["model_sha256"]
    }
    for label, c in (("c=0.01", 1e-2), ("c=0.001", 1e-3)):
        run = SimulationResult.load(client_dir / "sweep" / "runs" / label)
        assert run.completed and run.meta["parameters"]["clearance"] == c
    there = SimulationResult.load(client_dir / "sweep" / "runs" / "c=0.001")
    here = SimulationResult.load(serial[0].directory)
    assert np.array_equal(there.q, here.q) and np.array_equal(there.joint_force, here.joint_force)
