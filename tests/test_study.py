"""Studies: the same runs serially, on a process pool and on a Dask LocalCluster give identical
result arrays; completed runs are reused; a failed run does not stop the others."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nlpmbd import InputError, SimulationResult
from nlpmbd.apps.cli import main
from nlpmbd.apps.study import RunSpec
from nlpmbd.apps.study_run import run_specs

SPECS = [
    RunSpec("ideal", "pendulum", {"joint": "ideal"}, t_end=0.05, h_min=1e-3, h_max=2e-3),
    RunSpec("loose", "pendulum", {"joint": "clearance", "clearance": 1e-4}, t_end=0.05),
    RunSpec("box", "box_drop", {"height": 0.001}, t_end=0.04, h_min=1e-3, h_max=1e-3),
]
TIMINGS = {"solve_time"}  # the only arrays allowed to differ between two runs


def arrays(root, label):
    res = SimulationResult.load(root / "runs" / label)
    return {k: v for k, v in vars(res).items() if isinstance(v, np.ndarray) and k not in TIMINGS}


def test_serial_pool_and_dask_give_identical_arrays(tmp_path):
    distributed = pytest.importorskip("distributed")
    serial = run_specs(SPECS, tmp_path / "serial", workers=1)
    pool = run_specs(SPECS, tmp_path / "pool", workers=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = run_specs(SPECS, tmp_path / "dask", cluster=cluster.scheduler_address)
    for outcomes in (serial, pool, dask):
        assert [o.label for o in outcomes] == [s.label for s in SPECS]
        assert all(o.status == "ok" for o in outcomes), [o.message for o in outcomes]
    for spec in SPECS:
        a = arrays(tmp_path / "serial", spec.label)
        for other in ("pool", "dask"):
            b = arrays(tmp_path / other, spec.label)
            for name, value in a.items():
                assert np.array_equal(value, b[name]), f"{spec.label}.{name} differs ({other})"


def test_completed_runs_are_reused_and_failures_reported(tmp_path):
    specs = SPECS[:1] + [RunSpec("bad", "pendulum", {"mass": -1.0}, t_end=0.05)]
    first = run_specs(specs, tmp_path, workers=1)
    assert [o.status for o in first] == ["ok", "failed"]
    assert "mass" in first[1].message
    again = run_specs(specs, tmp_path, workers=1)
    assert [o.status for o in again] == ["reused", "failed"]
    assert again[0].iterations == first[0].iterations
    # a changed spec under the same label is recomputed, not reused
    changed = [RunSpec("ideal", "pendulum", {"joint": "ideal"}, t_end=0.04, h_min=1e-3, h_max=2e-3)]
    assert run_specs(changed, tmp_path, workers=1)[0].status == "ok"


def test_bad_study_input_is_rejected(tmp_path):
    with pytest.raises(InputError, match="unique"):
        run_specs([SPECS[0], SPECS[0]], tmp_path)
    with pytest.raises(InputError, match="workers"):
        run_specs(SPECS, tmp_path, workers=0)
    with pytest.raises(InputError, match="label"):
        RunSpec("../escape", "pendulum")


def test_study_command_writes_table_and_figures(tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = [
        "study",
        "clearance-sweep",
        "--t-end",
        "0.03",
        "--set",
        "clearances=1e-3,1e-4",
        "--workers",
        "1",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    table = (out / "table.csv").read_text().splitlines()
    assert table[0].startswith("run,") and len(table) == 4  # header, ideal, two clearances
    assert (out / "table.md").read_text().count("| ok |") == 3
    for fig in ("deviation.png", "deviation_vs_clearance.png"):
        assert (out / fig).stat().st_size > 1000
    info = json.loads((out / "study.json").read_text())
    assert info["parameters"]["clearances"] == "1e-3,1e-4" and len(info["runs"]) == 3
    assert main(argv) == 0  # second time: every run reused
    assert json.loads((out / "study.json").read_text())["runs"][0]["outcome"]["status"] == "reused"
    assert main(["study", "nope"]) == 2
    assert (
        main(["study", "clearance-sweep", "--set", "clearances=a,b", "--out", str(tmp_path / "x")])
        == 2
    )
    err = capsys.readouterr().err
    assert "unknown study" in err and "clearances" in err


def test_a_study_takes_every_run_option(tmp_path):
    """Run options on the study command reach every run whose spec does not set them; the
    runs use the case's own option defaults, as `nlpmbd run` does; the sweep's "resolved" asks
    that the deviation be converged (error estimates below a tenth of it)."""
    out = tmp_path / "sweep"
    argv = ["study", "clearance-sweep", "--t-end", "0.03", "--set", "clearances=1e-4"]
    argv += ["--integrator", "euler", "--gap-linearization", "scalar", "--workers", "1"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    for label in ("ideal", "c=0.0001"):
        meta = json.loads((out / "runs" / label / "meta.json").read_text())
        assert meta["options"]["scheme"]["integrator"] == "euler"
        assert meta["options"]["scheme"]["gap_linearization"] == "scalar"
    rows = (out / "table.csv").read_text().splitlines()
    assert "resolved" in rows[0]
    assert main(["study", "clearance-sweep", "--integrator", "rk4", "--out", str(out)]) == 2
