"""A model file's [parameters] (issue 33, item 0): typed, ranged parameters referenced as
"$name", set by --set and --compare as a built-in case's; a bad value or reference is one line
naming the file and key (and the range)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import InputError, SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.cli import main
from nlpmbd.apps.registry import get_case
from nlpmbd.io.model_file import load_model

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "revolute.toml"
ARRAYS = [f.name for f in fields(SimulationResult) if f.name not in ("meta", "solve_time")]

#: A pendulum on a loose pin pushed by a torque; PARAMETERS goes where [parameters] goes.
MODEL = """[model]
name = "m"
{parameters}
[[bodies]]
name = "arm"
mass = {mass}
inertia = [2e-3, 0.085, 0.085]
position = [0.5, 0.0, 0.0]
[[joints]]
type = "revolute_clearance"
name = "pin"
hole = "arm"
pin = "GROUND"
center = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
length = 0.05
hole_radius = {hole}
pin_radius = 0.01
axial_play = 0.0
ends_on = {side}
[[loads]]
type = "torque"
name = "push"
body = "arm"
value = [0.0, 0.0, {torque}]
"""
PARAMETERS = """[parameters]
clearance = {default = 1e-4, description = "radial clearance", low = 0.0, low_open = true, \
high = 0.01, unit = "m"}
amplitude = {default = 0.5, description = "torque amplitude", unit = "N m"}
side = {default = "pin", description = "body carrying the axis ends", choices = ["pin", "hole"]}
mass = {default = 1, description = "mass of the arm", low = 0, low_open = true, unit = "kg"}
"""
PLAIN = dict(
    parameters="", mass="1.0", hole="0.0101", side='"pin"', torque='"0.5 * sin(2 * pi * t)"'
)
REFERENCED = dict(
    parameters=PARAMETERS,
    mass='"$mass"',
    hole='"0.01 + ${clearance}"',
    side='"$side"',
    torque='"$amplitude * sin(2 * pi * t)"',
)


def _write(path: Path, **fields: str) -> Path:
    path.write_text(MODEL.format(**fields))
    return path


def _arrays(system) -> dict[str, np.ndarray]:
    options = SimulationOptions(t_end=0.02, h_min=1e-3, h_max=1e-3, solver="qp", codegen="off")
    result = simulate(system, options)
    return {k: np.asarray(getattr(result, k)) for k in ARRAYS}


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    for key in ARRAYS:
        assert a[key].tobytes() == b[key].tobytes(), key


@pytest.mark.slow
def test_references_give_the_system_written_out(tmp_path):
    plain = load_model(_write(tmp_path / "plain.toml", **PLAIN), options=SimulationOptions)
    model = load_model(_write(tmp_path / "m.toml", **REFERENCED), options=SimulationOptions)
    assert [p.name for p in model.case.parameters] == ["clearance", "amplitude", "side", "mass"]
    kinds = {p.name: p.kind for p in model.case.parameters}
    assert kinds == {"clearance": float, "amplitude": float, "side": str, "mass": float}
    _same(_arrays(model.system), _arrays(plain.system))
    changed = {"clearance": "1e-3", "amplitude": "2", "side": "hole", "mass": "3"}
    system, params = model.case.build(changed)
    assert params == {"clearance": 1e-3, "amplitude": 2.0, "side": "hole", "mass": 3.0}
    pin = system.joints[0]
    assert (pin.hole_radius, pin.ends_on, system.bodies[0].mass) == (0.01 + 1e-3, "hole", 3.0)
    written = dict(PLAIN, mass="3.0", hole=repr(0.01 + 1e-3), side='"hole"')
    written["torque"] = '"2.0 * sin(2 * pi * t)"'
    _same(_arrays(system), _arrays(load_model(_write(tmp_path / "w.toml", **written)).system))


@pytest.mark.slow
def test_the_example_is_the_case_at_any_parameter_values():
    """examples/revolute.toml's [parameters] against `nlpmbd run revolute --set ...`."""
    model = load_model(EXAMPLE, options=SimulationOptions)
    declared = {p.name: p for p in model.case.parameters}
    case = {p.name: p for p in get_case("revolute").parameters}
    for name, prm in declared.items():  # the case's own declarations
        assert (prm.default, prm.describe_range(), prm.unit) == (
            case[name].default,
            case[name].describe_range(),
            case[name].unit,
        )
    values = {"clearance": "1e-3", "axial_play": "0", "mu": "0.1"}
    _same(_arrays(model.case.build(values)[0]), _arrays(get_case("revolute").build(values)[0]))


@pytest.mark.parametrize(
    ("argv", "where", "reason"),
    [
        (["--set", "clearance=0.5"], "m.toml: parameters.clearance:", "(0, 0.01], got '0.5'"),
        (["--set", "clearance=abc"], "m.toml: parameters.clearance:", "float in (0, 0.01]"),
        (["--set", "side=left"], "m.toml: parameters.side:", "one of pin, hole"),
        (["--set", "mass=0"], "m.toml: parameters.mass:", "(0, 1e+12]"),
        (["--set", "length=1"], "m.toml: parameters:", "unknown parameter 'length'"),
        (["--compare", "gravity=1"], "m.toml: parameters:", "unknown parameter 'gravity'"),
    ],
)
def test_a_bad_value_on_the_command_line_is_one_line(
    tmp_path, monkeypatch, capsys, argv, where, reason
):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "m.toml", **REFERENCED)
    assert main(["run", "m.toml", "--t-end", "0.002", "--quiet", "--no-plot", *argv]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"nlpmbd: error: {where}"), lines
    assert reason in lines[0], lines[0]


@pytest.mark.parametrize(
    ("parameters", "fields", "message"),
    [
        ('[parameters]\nclearance = {default = "a", description = "c", type = "float"}\n',
         {}, "m.toml: parameters.clearance: must be float"),
        ("[parameters]\nclearance = {default = 1.0, description = \"c\", high = 0.01}\n",
         {}, "m.toml: parameters.clearance: must be float in [-1e+12, 0.01], got 1.0"),
        ('[parameters]\nclearance = {default = 1e-4, description = "c", type = "real"}\n',
         {}, "m.toml: parameters.clearance.type: must be one of float, int, bool, str"),
        ("[parameters]\nclearance = {default = 1e-4}\n",
         {}, "m.toml: parameters.clearance.description: missing"),
        ('[parameters]\nclearance = {default = 1e-4, description = "c", step = 1}\n',
         {}, "m.toml: parameters.clearance.step: unknown key"),
        ("[parameters]\nclearance = 1e-4\n", {}, "m.toml: parameters.clearance: must be a table"),
        ('[parameters]\nclearance = {default = "a", description = "c", low = 0}\n',
         {}, "m.toml: parameters.clearance.low: applies to a number parameter; this one is str"),
        ('[parameters]\n', {"hole": '"0.01 + $clearance"'},
         "m.toml: joints[0].hole_radius: unknown parameter $clearance (parameters: none)"),
        ('[parameters]\n', {"hole": '"0.01 + $"'}, "m.toml: joints[0].hole_radius: '0.01 + $'"),
        ('[parameters]\nc = {default = 1e-4, description = "c"}\n', {"hole": '"0.01 + $c +"'},
         "m.toml: joints[0].hole_radius"),
    ],
)  # fmt: skip
def test_a_bad_declaration_or_reference_names_its_key(tmp_path, parameters, fields, message):
    path = _write(tmp_path / "m.toml", **{**PLAIN, "parameters": parameters, **fields})
    with pytest.raises(InputError) as err:
        load_model(path, options=SimulationOptions)
    text = str(err.value)
    assert text.startswith(f"{tmp_path}/{message}") and "\n" not in text, text


def test_setting_a_parameter_referenced_nowhere_is_refused(tmp_path):
    unused = PARAMETERS.replace("amplitude", "unused_amplitude")  # the torque keeps its number
    path = _write(tmp_path / "m.toml", **{**REFERENCED, "parameters": unused, "torque": "0.5"})
    model = load_model(path, options=SimulationOptions)  # declared but unused: loads
    with pytest.raises(InputError, match=r"parameters.unused_amplitude: has no effect"):
        model.case.build({"unused_amplitude": 1.0})


def test_dollar_signs_without_parameters_and_escaped(tmp_path):
    """Without [parameters] a value is what it says ('$x$' names a body); with it, '$$' is '$'."""
    text = MODEL.format(**PLAIN).replace('"arm"', '"$a$"')
    (tmp_path / "plain.toml").write_text(text)
    assert load_model(tmp_path / "plain.toml").system.bodies[0].name == "$a$"
    escaped = MODEL.format(**REFERENCED).replace('name = "arm"', 'name = "$a$"')
    escaped = escaped.replace('"arm"', '"$$a$$"')
    (tmp_path / "escaped.toml").write_text(escaped)
    system = load_model(tmp_path / "escaped.toml").system
    assert system.bodies[0].name == "$a$" and system.joints[0].parent.name == "$a$"


@pytest.mark.slow
def test_compare_runs_the_file_at_both_values(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "m.toml", **REFERENCED)
    argv = ["run", "m.toml", "--t-end", "0.01", "--quiet", "--no-plot", "--out", "R"]
    assert main([*argv, "--set", "clearance=1e-3", "--compare", "clearance=1e-4"]) == 0
    run, other = SimulationResult.load(tmp_path / "R"), SimulationResult.load(tmp_path / "R-1e-4")
    assert run.meta["parameters"]["clearance"] == 1e-3
    assert other.meta["parameters"]["clearance"] == 1e-4
    assert run.meta["source"]["path"] == str(tmp_path / "m.toml")
    assert not np.array_equal(run.q, other.q)  # the looser pin lets the arm fall farther
    assert run.q[-1, 1] < other.q[-1, 1]
