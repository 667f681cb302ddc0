"""`nlpmbd fmu`: the FMU imported by fmpy agrees with `nlpmbd run` of the same model at equal
internal steps; an input torque moves the body as the closed form says; bad input is one line,
exit 2. The slave itself is also driven directly, without an FMI importer (fast)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nlpmbd.apps.cli import main
from nlpmbd.io.result import SimulationResult

pytest.importorskip("pythonfmu", reason="pythonfmu not installed (pip install 'nlpmbd[fmu]')")

#: A body spinning freely about z (no gravity, no joint), driven by the torque `motor`.
SPINNER = """
[model]
name = "spinner"
gravity = [0.0, 0.0, 0.0]

[[bodies]]
name = "disc"
mass = 2.0
inertia = [0.3, 0.3, 0.5]

[[loads]]
type = "torque"
name = "motor"
body = "disc"
value = [0.0, 0.0, TORQUE]
frame = "global"

[options]
t_end = 0.4
h_min = 0.002
h_max = 0.002
"""
IZZ = 0.5
#: The clearance pendulum at a fixed step (equal internal steps in the FMU and the run).
PENDULUM = ("--set", "joint=clearance", "--h", "1e-3", "--t-end", "0.3")


def _model(folder: Path, torque: float, h: float = 0.002) -> Path:
    path = folder / f"spinner_{torque:g}_{h:g}.toml"
    text = SPINNER.replace("TORQUE", repr(float(torque))).replace("0.002", repr(h))
    path.write_text(text)
    return path


def _run(tmp: Path, model: str, *flags: str) -> SimulationResult:
    out = tmp / f"run-{Path(model).stem}"
    assert main(["run", model, "--out", str(out), "--no-plot", "--quiet", *flags]) == 0
    return SimulationResult.load(out)


def _rows(result: SimulationResult, times: np.ndarray) -> np.ndarray:
    """The result's rows at the FMU's communication points (the same time points)."""
    rows = np.searchsorted(result.t, times - 1e-12)
    assert np.max(np.abs(result.t[rows] - times)) < 1e-12
    return rows


@pytest.fixture(scope="module")
def pendulum_fmu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fmu") / "pendulum.fmu"
    args = ["fmu", "pendulum", "-o", str(out), *PENDULUM]
    assert main([*args, "--output", "pendulum", "--output", "pin.force_y"]) == 0
    return out


@pytest.mark.slow
def test_fmpy_agrees_with_run(pendulum_fmu, tmp_path):
    """A clearance pendulum at a fixed step: the same numbers as the run (positions to 1e-9 m,
    velocities and the pin's force alike)."""
    fmpy = pytest.importorskip("fmpy", reason="fmpy not installed (pip install 'nlpmbd[fmu]')")
    fmu = fmpy.simulate_fmu(str(pendulum_fmu))
    run = _run(tmp_path, "pendulum", *PENDULUM)
    rows = _rows(run, fmu["time"])
    assert fmu["time"][-1] == pytest.approx(0.3)
    for i, c in enumerate("xyz"):
        assert np.max(np.abs(fmu[f"pendulum.{c}"] - run.q[rows, i])) < 1e-9
        assert np.max(np.abs(fmu[f"pendulum.v{c}"] - run.v[rows, i])) < 1e-7
    force = run.joint_force[rows, 0, 1]
    assert np.max(np.abs(fmu["pin.force_y"] - force)) < 1e-6 * np.max(np.abs(force))
    assert np.ptp(fmu["pendulum.y"]) > 0.1  # it swung


@pytest.mark.slow
def test_parameter_of_the_fmu(pendulum_fmu, tmp_path):
    """A case parameter set in the FMU is the same run as `--set` of it."""
    fmpy = pytest.importorskip("fmpy", reason="fmpy not installed (pip install 'nlpmbd[fmu]')")
    fmu = fmpy.simulate_fmu(str(pendulum_fmu), start_values={"mass": 2.0})
    run = _run(tmp_path, "pendulum", *PENDULUM, "--set", "mass=2")
    rows = _rows(run, fmu["time"])
    assert np.max(np.abs(fmu["pendulum.x"] - run.q[rows, 0])) < 1e-9
    assert np.max(np.abs(fmu["pin.force_y"] - run.joint_force[rows, 0, 1])) < 1e-9
    default = fmpy.simulate_fmu(str(pendulum_fmu), output=["pin.force_y"])
    assert np.max(np.abs(fmu["pin.force_y"] - default["pin.force_y"])) > 1.0  # it weighs more


@pytest.mark.slow
def test_input_torque(tmp_path):
    """The input motor.value_z = 3 N m spins the disc at w = 3 t / J (closed form), as the
    same torque written in the model file does; a torque switched off at 0.2 s keeps w."""
    fmpy = pytest.importorskip("fmpy", reason="fmpy not installed (pip install 'nlpmbd[fmu]')")
    out = tmp_path / "spinner.fmu"
    model = str(_model(tmp_path, 0.0))
    outputs = ("--output", "disc.wz", "--output", "disc.e3")
    assert main(["fmu", model, "-o", str(out), "--step", "0.02", *outputs]) == 0
    fmu = fmpy.simulate_fmu(
        str(out), start_values={"motor.value_z": 3.0}, output=["disc.wz", "disc.e3"]
    )
    t = fmu["time"]
    assert np.max(np.abs(fmu["disc.wz"] - 3.0 * t / IZZ)) < 1e-9
    # angle 3 t^2 / (2 J) as Euler parameter e3 = sin(angle / 2), to the scheme's accuracy
    assert np.max(np.abs(fmu["disc.e3"] - np.sin(3.0 * t**2 / (4 * IZZ)))) < 1e-3
    run = _run(tmp_path, str(_model(tmp_path, 3.0)))
    rows = _rows(run, t)
    assert np.max(np.abs(fmu["disc.e3"] - run.q[rows, 6])) < 1e-9
    signal = np.array([(0.0, 3.0), (0.2, 3.0), (0.2, 0.0), (1.0, 0.0)], dtype=[
        ("time", float), ("motor.value_z", float)
    ])  # fmt: skip
    switched = fmpy.simulate_fmu(str(out), input=signal, output=["disc.wz"])
    late = switched["time"] > 0.2 + 1e-9
    assert np.allclose(switched["disc.wz"][late], 3.0 * 0.2 / IZZ, rtol=0, atol=1e-9)


def _slave(fmu: Path, folder: Path) -> tuple[Any, dict[str, Any]]:
    from nlpmbd.apps.fmu_slave import NlpmbdSlave

    with zipfile.ZipFile(fmu) as archive:
        archive.extractall(folder)
    slave = NlpmbdSlave(instance_name="test", resources=str(folder / "resources"))
    return slave, {v.name: v for v in slave.vars.values()}


@pytest.mark.parametrize(
    "steps, tol", [((0.002, 0.018, 0.03), 0.0), ((0.0015, 0.0185, 0.03), 1e-5)]
)
def test_slave_steps_like_run(pendulum_fmu, tmp_path, steps, tol):
    """The slave driven directly (what an importer calls), its state kept between the calls:
    over communication steps on the run's grid it takes the run's steps (the same numbers);
    off the grid its last step lands on the communication point (numbers within the scheme's
    error)."""
    slave, names = _slave(pendulum_fmu, tmp_path / "fmu")
    assert {"mass", "pendulum.x", "pendulum.vz", "pin.force_y"} <= set(names)
    assert "pin.force_x" not in names
    slave.setup_experiment(0.0, 0.05, None)
    slave.exit_initialization_mode()
    x = names["pendulum.x"].getter
    assert x() == 0.5
    t = 0.0
    for dt in steps:
        assert slave.do_step(t, dt)
        t += dt
        assert slave.sim.state.t == pytest.approx(t, abs=1e-15)
    run = _run(tmp_path, "pendulum", *PENDULUM[:4], "--t-end", "0.05")
    assert abs(x() - run.q[-1, 0]) <= tol
    assert abs(names["pin.force_y"].getter() - run.joint_force[-1, 0, 1]) <= 1e3 * tol


@pytest.mark.slow
def test_many_steps_on_the_grid(tmp_path):
    """14000 steps of 1e-5 s in 140 communication steps: the points are on the run's grid
    although t is a sum of steps (1.6e-9 h from n h by the end), so the FMU takes the run's
    steps: the same numbers, bit for bit."""
    model = str(_model(tmp_path, 3.0, h=1e-5))
    out = tmp_path / "spinner.fmu"
    assert main(["fmu", model, "-o", str(out), "--output", "disc.e3", "--t-end", "0.14"]) == 0
    slave, names = _slave(out, tmp_path / "fmu")
    slave.setup_experiment(0.0, 0.14, None)
    slave.exit_initialization_mode()
    for k in range(140):
        assert slave.do_step(1e-3 * k, 1e-3)
    run = _run(tmp_path, model, "--t-end", "0.14")
    assert run.t.size == 14001 and slave.sim.state.step == 14000
    assert names["disc.e3"].getter() == run.q[-1, 6] and run.q[-1, 6] > 0.01


@pytest.mark.slow
def test_a_long_communication_step_stops_at_its_point(tmp_path, monkeypatch):
    """A communication step of many chunks (3000 steps, chunks of 512): cheap chunks (here any)
    are not chained past the communication point (run/chunks.py); the run's numbers there."""
    from nlpmbd.run import chunks

    monkeypatch.setattr(chunks, "CHAIN_SECONDS", 1e3)
    model = str(_model(tmp_path, 3.0, h=1e-5))
    out = tmp_path / "spinner.fmu"
    assert main(["fmu", model, "-o", str(out), "--output", "disc.e3", "--t-end", "0.06"]) == 0
    slave, names = _slave(out, tmp_path / "fmu")
    slave.setup_experiment(0.0, 0.06, None)
    slave.exit_initialization_mode()
    assert slave.do_step(0.0, 0.03)
    assert slave.sim.state.step == 3000
    run = _run(tmp_path, model, "--t-end", "0.06")
    assert names["disc.e3"].getter() == run.q[3000, 6] and run.q[3000, 6] > 0.001


@pytest.mark.parametrize(
    "args, word",
    [
        (["--output", "pendulum.q"], "--output"),
        (["--output", "nobody"], "--output"),
        (["-o", "model.zip"], "--out"),
        (["--set", "mass=-1"], "mass"),
        (["--step", "0"], "--step"),
    ],
)
def test_bad_input_is_one_line(args, word, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    out = [] if "-o" in args else ["-o", "model.fmu"]
    assert main(["fmu", "pendulum", *out, *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nlpmbd: error:") and word in err[0]
    assert len(err[0]) < 500
    assert not (tmp_path / "model.fmu").exists()


def test_bad_model_file(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[model\nname = 1\n")
    assert main(["fmu", str(bad), "-o", str(tmp_path / "m.fmu")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.toml" in err[0]
