"""Issue 12, items 9, 10 and 13: typed IPOPT options, parameters that would be ignored, and a
damaged compiled library in the cache."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from nlpmbd import InputError, SimulationOptions
from nlpmbd.apps.cli import main


@pytest.mark.parametrize(
    ("option", "fragment"),
    [
        ("max_iter=4294967297", "ipopt max_iter must be an integer in [0, 2147483647]"),
        ("max_iter=1.5", "ipopt max_iter must be an integer"),
        ("max_iter=99999999999999999999", "ipopt max_iter must be an integer"),
        ("tol=-1", "ipopt tol must be a number in (0, inf)"),
        ("mu_strategy=fastest", "ipopt mu_strategy must be one of monotone, adaptive"),
        ("linear_solver=ma57", "ipopt linear_solver='ma57' is not usable with this IPOPT build"),
        ("no_such_option=1", "ipopt option 'no_such_option' is unknown to IPOPT"),
    ],
)
def test_bad_ipopt_options_exit_2_before_simulating(option, fragment, capsys, tmp_path):
    out = tmp_path / "out"
    assert main(["run", "revolute", "--ipopt", option, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0], err
    assert not out.exists()


def test_ipopt_options_take_ipopts_types():
    opts = SimulationOptions(ipopt={"max_iter": "50", "tol": "1e-9", "mu_strategy": "monotone"})
    assert opts.tolerances.ipopt == {"max_iter": 50, "tol": 1e-9, "mu_strategy": "monotone"}
    with pytest.raises(InputError, match="ipopt max_iter must be an integer"):
        SimulationOptions(ipopt={"max_iter": True})


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "pendulum", "--set", "clearance=1e-4"],
        ["run", "pendulum", "--set", "axial_play=1e-4"],
        ["run", "revolute", "--set", "joint=ideal", "--set", "clearance=1e-4"],
        ["run", "slider_crank_driven", "--set", "guide=ideal", "--set", "restitution=0.5"],
        ["run", "slider_crank_driven", "--set", "law=linear"],
        ["run", "stick_slip", "--set", "contact=compliant", "--set", "mu_static=0.3"],
        ["run", "pendulum", "--solver", "nlp", "--codegen", "on"],
    ],
    ids=lambda a: " ".join(a[1:]),
)
def test_parameters_that_would_do_nothing_are_refused(argv, capsys, tmp_path):
    assert main([*argv, "--t-end", "0.002", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no effect" in err or "applies to solver=qp" in err


def test_defaults_of_dependent_parameters_stay_silent(tmp_path):
    argv = ["run", "pendulum", "--set", "joint=ideal", "--t-end", "0.002", "--no-plot"]
    assert main([*argv, "--out", str(tmp_path), "--quiet"]) == 0


@pytest.mark.slow
def test_a_truncated_library_in_the_cache_is_rebuilt(tmp_path):
    """Loading a truncated shared library would kill the process (SIGBUS): its checksum is
    checked first and the library rebuilt."""
    from nlpmbd.run.codegen import find_compiler

    if find_compiler() is None:
        pytest.skip("no C compiler")
    code = textwrap.dedent(
        """
        import casadi as ca
        from nlpmbd.run.codegen import compile_function
        x = ca.SX.sym("x")
        f, how = compile_function(ca.Function("square_test", [x], [x * x]))
        print(how, float(f(3.0)))
        """
    )
    env = {"NLPMBD_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def run():
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        return p.stdout.split()

    assert run() == ["compiled", "9.0"]
    assert run() == ["cached", "9.0"]
    (lib,) = tmp_path.glob("*.so")
    lib.write_bytes(lib.read_bytes()[:1000])
    assert run() == ["compiled", "9.0"]
    assert run() == ["cached", "9.0"]
