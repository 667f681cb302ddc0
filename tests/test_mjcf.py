"""MJCF import through MuJoCo's compiler (issue 33, item 1): Gymnasium's public
`inverted_double_pendulum.xml` (a cart on a slider carrying a double pendulum; tests/model_files/
urdf/, copied verbatim) converted and run, against MuJoCo's own simulation of the same file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from nlpmbd import InputError, SimulationOptions, simulate  # noqa: E402
from nlpmbd.apps.cli import main  # noqa: E402
from nlpmbd.io.robot_model import convert, load_robot  # noqa: E402

XML = Path(__file__).parent / "model_files" / "urdf" / "inverted_double_pendulum.xml"
START = "[joints.hinge]\nposition = 0.3\n[joints.hinge2]\nposition = -0.2\n"
BODIES = ("cart", "pole", "pole2")


def copied(tmp_path: Path, marks: str | None) -> Path:
    path = tmp_path / XML.name
    path.write_bytes(XML.read_bytes())
    if marks is not None:
        (tmp_path / "inverted_double_pendulum.nlpmbd.toml").write_text(marks)
    return path


def mujoco_run(path: Path, times: np.ndarray) -> np.ndarray:
    """Centres of mass of the three bodies by MuJoCo (RK4, 1e-4 s) from the same start: no
    contacts or limits (nlpmbd models neither) and no slider damping (not modelled)."""
    model = mujoco.MjModel.from_xml_path(str(path))
    model.opt.timestep, model.opt.integrator = 1e-4, mujoco.mjtIntegrator.mjINT_RK4
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_LIMIT
    model.dof_damping[0] = 0.0
    data = mujoco.MjData(model)
    data.qpos[1:3] = (0.3, -0.2)
    mujoco.mj_forward(model, data)
    rows = []
    for t in times:
        while data.time < t - 1e-9:
            mujoco.mj_step(model, data)
        rows.append(data.xipos[1:4].ravel().copy())
    return np.array(rows)


def test_the_mjcf_double_pendulum_is_converted_joint_for_joint(tmp_path):
    text = convert(copied(tmp_path, None))
    assert 'type = "prismatic"' in text and text.count('type = "revolute"') == 2
    assert "gravity = [1e-05, 0.0, -9.81]" in text  # the file's <option gravity>
    assert "damping of slide joints (slider) is not modelled" in text


def test_the_converted_mjcf_model_moves_as_mujoco_moves_it(tmp_path):
    path = copied(tmp_path, START)
    system = load_robot(path, options=SimulationOptions).system
    errors = []
    for h in (1e-3, 5e-4):
        result = simulate(system, SimulationOptions(t_end=0.5, h_min=h, h_max=h, codegen="off"))
        reference = mujoco_run(path, result.t)
        got = np.hstack([result.body_q(n)[:, :3] for n in BODIES])
        assert np.max(np.abs(reference[-1] - reference[0])) > 0.5  # it falls over
        errors.append(float(np.max(np.abs(got - reference))))
    # measured 8.1e-7 m and 2.0e-7 m (2026-11-27): second order
    assert errors[0] < 5e-6 and errors[0] / errors[1] > 3.0, errors


@pytest.mark.slow
def test_a_loose_hinge_runs_with_its_clearance_figure(tmp_path):
    marks = START + "clearance = 1e-4\npin_radius = 0.02\nlength = 0.05\n"
    path = copied(tmp_path, marks)
    out = tmp_path / "out"
    assert main(["run", str(path), "--t-end", "0.05", "--out", str(out), "--quiet"]) == 0
    assert (out / "clearance_hinge2.png").stat().st_size > 0


TWO_JOINTS = """<mujoco><worldbody><body name="b"><joint name="x" type="slide" axis="1 0 0"/>
<joint name="y" type="slide" axis="0 1 0"/><geom type="sphere" size="0.1"/></body></worldbody>
</mujoco>"""
BALL = """<mujoco><worldbody><body name="b" pos="0 0 1"><joint name="s" type="ball"/>
<geom type="capsule" size="0.02" fromto="0 0 0 0 0 -0.5"/></body></worldbody></mujoco>"""


@pytest.mark.parametrize(
    ("text", "marks", "expected"),
    [
        (TWO_JOINTS, None, "has 2 joints"),
        ("<mujoco><worldbody><body>", None, "MuJoCo cannot compile it"),
        (BALL, "[base]\nfloating = true", "an MJCF body floats with a <freejoint>"),
        (BALL, "[joints.s]\nposition = 0.1", "a spherical joint has no position"),
        (BALL, "[joints.s]\nclearance = 1e-4", "a spherical joint has no clearance joint"),
    ],
    ids=["two joints", "syntax", "floating", "ball position", "ball clearance"],
)
def test_a_bad_mjcf_model_is_one_line_with_exit_2(tmp_path, capsys, text, marks, expected):
    path = tmp_path / "m.xml"
    path.write_text(text)
    if marks is not None:
        (tmp_path / "m.nlpmbd.toml").write_text(marks)
    assert main(["convert", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlpmbd: error: ") and expected in lines[0]


def test_a_ball_joint_is_spherical_and_the_extra_is_named_when_missing(tmp_path, monkeypatch):
    path = tmp_path / "m.xml"
    path.write_text(BALL)
    assert 'type = "spherical"' in convert(path)
    monkeypatch.setitem(sys.modules, "mujoco", None)
    with pytest.raises(InputError, match=r"pip install 'nlpmbd\[mjcf\]'"):
        convert(path)


SPRUNG = """<mujoco model="sprung"><option gravity="0 0 -9.81"/><worldbody>
<body name="arm" pos="0 0 1"><joint name="j" type="hinge" axis="0 1 0" stiffness="3"
springref="23" damping="0.1"/><geom type="capsule" size="0.02" fromto="0 0 0 0.3 0 0"/>
</body></worldbody></mujoco>"""


def test_hinge_stiffness_and_damping_act_as_in_mujoco(tmp_path):
    path = tmp_path / "sprung.xml"
    path.write_text(SPRUNG)
    (tmp_path / "sprung.nlpmbd.toml").write_text("[joints.j]\nposition = 0.1\n")
    text = convert(path)
    # springref is in degrees (MJCF's default angle unit); annotations are in radians
    assert 'name = "j_spring"' in text and f"angle0 = {float(np.radians(23)) - 0.1!r}" in text
    system = load_robot(path, options=SimulationOptions).system
    result = simulate(system, SimulationOptions(t_end=1.0, h_min=5e-4, h_max=5e-4, codegen="off"))
    model = mujoco.MjModel.from_xml_path(str(path))
    model.opt.timestep, model.opt.integrator = 1e-4, mujoco.mjtIntegrator.mjINT_RK4
    data = mujoco.MjData(model)
    data.qpos[0] = 0.1
    mujoco.mj_forward(model, data)
    reference = []
    for t in result.t:
        while data.time < t - 1e-9:
            mujoco.mj_step(model, data)
        reference.append(data.xipos[1].copy())
    error = np.max(np.abs(result.body_q("arm")[:, :3] - np.array(reference)))
    # measured 3.0e-7 m (2026-11-27)
    assert np.ptp(np.array(reference)[:, 2]) > 0.02 and error < 1e-5, error
