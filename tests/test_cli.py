"""The command line: bad input gives exit 2 and one line naming the parameter; a solver failure
gives exit 3 after writing the partial result; a normal run writes results and figures."""

from __future__ import annotations

import json
import subprocess
import sys

import casadi as ca
import numpy as np
import pytest

from nlpmbd import Case, Force, Parameter, SimulationResult
from nlpmbd.apps.cli import main
from nlpmbd.apps.registry import get_case

BAD_INPUTS = [
    # (arguments, word that the one-line message must contain)
    (["run", "pendulum", "--set", "mass=-1"], "mass"),
    (["run", "pendulum", "--set", "mass=0"], "mass"),
    (["run", "pendulum", "--set", "mass=abc"], "mass"),
    (["run", "pendulum", "--set", "mass=nan"], "mass"),
    (["run", "pendulum", "--set", "mass=true"], "mass"),
    (["run", "pendulum", "--set", "cm_x=inf"], "cm_x"),
    (["run", "pendulum", "--set", "cm_x=0"], "cm_x"),
    (["run", "pendulum", "--set", "length=1"], "length"),
    (["run", "pendulum", "--set", "mass"], "--set"),
    (["run", "pendulum", "--set", "mass="], "--set"),
    (["run", "pendulum", "--set", "mass=1", "--set", "mass=2"], "mass"),
    (["run", "pendulum", "--set", "jxx=-1"], "jxx"),
    (["run", "pendulum", "--set", "jzz=0.2"], "inertia"),  # J1 + J2 < J3: not a rigid body
    (["run", "pendulum", "--set", "g=-9.81"], "g"),
    (["run", "pendulum", "--set", "joint=loose"], "joint"),
    (["run", "free_body", "--set", "e0=0.5"], "orientation"),  # non-unit Euler parameters
    (["run", "free_body", "--set", "perturbation=2"], "perturbation"),
    (["run", "no_such_case"], "case"),
    (["run", "pendulum", "--h-min", "2e-3", "--h-max", "1e-3"], "h_min"),
    (["run", "pendulum", "--h-min", "nan"], "h_min"),
    (["run", "pendulum", "--h", "0"], "--h"),
    (["run", "pendulum", "--h", "-1e-3"], "--h"),
    (["run", "pendulum", "--h", "1e-3", "--h-min", "1e-3"], "--h"),
    (["run", "pendulum", "--h", "5", "--t-end", "1"], "h_max"),
    (["run", "pendulum", "--t-end", "0"], "t_end"),
    (["run", "pendulum", "--t-end", "nan"], "t_end"),
    (["run", "pendulum", "--t-end", "abc"], "--t-end"),
    (["run", "pendulum", "--formulation", "magic"], "formulation"),
    (["run", "pendulum", "--ipopt", "max_iter=abc"], "ipopt"),
    (["run", "pendulum", "--ipopt", "no_such_option=1"], "ipopt"),
    (["run", "pendulum", "--ipopt", "junk"], "--ipopt"),
    (["run"], "case"),
    (["fly"], "command"),
]


@pytest.mark.parametrize(("argv", "word"), BAD_INPUTS, ids=[" ".join(a) for a, _ in BAD_INPUTS])
def test_bad_input_exits_2_with_one_line(argv, word, capsys, tmp_path):
    code = main(
        [*argv, "--out", str(tmp_path / "out"), "--quiet", "--no-plot"]
        if argv and argv[0] == "run" and len(argv) > 1
        else argv
    )
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert err.startswith("nlpmbd: error: ") and word in err
    assert not (tmp_path / "out").exists()


def test_bad_result_directories_exit_2(tmp_path, capsys):
    missing = tmp_path / "missing"
    assert main(["plot", str(missing)]) == 2
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "meta.json").write_text("{not json")
    (broken / "result.npz").write_bytes(b"PK\x03\x04 truncated")
    assert main(["plot", str(broken)]) == 2
    (broken / "meta.json").write_text(json.dumps({"bodies": ["a"]}))
    assert main(["plot", str(broken)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and "does not exist" in lines[0]
    assert all("result.npz" in line for line in lines[1:])  # the arrays' file is read first


@pytest.mark.slow
def test_run_writes_results_and_figures_then_plot_redraws(tmp_path, capsys):
    out = tmp_path / "pend"
    assert main(["run", "pendulum", "--t-end", "0.05", "--h", "1e-3", "--out", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "50 steps" in summary and "EoM" in summary and "energy change" in summary
    res = SimulationResult.load(out)
    assert res.completed and res.n_steps == 50 and res.meta["case"] == "pendulum"
    assert res.meta["parameters"]["mass"] == 1.0 and res.meta["options"]["time"]["h_min"] == 1e-3
    assert (out / "energy.png").stat().st_size > 1000
    (out / "energy.png").unlink()
    assert main(["plot", str(out)]) == 0
    assert (out / "energy.png").is_file()


def _failing_case() -> Case:
    pendulum = get_case("pendulum")

    def build(params):
        system = pendulum.builder({**{p.name: p.default for p in pendulum.parameters}})
        body = system.bodies[0]
        t_fail = params["t_fail"]
        system.add_load(Force(body, lambda t, s: [0, ca.if_else(t > t_fail, np.nan, 0.0), 0]))
        return system

    return Case(
        "nan_force",
        "pendulum whose load turns NaN",
        (Parameter("t_fail", 0.01, "s"),),
        build,
        t_end=0.1,
        h_min=1e-3,
        h_max=1e-3,
    )


# The load is NaN after t_fail = 0.01 s (t = 10 x 1e-3 s summed is a little above 0.01): euler
# takes it at a step's start, so the step from t = 0.01 s fails; verlet's second kick takes it
# at the step's end, so the one to t = 0.01 s fails its scheme, and the retry ladder's last rung
# takes it first order (step/retry.py); the next fails both.
@pytest.mark.parametrize("scheme, steps, first_order", [("euler", 10, 0), ("verlet", 10, 1)])
def test_solver_failure_exits_3_after_writing_partial_results(
    tmp_path, capsys, monkeypatch, scheme, steps, first_order
):
    import nlpmbd.apps.registry as registry

    cases = {**registry.load_cases(), "nan_force": _failing_case()}
    monkeypatch.setattr(registry, "load_cases", lambda: cases)
    out = tmp_path / "fail"
    argv = ["run", "nan_force", "--integrator", scheme, "--out", str(out), "--quiet", "--no-plot"]
    code = main(argv)
    assert code == 3
    assert "solver failure" in capsys.readouterr().err
    partial = SimulationResult.load(out)
    assert not partial.completed and partial.meta["completed"] is False
    assert partial.n_steps == steps and partial.t[-1] == pytest.approx(steps * 1e-3)
    assert partial.meta["first_order_steps"] == first_order


@pytest.mark.slow
def test_console_script_exit_codes():
    """The installed entry point itself (not only main()) returns the exit codes."""
    bad = subprocess.run(
        [sys.executable, "-m", "nlpmbd", "run", "pendulum", "--set", "mass=-1"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    listing = subprocess.run(
        [sys.executable, "-m", "nlpmbd", "list"], capture_output=True, text=True
    )
    assert (
        listing.returncode == 0 and "pendulum" in listing.stdout and "free_body" in listing.stdout
    )
    assert "nlpmbd list --parts" in listing.stdout
    listing = subprocess.run(
        [sys.executable, "-m", "nlpmbd", "list", "--parts"], capture_output=True, text=True
    )
    # the joint types and contact laws of model files, each with its docstring's first sentence
    assert listing.returncode == 0
    assert "  revolute_backlash: A revolute joint with angular play" in listing.stdout
    assert "  gear_backlash: The teeth of an external spur-gear pair" in listing.stdout
    # with their keys: joint friction on the revolute, impact laws on the hard contact
    assert "point, axis, frictionloss, mu, pin_radius" in listing.stdout
    assert "restitution, mu, mu_static, impact" in listing.stdout
    assert "  spring_damper: A compliant contact whose force is implicit in the step:" in (
        listing.stdout
    )


def test_a_case_chooses_its_solver_below_the_flags(tmp_path, capsys):
    """stick_slip with slider=flexible runs on the QP path unless --solver says otherwise."""
    import json

    base = ["run", "stick_slip", "--set", "slider=flexible", "--set", "elements=4"]
    base += ["--t-end", "0.01", "--no-plot"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    assert "solver qp (the case's default" in capsys.readouterr().out
    assert main([*base, "--solver", "nlp", "--out", str(tmp_path / "b")]) == 0
    solvers = [
        json.loads((tmp_path / d / "meta.json").read_text())["options"]["path"]["solver"]
        for d in ("a", "b")
    ]
    assert solvers == ["qp", "nlp"]


def test_python_dash_m_runs_the_cli(monkeypatch, capsys):
    """nlpmbd/__main__.py in-process (the subprocess form: the slow test above): its exit code
    is main()'s."""
    import runpy

    monkeypatch.setattr(sys, "argv", ["nlpmbd", "run", "no_such_case"])
    with pytest.raises(SystemExit) as info:
        runpy.run_module("nlpmbd", run_name="__main__")
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith("nlpmbd: error: unknown case")
