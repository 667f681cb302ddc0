"""A case's own option defaults (Case.options) below the caller's options, at every entry point:
`simulate` (the Python API), `nlpmbd run` (tests/test_cli.py), studies and the benchmark."""

from __future__ import annotations

import dataclasses
import json

import pytest

from nlpmbd import InputError, SimulationOptions, simulate
from nlpmbd.apps import registry
from nlpmbd.apps.bench import measure, mode_options
from nlpmbd.apps.bench_report import MODES, Mode
from nlpmbd.apps.study import RunSpec
from nlpmbd.apps.study_run import run_specs

#: An h range the NLP chooses within: `solver=auto` takes the NLP path there, so a case's
#: `solver: qp` is what puts the run on the QP path.
NLP_H = {"h_min": 1e-3, "h_max": 2e-3, "step_control": "nlp"}


def _qp_pendulum():
    """The pendulum case, choosing the QP path for itself (as a flexible slider does)."""
    case = registry.get_case("pendulum")
    return dataclasses.replace(case, name="qp_pendulum", options=lambda p: {"solver": "qp"})


def test_simulate_takes_the_cases_option_defaults():
    """stick_slip with slider=flexible chooses the QP path, in the API as on the command line."""
    system, _ = registry.get_case("stick_slip").build({"slider": "flexible", "elements": 4})
    assert system.option_defaults == {"solver": "qp"}
    result = simulate(system, SimulationOptions(t_end=0.004, **NLP_H))
    assert result.meta["solver_path"] == "qp"
    assert result.meta["options"]["path"]["solver"] == "qp"


def test_given_options_win_over_the_case_defaults():
    chosen = {"solver": "qp"}
    assert SimulationOptions(**NLP_H).over(chosen).solver_path.value == "qp"
    # a value given explicitly stays, even the default one
    for given in ({"solver": "nlp"}, {"solver": "auto"}):
        options = SimulationOptions(**NLP_H, **given).over(chosen)
        assert options.path.solver.value == given["solver"]
    # a group given whole gives all of its options; replace() gives the ones it names
    whole = SimulationOptions(path=SimulationOptions().path, **NLP_H)
    assert whole.over(chosen).path.solver.value == "auto"
    assert SimulationOptions(**NLP_H).replace(solver="nlp").over(chosen).path.solver == "nlp"
    # a resumed run's options (meta.json) are all given: a case's defaults change nothing
    stored = SimulationOptions.from_dict(SimulationOptions(**NLP_H).as_dict())
    assert stored.over(chosen).path.solver.value == "auto"
    merged = SimulationOptions(**NLP_H).over(chosen)
    assert merged.given == SimulationOptions(**NLP_H).given  # defaults do not become given


def test_bad_option_defaults_are_input_errors():
    case = registry.get_case("pendulum")
    with pytest.raises(InputError, match="case bad: options must return a mapping"):
        dataclasses.replace(case, name="bad", options=lambda p: ["solver"]).build({})
    with pytest.raises(InputError, match="case bad: options must be a callable"):
        dataclasses.replace(case, name="bad", options={"solver": "qp"})
    with pytest.raises(InputError, match="unknown option 'solvr'"):
        SimulationOptions().over({"solvr": "qp"})


def test_bench_measures_a_case_with_its_option_defaults():
    case = dataclasses.replace(_qp_pendulum(), h_min=1e-3, h_max=2e-3)
    mode = Mode("nlp variable h", fixed_h=False, options={"step_control": "nlp"})
    measurement, result = measure(case.name, case, mode, 0, 0.01)
    assert measurement.error is None and result is not None
    assert result.meta["solver_path"] == "qp"


def test_study_runs_a_case_with_its_option_defaults(tmp_path, monkeypatch):
    case = _qp_pendulum()
    cases = {**registry.load_cases(), case.name: case}
    monkeypatch.setattr(registry, "load_cases", lambda: cases)
    specs = [
        RunSpec("case", case.name, t_end=0.01, **NLP_H),
        RunSpec("given", case.name, t_end=0.01, solver="nlp", **NLP_H),
    ]
    outcomes = run_specs(specs, tmp_path, workers=1)
    assert [o.status for o in outcomes] == ["ok", "ok"], [o.message for o in outcomes]
    paths = [
        json.loads((tmp_path / "runs" / s.label / "meta.json").read_text())["solver_path"]
        for s in specs
    ]
    assert paths == ["qp", "nlp"]


def test_every_bench_mode_takes_the_path_it_is_named_after():
    """The nlp modes say solver=nlp: with solver=auto they took the QP path (since issue 19)."""
    case = registry.get_case("revolute")
    for mode in MODES:
        path = mode_options(case, mode, 1.0).solver_path.value
        assert path == ("qp" if mode.name.startswith("qp") else "nlp"), mode.name


def test_a_cases_step_range_for_its_parameters(tmp_path, monkeypatch, capsys):
    """The backlash pendulum's own h_min (1e-5 s: the stops' impacts resolved) in `nlpmbd run`
    and in a study; the case's general range elsewhere; a given --h-min wins."""
    from nlpmbd.apps.cli import main

    system, _ = registry.get_case("pendulum").build({"joint": "backlash"})
    assert system.option_defaults["h_min"] == 1e-5
    args = ["run", "pendulum", "--t-end", "0.01", "--no-plot"]
    for given, h_min in (([], 1e-5), (["--h-min", "1e-4"], 1e-4)):
        out = tmp_path / f"run{len(given)}"
        assert main([*args, "--set", "joint=backlash", *given, "--out", str(out)]) == 0
        meta = json.loads((out / "meta.json").read_text())
        assert meta["options"]["time"]["h_min"] == h_min
    assert main([*args, "--out", str(tmp_path / "ideal")]) == 0
    meta = json.loads((tmp_path / "ideal" / "meta.json").read_text())
    assert meta["options"]["time"]["h_min"] == 1e-3
    spec = RunSpec("backlash", "pendulum", {"joint": "backlash"}, t_end=0.01)
    (outcome,) = run_specs([spec], tmp_path / "study", workers=1)
    assert outcome.status == "ok", outcome.message
    meta = json.loads((tmp_path / "study" / "runs" / "backlash" / "meta.json").read_text())
    assert meta["options"]["time"]["h_min"] == 1e-5
