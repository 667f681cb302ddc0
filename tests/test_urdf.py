"""URDF conversion (issue 33, item 1): frames, lumped fixed links, annotations, the public UR5
arm (example-robot-data's `ur5_robot.urdf`, tests/model_files/urdf/), and every bad input as one
line with exit 2.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("yourdfpy")

from nlpmbd import InputError, SimulationOptions, simulate  # noqa: E402
from nlpmbd.apps.cli import main  # noqa: E402
from nlpmbd.io.model_file import load_model  # noqa: E402
from nlpmbd.io.robot_model import convert, load_robot  # noqa: E402
from nlpmbd.model.rotation import rotation_matrix  # noqa: E402

HERE = Path(__file__).parent / "model_files" / "urdf"
UR5 = HERE / "ur5_robot.urdf"
INERTIA = '<inertia ixx="{0}" ixy="0" ixz="0" iyy="{1}" iyz="0" izz="{2}"/>'


def link(
    name: str,
    mass: float = 1.0,
    xyz: str = "0 0 0",
    rpy: str = "0 0 0",
    moments: tuple[float, float, float] = (0.01, 0.02, 0.025),
) -> str:
    return (
        f'<link name="{name}"><inertial><origin xyz="{xyz}" rpy="{rpy}"/>'
        f'<mass value="{mass}"/>{INERTIA.format(*moments)}</inertial></link>'
    )


def joint(
    name: str,
    kind: str,
    parent: str,
    child: str,
    xyz: str = "0 0 0",
    rpy: str = "0 0 0",
    axis: str = "0 0 1",
    extra: str = "",
) -> str:
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>{extra}</joint>'
    )


def write(tmp_path: Path, *parts: str, marks: str | None = None, name: str = "r") -> Path:
    path = tmp_path / f"{name}.urdf"
    path.write_text(f'<robot name="{name}">' + "".join(parts) + "</robot>")
    if marks is not None:
        (tmp_path / f"{name}.nlpmbd.toml").write_text(marks)
    return path


def document(path: Path) -> dict:
    return tomllib.loads(convert(path))


def rpy_matrix(r: float, p: float, y: float) -> np.ndarray:
    """URDF's fixed-axis roll-pitch-yaw: Rz(y) Ry(p) Rx(r), written out by hand."""
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


# --- frames and mass properties -----------------------------------------------------------
def test_rotated_origins_give_the_link_pose_and_the_inertia_in_link_axes(tmp_path):
    path = write(
        tmp_path,
        link("base"),
        link("arm", 2.0, xyz="0.1 0.2 0.3", rpy="0 0 0.7", moments=(0.01, 0.02, 0.025)),
        joint("j", "revolute", "base", "arm", xyz="0.5 0 0", rpy="0.3 -0.2 0.5", axis="0 1 0"),
    )
    (body,), (j,) = document(path)["bodies"], document(path)["joints"]
    R = rpy_matrix(0.3, -0.2, 0.5)
    assert np.allclose(rotation_matrix(np.array(body["orientation"])), R, atol=1e-15)
    assert np.allclose(body["position"], [0.5, 0, 0] + R @ [0.1, 0.2, 0.3], atol=1e-15)
    Ri = rpy_matrix(0, 0, 0.7)  # the inertial frame in the link frame
    assert np.allclose(body["inertia"], Ri @ np.diag([0.01, 0.02, 0.025]) @ Ri.T, atol=1e-17)
    assert np.allclose(j["axis"], R @ [0, 1, 0]) and j["point"] == [0.5, 0.0, 0.0]
    assert j["parent"] == "GROUND" and body["mass"] == 2.0


def test_fixed_links_are_lumped_into_their_parents_body(tmp_path):
    path = write(
        tmp_path,
        link("base"),
        link("arm", 1.0, xyz="0.1 0 0", moments=(0.01, 0.01, 0.01)),
        link("payload", 2.0, moments=(0.01, 0.02, 0.03)),
        link("tool0", 0.0),
        joint("j", "continuous", "base", "arm", axis="0 0 1"),
        joint("fix", "fixed", "arm", "payload", xyz="0.3 0 0", rpy="0 0 1.5707963267948966"),
        joint("tip", "fixed", "payload", "tool0", xyz="0.1 0 0"),
    )
    (body,) = document(path)["bodies"]
    com = (1.0 * 0.1 + 2.0 * 0.3) / 3.0
    d1, d2 = 0.1 - com, 0.3 - com
    # payload turned by 90 degrees about z: its x and y moments swap
    expected = np.diag([0.01, 0.01, 0.01]) + np.diag([0.02, 0.01, 0.03])
    expected += np.diag([0.0, 1.0 * d1**2 + 2.0 * d2**2, 1.0 * d1**2 + 2.0 * d2**2])
    assert body["name"] == "arm" and body["mass"] == 3.0
    assert np.allclose(body["position"], [com, 0, 0], atol=1e-15)
    assert np.allclose(body["inertia"], expected, atol=1e-15)


def test_annotations_set_positions_a_floating_base_and_a_prismatic_clearance(tmp_path):
    marks = """
    [base]
    floating = true
    [joints.slide]
    position = 0.25
    clearance = 2e-4
    vertices = [[-0.01, -0.01], [0.01, -0.01], [0.01, 0.01], [-0.01, 0.01]]
    length = 0.05
    [options]
    t_end = 0.01
    """
    path = write(
        tmp_path,
        link("base", 5.0),
        link("carriage", 1.0),
        joint("slide", "prismatic", "base", "carriage", xyz="0 0 1", axis="1 0 0"),
        marks=marks,
    )
    doc = document(path)
    assert [b["name"] for b in doc["bodies"]] == ["base", "carriage"]
    assert doc["bodies"][1]["position"] == [0.25, 0.0, 1.0]
    (entry,) = doc["joints"]
    assert entry["type"] == "prismatic_clearance" and entry["guide"] == "base"
    assert entry["section_x"] == [0.0, 1.0, 0.0] and entry["clearance"] == 2e-4
    model = load_robot(path, options=SimulationOptions)
    assert model.options == {"t_end": 0.01}
    result = simulate(model.system, SimulationOptions(t_end=0.01, h_min=1e-3, h_max=1e-3))
    assert result.completed and result.gap.shape[1] == 16


# --- the public UR5 arm ---------------------------------------------------------------------
def test_ur5_joint_points_and_axes_are_the_arms_zero_pose():
    doc = document(UR5)
    assert [b["name"] for b in doc["bodies"]] == [
        "shoulder_link",
        "upper_arm_link",
        "forearm_link",
        "wrist_1_link",
        "wrist_2_link",
        "wrist_3_link",
    ]  # world, base_link and base are the ground; ee_link and tool0 join wrist_3_link
    # UR5 at zero: shoulder 0.089159 up, 0.13585 out; upper arm 0.425; forearm 0.39225; ...
    points = {
        "shoulder_pan_joint": ([0, 0, 0.089159], [0, 0, 1]),
        "shoulder_lift_joint": ([0, 0.13585, 0.089159], [0, 1, 0]),
        "elbow_joint": ([0.425, 0.01615, 0.089159], [0, 1, 0]),
        "wrist_1_joint": ([0.81725, 0.01615, 0.089159], [0, 1, 0]),
        "wrist_2_joint": ([0.81725, 0.10915, 0.089159], [0, 0, -1]),
        "wrist_3_joint": ([0.81725, 0.10915, 0.089159 - 0.09465], [0, 1, 0]),
    }
    for entry in doc["joints"]:
        point, axis = points[entry["name"]]
        assert np.allclose(entry["point"], point, atol=1e-9), entry["name"]
        assert np.allclose(entry["axis"], axis, atol=1e-9), entry["name"]
    assert sum(b["mass"] for b in doc["bodies"]) == pytest.approx(
        3.7 + 8.393 + 2.275 + 1.219 + 1.219 + 0.1879
    )


@pytest.mark.slow
def test_ur5_falls_conserving_energy_and_runs_with_a_loose_elbow(tmp_path, capsys):
    model = load_robot(UR5, options=SimulationOptions)
    options = SimulationOptions(t_end=0.2, h_min=1e-3, h_max=1e-3, codegen="off")
    result = simulate(model.system, options)
    total = result.energy[:, 2]  # kinetic, potential, total
    drift = float(np.max(np.abs(total - total[0])))
    assert result.completed and drift < 1e-3, drift  # no damping in the file; measured 6e-5 J
    assert result.body_q("forearm_link")[-1, 2] < result.body_q("forearm_link")[0, 2] - 0.05
    robot = tmp_path / "ur5_robot.urdf"
    robot.write_bytes(UR5.read_bytes())
    (tmp_path / "ur5_robot.nlpmbd.toml").write_text(
        "[joints.elbow_joint]\nclearance = 1e-4\npin_radius = 0.02\nlength = 0.06\n"
    )
    out = tmp_path / "out"
    code = main(["run", str(robot), "--t-end", "0.05", "--out", str(out), "--quiet"])
    assert code == 0
    assert (out / "clearance_elbow_joint.png").stat().st_size > 0
    source = json.loads((out / "meta.json").read_text())["source"]
    assert source["kind"] == "model file" and source["file"] == str(robot)


# --- convert and the command line -----------------------------------------------------------
def test_convert_writes_the_model_file_that_runs_the_same_system(tmp_path, capsys):
    out = tmp_path / "ur5.toml"
    assert main(["convert", str(UR5), "-o", str(out)]) == 0
    assert "6 joints" in capsys.readouterr().out
    assert out.read_text() == convert(UR5)
    from_file, from_urdf = load_model(out), load_robot(UR5)
    assert from_file.sha256 == from_urdf.sha256
    assert main(["convert", str(UR5), "-o", str(out)]) == 2  # kept without --force
    assert "exists" in capsys.readouterr().err
    assert main(["convert", str(UR5), "-o", str(out), "--force"]) == 0


BAD = {
    "xml": ("<robot><link", "XML syntax error"),
    "root": ('<sdf name="x"></sdf>', "not a URDF file"),
    "planar": (
        "<robot name='r'>" + link("a") + link("b") + joint("j", "planar", "a", "b") + "</robot>",
        "type 'planar' is not supported",
    ),
    "mimic": (
        "<robot name='r'>"
        + link("a")
        + link("b")
        + link("c")
        + joint("j", "revolute", "a", "b")
        + joint("k", "revolute", "b", "c", extra='<mimic joint="j"/>')
        + "</robot>",
        "coupled joints",
    ),
    "massless": (
        "<robot name='r'>"
        + link("a")
        + '<link name="b"/>'
        + joint("j", "revolute", "a", "b")
        + "</robot>",
        "has no mass",
    ),
    "dtd": (
        '<!DOCTYPE r [<!ENTITY a "aaaa">]><robot name="&a;">' + link("a") + "</robot>",
        "may not declare a DTD",
    ),
    "nan": (
        "<robot name='r'>"
        + link("a")
        + link("b", float("nan"))
        + joint("j", "revolute", "a", "b")
        + "</robot>",
        "<mass> value must be a finite number",
    ),
    "nothing moves": ("<robot name='r'>" + link("a") + "</robot>", "nothing moves"),
    "two roots": ("<robot name='r'>" + link("a") + link("b") + "</robot>", "one root link"),
    "missing link": (
        "<robot name='r'>" + link("a") + joint("j", "revolute", "a", "zz") + "</robot>",
        "is not a <link>",
    ),
}
PENDULUM = (
    "<robot name='r'>" + link("a") + link("b") + joint("j", "revolute", "a", "b") + "</robot>"
)
BAD_MARKS = {
    "unknown joint": ("[joints.nope]\nposition = 1.0", "no joint 'nope'"),
    "missing key": ("[joints.j]\nclearance = 1e-4\nlength = 0.02", "pin_radius: missing"),
    "bad clearance": (
        "[joints.j]\nclearance = -1.0\npin_radius = 0.01\nlength = 0.02",
        "clearance: must be in",
    ),
    "wrong type": (
        "[joints.j]\ntype = 'prismatic_clearance'\nclearance = 1e-4\npin_radius = 0.01\n"
        "length = 0.02",
        "becomes 'revolute_clearance'",
    ),
    "bad length": (
        "[joints.j]\nclearance = 1e-4\npin_radius = 0.01\nlength = -2.0",
        "joints[0].length",
    ),
    "bad section": ("[bogus]\nx = 1", "bogus: unknown key"),
    "syntax": ("[joints.j\n", "TOML syntax error"),
    "floating": ("[base]\nfloating = 'yes'", "must be true or false"),
}


def one_error_line(capsys, argv: list[str], expected: str) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlpmbd: error: "), captured.err
    assert expected in lines[0] and len(lines[0]) < 500, lines[0]


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_urdf_is_one_line_with_exit_2(tmp_path, capsys, case):
    text, expected = BAD[case]
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    one_error_line(capsys, ["convert", str(path), "-o", str(tmp_path / "m.toml")], expected)
    one_error_line(capsys, ["run", str(path), "--out", str(tmp_path / "o")], expected)


@pytest.mark.parametrize("case", sorted(BAD_MARKS))
def test_a_bad_annotation_is_one_line_with_exit_2(tmp_path, capsys, case):
    text, expected = BAD_MARKS[case]
    path = tmp_path / "p.urdf"
    path.write_text(PENDULUM)
    (tmp_path / "p.nlpmbd.toml").write_text(text)
    one_error_line(capsys, ["run", str(path), "--out", str(tmp_path / "o")], expected)


def test_without_the_extra_the_cli_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "yourdfpy", None)
    path = tmp_path / "p.urdf"
    path.write_text(PENDULUM)
    one_error_line(capsys, ["run", str(path)], "pip install 'nlpmbd[urdf]'")
    with pytest.raises(InputError, match=r"nlpmbd\[urdf\]"):
        convert(path)


def test_convert_refuses_other_suffixes_and_targets(tmp_path, capsys):
    path = tmp_path / "p.urdf"
    path.write_text(PENDULUM)
    one_error_line(capsys, ["convert", str(tmp_path / "p.sdf")], "must end in .urdf or .xml")
    one_error_line(capsys, ["convert", str(path), "-o", str(tmp_path / "m.txt")], "end in .toml")
    one_error_line(
        capsys, ["convert", str(path), "--annotations", str(tmp_path / "none.toml")], "not a file"
    )
