"""Studies: the same runs serially, on a process pool and on a Dask LocalCluster give identical
result arrays; completed runs are reused; a failed run does not stop the others."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import InputError, SimulationResult
from nlpmbd.apps.cli import main
from nlpmbd.apps.study import RunSpec
from nlpmbd.apps.study_run import run_specs
from nlpmbd.apps.study_tools import deviation
from nlpmbd.plots.panels import panels_figure, save_panels
from nlpmbd_cases.studies import clearance_sweep

SPECS = [
    RunSpec("ideal", "pendulum", {"joint": "ideal"}, t_end=0.05, h_min=1e-3, h_max=2e-3),
    RunSpec("loose", "pendulum", {"joint": "clearance", "clearance": 1e-4}, t_end=0.05),
    RunSpec("box", "box_drop", {"height": 0.001}, t_end=0.04, h_min=1e-3, h_max=1e-3),
]
TIMINGS = {"solve_time"}  # the only arrays allowed to differ between two runs


def _record_panels(monkeypatch) -> dict[str, list[list[tuple[str, np.ndarray, np.ndarray]]]]:
    """The clearance sweep's figures as drawn: file name -> per axes, (label, x, y) per line."""
    drawn = {}

    def record(path, title, panels, dpi=120):
        fig = panels_figure(title, panels)
        drawn[Path(path).name] = [
            [(ln.get_label(), ln.get_xdata(), ln.get_ydata()) for ln in ax.lines] for ax in fig.axes
        ]
        return save_panels(path, title, panels, dpi)

    monkeypatch.setattr(clearance_sweep, "save_panels", record)
    return drawn


def arrays(root, label):
    res = SimulationResult.load(root / "runs" / label)
    return {k: v for k, v in vars(res).items() if isinstance(v, np.ndarray) and k not in TIMINGS}


@pytest.mark.slow
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


@pytest.mark.slow
def test_study_command_writes_table_and_figures(tmp_path, capsys, monkeypatch):
    drawn = _record_panels(monkeypatch)
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
        assert (out / fig).is_file()
    # the figures' lines, read back from their Axes, are the runs' deviations from the ideal run
    ideal = SimulationResult.load(out / "runs" / "ideal")
    peaks = []
    for (label, x, y), c in zip(drawn["deviation.png"][0], ("1e-3", "1e-4"), strict=True):
        loose = SimulationResult.load(out / "runs" / f"c={float(c):g}")
        expected = deviation(loose, ideal)
        assert label == f"c={float(c):g}" and np.array_equal(x, loose.t)
        assert np.array_equal(y[expected > 1e-12], expected[expected > 1e-12])  # log floor
        peaks.append(expected.max())
    [(_, x, y)] = drawn["deviation_vs_clearance.png"][0]
    assert x.tolist() == [1e-3, 1e-4] and np.array_equal(y, peaks)
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


@pytest.mark.slow
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


def test_the_studies_declare_their_runs():
    """The fast cover of the built-in studies' run lists (their runs: test_study_robust.py):
    ideal-vs-clearance is both joints at the four step settings, step-strategies the NLP's h,
    a fixed h, the controller and the fine reference, on the same case and parameters."""
    from nlpmbd_cases.studies.ideal_vs_clearance import IDEAL_VS_CLEARANCE, STEP_SETTINGS
    from nlpmbd_cases.studies.step_strategies import STEP_STRATEGIES

    specs = IDEAL_VS_CLEARANCE.specs({"t_end": 0.5, "clearance": 2e-4})
    assert [s.label for s in specs] == [
        f"{joint}_{label}" for joint in ("ideal", "clearance") for label, _, _ in STEP_SETTINGS
    ]
    for s in specs:
        assert s.case == "pendulum" and s.options["t_end"] == 0.5
        assert s.params.get("clearance") == (2e-4 if s.params["joint"] == "clearance" else None)
    assert [(s.options["h_min"], s.options["h_max"]) for s in specs[4:]] == [
        (lo, hi) for _, lo, hi in STEP_SETTINGS
    ]
    p = {"t_end": 1.0, "case": "revolute", "joint": "clearance", "clearance": 1e-4}
    p |= {"h_min": 2e-4, "h_max": 2e-3, "h_fixed": 1e-3, "h_ref": 1e-5, "error_tol": 1e-4}
    specs = STEP_STRATEGIES.specs(p)
    assert [s.label for s in specs] == ["nlp", "fixed", "controller", "reference"]
    assert all(s.case == "revolute" and s.params["clearance"] == 1e-4 for s in specs)
    steps = [(s.options["h_min"], s.options["h_max"]) for s in specs]
    assert steps == [(2e-4, 2e-3), (1e-3, 1e-3), (2e-4, 2e-3), (1e-5, 1e-5)]
    assert specs[2].options["step_control"] == "controller"
    assert specs[2].options["error_tol"] == 1e-4
