"""Model files (issue 17): TOML files that declare a system and its default options.

Every built-in case ships as examples/<case>.toml, and a short run of the file's system gives
bit-identical arrays to the case's own; every joint type and load can be written in a file; the
expression language of time functions accepts arithmetic only; each malformed file in
tests/model_files/ is rejected with one line naming the file, the key path and the reason (its
header says which); `nlpmbd new` writes a template that runs as it is.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
from dataclasses import fields
from importlib import metadata
from pathlib import Path

import casadi as ca
import numpy as np
import pytest
from fixtures import SHORT_STEPS, load_model_file, short_run

import nlpmbd_joints
from nlpmbd import InputError, SimulationOptions, SimulationResult, simulate
from nlpmbd.apps import cli_new
from nlpmbd.apps.registry import load_cases
from nlpmbd.io.expressions import BODY_STATE, parse_expression
from nlpmbd.io.model_file import load_model
from nlpmbd.io.model_parts import joint_classes
from nlpmbd.io.model_template import template
from nlpmbd.model.compliant import CompliantContact
from nlpmbd.model.contact import HardContact, SpringDamperContact
from nlpmbd.model.joint import Joint
from nlpmbd_joints.registry import JOINTS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BAD_FILES = sorted((Path(__file__).parent / "model_files").glob("bad_*.toml"))
CASES = load_cases()
ARRAYS = [f.name for f in fields(SimulationResult) if f.name != "meta"]
STEPS = SHORT_STEPS


load = load_model_file


# --- the examples are the built-in cases ------------------------------------------------------
def test_every_case_has_an_example_and_every_example_a_case():
    assert len(CASES) >= 14
    writable = {name for name, case in CASES.items() if case.model_file}
    assert set(CASES) - writable == {"four_bar_clearance"}  # its crank's controller is Python
    # the cases with a flexible slider have a second one (tests/test_model_flexible.py)
    flexible = {n for n, c in CASES.items() if "slider" in {p.name for p in c.parameters}}
    assert {p.stem for p in EXAMPLES.glob("*.toml")} == writable | {
        f"{n}_flexible" for n in flexible
    }


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.model_file))
def test_example_file_runs_bit_identical_to_its_case(name):
    case = CASES[name]
    model = load(EXAMPLES / f"{name}.toml")
    assert model.name == name and model.case.name == name
    assert (model.case.t_end, model.case.h_min, model.case.h_max) == (
        case.t_end,
        case.h_min,
        case.h_max,
    )
    built, _ = case.build()
    from_file, _ = model.case.build()
    assert [b.name for b in from_file.bodies] == [b.name for b in built.bodies]
    assert [(type(j), j.name) for j in from_file.joints] == [
        (type(j), j.name) for j in built.joints
    ]
    assert [(type(x), x.name) for x in from_file.loads] == [(type(x), x.name) for x in built.loads]
    first, second = short_run(built, case.h_min), short_run(from_file, case.h_min)
    assert first.n_steps == second.n_steps == STEPS
    for key in ARRAYS:
        if key == "solve_time":
            continue
        a, b = np.asarray(getattr(first, key)), np.asarray(getattr(second, key))
        assert a.dtype == b.dtype and np.array_equal(a, b), key
        assert a.tobytes() == b.tobytes(), f"{key}: the bits differ (a signed zero?)"


def test_example_files_are_commented_and_fit_100_columns():
    for path in EXAMPLES.glob("*.toml"):
        lines = path.read_text().splitlines()
        assert sum(line.lstrip().startswith("#") for line in lines) >= 8, path.name
        assert max(len(line) for line in lines) <= 100, path.name


# --- joints, loads and contact laws -----------------------------------------------------------
BODY = '[[bodies]]\nname = "a"\nmass = 1.0\ninertia = [0.01, 0.01, 0.01]\n'
STRIP = (
    '[[flexible_bodies]]\nname = "s"\nwidth = 0.1\nheight = 0.05\nelements_x = 2\nelements_y = 1\n'
    "youngs_modulus = 1e5\npoisson_ratio = 0.3\ndensity = 10.0\nthickness = 0.01\n"
)
P0, Z = "center = [0.0, 0.0, 0.0]", "axis = [0.0, 0.0, 1.0]"
RADII = "length = 0.05\nhole_radius = 0.0101\npin_radius = 0.01"
JOINT_KEYS = {
    "revolute": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\nfrictionloss = 0.01\n' + Z,
    "spherical": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]',
    "cylindrical": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\n' + Z,
    "prismatic": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\nfrictionloss = 0.5\n' + Z,
    "planar_revolute": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\n' + Z,
    "planar_prismatic": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\naxis = [1, 0, 0]\n'
    "normal = [0, 0, 1]",
    "universal": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\nparent_axis = [0, 1, 0]\n'
    "child_axis = [1, 0, 0]",
    "fixed": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]',
    "driving_angle": 'parent = "GROUND"\nchild = "a"\nmotion = "0.5 * t"\n' + Z,
    "driving_coordinate": 'parent = "GROUND"\nchild = "a"\nmotion = "0.01 * sin(t)"\n'
    "point = [0, 0, 0]\naxis = [1, 0, 0]",
    "revolute_clearance": f'hole = "a"\npin = "GROUND"\n{P0}\n{Z}\n{RADII}\naxial_play = 1e-4\n'
    'contact = { law = "hard", mu = 0.1, mu_static = 0.2, restitution = 0.3 }',
    "cylindrical_clearance": f'hole = "a"\npin = "GROUND"\n{P0}\n{Z}\n{RADII}\nends_on = "hole"',
    "spherical_clearance": f'socket = "GROUND"\nball = "a"\n{P0}\nsocket_radius = 0.0101\n'
    "ball_radius = 0.01",
    "universal_clearance": f'parent = "GROUND"\nchild = "a"\n{P0}\nsocket_radius = 0.0101\n'
    "ball_radius = 0.01\nparent_axis = [0, 1, 0]\nchild_axis = [1, 0, 0]",
    "planar_revolute_clearance": f'hole = "a"\npin = "GROUND"\n{P0}\n{Z}\n{RADII}',
    "planar_prismatic_clearance": f'guide = "GROUND"\nslider = "a"\n{P0}\naxis = [1, 0, 0]\n'
    "length = 0.1\nwidth = 0.05\nclearance = 1e-3\n"
    'contact = { law = "compliant", stiffness = 1e6, exponent = 1.0, restitution = 0.5, '
    'damping = "hunt-crossley", mu = 0.1, friction_speeds = [1e-4, 1e-3] }',
    "prismatic_clearance": f'guide = "GROUND"\nslider = "a"\n{P0}\n{Z}\nlength = 0.1\n'
    "vertices = [[-0.01, -0.01], [0.01, -0.01], [0.01, 0.01], [-0.01, 0.01]]\n"
    "clearance = 1e-4\nsection_x = [1, 0, 0]",
    "plane_contact": 'body = "a"\npoints = [[0, -0.1, 0], [0.1, -0.1, 0]]\n'
    "plane_point = [0, -0.2, 0]\nnormal = [0, 1, 0]\ncontact = { mu = 0.3, restitution = 0.5 }",
    "sphere_contact": 'parent = "GROUND"\nchild = "a"\nparent_center = [0, -0.2, 0]\n'
    "child_center = [0, 0, 0]\nparent_radius = 0.1\nchild_radius = 0.1\n"
    "contact = { restitution = 0.5 }",
    # a node of a flexible body s (declared after the joint's keys)
    "node_contact": 'guide = "GROUND"\nnode = { body = "s", index = 0 }\n'
    "face_point = [0, -0.2, 0]\nnormal = [0, 1, 0]\n" + STRIP,
    "node_pin": 'body = "a"\nnode = { body = "s", point = [0.0, 0.0] }\n' + STRIP,
    "revolute_limits": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\nlower = -0.2\n'
    f"upper = 0.5\n{Z}\nradius = 0.1\ncontact = {{ restitution = 0.5 }}",
    "revolute_backlash": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\nbacklash = 0.1\n'
    'contact = { law = "compliant", stiffness = 1e5, restitution = 0.8 }',
    "prismatic_stops": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\naxis = [0, 1, 0]\n'
    "lower = -0.01\nupper = 0.02\n"
    'contact = { law = "spring_damper", stiffness = 1e5, damping = 10.0, mu = 0.1 }',
    "cylindrical_stops": 'parent = "GROUND"\nchild = "a"\npoint = [0, 0, 0]\naxis = [0, 1, 0]\n'
    'lower = -0.01\nupper = 0.0\ncontact = { law = "compliant", stiffness = 1e6, exponent = 1.0 }',
    # a second body after the joint: [[bodies]] may continue below
    "gear_backlash": 'gear1 = "a"\ngear2 = "b"\ncenter1 = [0, 0, 0]\ncenter2 = [0.3, 0, 0]\n'
    'radius1 = 0.1\nradius2 = 0.2\nbacklash = 1e-3\n\n[[bodies]]\nname = "b"\nmass = 1.0\n'
    "inertia = [0.01, 0.01, 0.01]\nposition = [0.3, 0, 0]",
}


def test_every_joint_class_is_registered_under_one_type_name():
    exported = {getattr(nlpmbd_joints, n) for n in nlpmbd_joints.__all__}
    assert set(JOINTS.values()) == {c for c in exported if issubclass(c, Joint)}
    assert len(JOINTS) == len(set(JOINTS.values())) == len(JOINT_KEYS)


@pytest.mark.parametrize("kind", sorted(JOINT_KEYS))
def test_every_joint_type_can_be_written_in_a_file(kind, tmp_path):
    path = tmp_path / "joint.toml"
    path.write_text(f'{BODY}\n[[joints]]\ntype = "{kind}"\nname = "j"\n{JOINT_KEYS[kind]}\n')
    (joint,) = load(path).system.joints
    assert type(joint) is JOINTS[kind] and joint.name == "j"
    assert joint.n_eq + joint.n_gap > 0
    result = simulate(load(path).system, SimulationOptions(t_end=3e-3, h_min=1e-3, h_max=1e-3))
    assert result.completed and np.all(np.isfinite(result.q))


def test_contact_laws_are_built_with_their_keywords(tmp_path):
    hard = tmp_path / "hard.toml"
    hard.write_text(f'{BODY}\n[[joints]]\ntype = "revolute_clearance"\nname = "j"\n'
                    f'{JOINT_KEYS["revolute_clearance"]}\n')  # fmt: skip
    assert load(hard).system.joints[0].contact == HardContact(0.3, 0.1, 0.2)
    soft = tmp_path / "soft.toml"
    soft.write_text(f'{BODY}\n[[joints]]\ntype = "planar_prismatic_clearance"\nname = "j"\n'
                    f'{JOINT_KEYS["planar_prismatic_clearance"]}\n')  # fmt: skip
    assert load(soft).system.joints[0].contact == CompliantContact(
        1e6, 1.0, 0.5, "hunt-crossley", 0.1, (1e-4, 1e-3)
    )
    implicit = tmp_path / "implicit.toml"
    implicit.write_text(f'{BODY}\n[[joints]]\ntype = "prismatic_stops"\nname = "j"\n'
                        f'{JOINT_KEYS["prismatic_stops"]}\n')  # fmt: skip
    law = SpringDamperContact(stiffness=1e5, damping=10.0, mu=0.1)
    assert load(implicit).system.joints[0].contact == law


def test_loads_springs_and_state_dependent_forces(tmp_path):
    path = tmp_path / "loads.toml"
    path.write_text(
        BODY + '\n[[loads]]\ntype = "force"\nname = "f"\nbody = "a"\npoint = [0.1, 0, 0]\n'
        'value = ["-2.0 * x - 0.5 * vx", 3, "t"]\nframe = "body"\n'
        '\n[[loads]]\ntype = "spring_damper"\nname = "s"\nparent = "GROUND"\nchild = "a"\n'
        "point_parent = [0, 1, 0]\npoint_child = [0, 0, 0]\nstiffness = 10.0\ndamping = 0.1\n"
        '\n[[loads]]\ntype = "rotational_spring_damper"\nname = "r"\nparent = "GROUND"\n'
        'child = "a"\naxis = [0, 0, 1]\nstiffness = 1.0\nangle0 = 0.1\n'
    )
    force, spring, torsion = load(path).system.loads
    assert force.frame == "body" and force.point.tolist() == [0.1, 0.0, 0.0]
    assert (spring.stiffness, spring.damping, spring.length0) == (10.0, 0.1, 1.0)
    assert (torsion.stiffness, torsion.angle0, torsion.axis) == (1.0, 0.1, (0.0, 0.0, 1.0))
    t, x, vx = ca.SX.sym("t"), ca.SX.sym("x"), ca.SX.sym("vx")
    state = type("S", (), {"position": ca.vertcat(x, 0, 0), "velocity": ca.vertcat(vx, 0, 0)})
    value = force.value(t, state)
    by_hand = [-2.0 * x - 0.5 * vx, 3, t]
    f = ca.Function("f", [t, x, vx], [ca.vertcat(*value) - ca.vertcat(*by_hand)])
    assert float(ca.norm_inf(f(0.3, -1.7, 2.9))) == 0.0


def test_axis_angle_orientation_equals_the_euler_parameters(tmp_path):
    path = tmp_path / "o.toml"
    path.write_text(BODY + "orientation = { axis = [0, 0, 2], degrees = 90 }\n")
    half = math.sqrt(0.5)
    np.testing.assert_allclose(load(path).system.bodies[0].orientation, [half, 0, 0, half])


# --- the expression language -----------------------------------------------------------------
def test_expressions_compute_what_the_same_lambda_computes():
    text = "0.2 * sin(2 * pi * t) - t ** 2 / 3 + max(t, 0.5, e) * exp(-abs(t)) + sqrt(1 + t)"
    expression = parse_expression(text, "here")
    t = ca.SX.sym("t")

    def by_hand(t):
        top = ca.fmax(ca.fmax(t, 0.5), math.e)
        return 0.2 * ca.sin(2 * ca.pi * t) - t**2 / 3 + top * ca.exp(-ca.fabs(t)) + ca.sqrt(1 + t)

    f = ca.Function("f", [t], [expression({"t": t}), by_hand(t)])
    for value in (0.0, 0.37, 4.2, -1.0 + 2**-30):
        a, b = f(value)
        assert float(a) == float(b) and math.isfinite(float(a))
    assert expression.variables == {"t"}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("__import__('os')", "call of '__import__' is not allowed"),
        ("t.__class__", "attribute access is not allowed"),
        ("(1).real", "attribute access is not allowed"),
        ("[t][0]", "indexing is not allowed"),
        ("[t, 1]", "a list is not allowed"),
        ("eval('1')", "call of 'eval' is not allowed"),
        ("sin(x=t)", "positional arguments only"),
        ("t if t else 1", "'if ... else' is not allowed"),
        ("lambda: 0", "lambda is not allowed"),
        ("y", "name 'y' is not allowed; allowed names: t, pi, e"),
        ("t % 2", "operator in 't%2' is not allowed"),
        ("'1'", "only numbers are allowed"),
        ("True", "only numbers are allowed"),
        ("1 / 0", "cannot be evaluated (ZeroDivisionError"),
        ("sqrt(-1)", "is not finite"),
        ("(-8)**(1/3)", "'(-8) ** (1 / 3)' has no real value"),
        ("(-1)**0.5 * t", "'(-1) ** 0.5' has no real value"),
        ("max(t, (-2.5)**1.5)", "has no real value"),
        ("exp(1000) * t", "'exp(1000)' is not finite (inf)"),
        ("t - 1e200 * 1e200", "is not finite (inf)"),
        ("-" * 100 + "t", "nested deeper than"),
        ("t" + " + t" * 1000, "1 to 2000 characters"),
        ("sin(t", "invalid expression"),
    ],
)
def test_expressions_reject_anything_but_arithmetic(text, reason):
    with pytest.raises(InputError) as err:
        parse_expression(text, "f.toml: loads[0].value[1]")
    assert str(err.value).startswith("f.toml: loads[0].value[1]: ")
    assert reason in str(err.value) and "\n" not in str(err.value)


def test_load_expressions_see_the_body_state():
    expression = parse_expression("wz * y", "here", BODY_STATE)
    assert expression.variables == {"wz", "y"} and expression({"wz": 2.0, "y": 3.0}) == 6.0


# --- malformed files ---------------------------------------------------------------------------
def _expected(path: Path) -> tuple[str, str]:
    """(where, reason) from the file's header lines "# expect-at:" and "# expect-reason:"."""
    header = dict(line[2:].split(": ", 1) for line in path.read_text().splitlines()[1:3])
    at = header["expect-at"]
    where = f"{path}{at}: " if at.startswith(":") else f"{path}: {at}: "
    return where, header["expect-reason"]


def test_there_are_enough_malformed_files():
    assert len(BAD_FILES) >= 15


@pytest.mark.parametrize("path", BAD_FILES, ids=[p.stem for p in BAD_FILES])
def test_malformed_file_is_rejected_naming_file_key_and_reason(path):
    where, reason = _expected(path)
    with pytest.raises(InputError) as err:
        load(path)
    message = str(err.value)
    assert message.startswith(where), message
    assert reason in message and "\n" not in message


def test_a_missing_file_and_a_non_utf8_file_are_input_errors(tmp_path):
    with pytest.raises(InputError, match=r"nowhere\.toml: cannot read the model file"):
        load(tmp_path / "nowhere.toml")
    (tmp_path / "latin.toml").write_bytes(b'[model]\nname = "caf\xe9"\n')
    with pytest.raises(InputError, match=r"latin\.toml: not UTF-8 text"):
        load(tmp_path / "latin.toml")


# --- where the joint types come from ------------------------------------------------------------
def test_joint_types_come_from_the_entry_point_group(tmp_path, monkeypatch):
    """A package that declares [project.entry-points."nlpmbd.joints"] adds its joint types."""
    info = tmp_path / "extra_joints-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: extra-joints\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[nlpmbd.joints]\nbuiltin = nlpmbd_joints.registry:JOINTS\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert joint_classes() == dict(sorted(JOINTS.items()))
    model = load_model(EXAMPLES / "four_bar.toml", options=SimulationOptions)  # no injection
    assert [j.name for j in model.system.joints] == ["A", "B", "C", "D", "drive"]


def test_the_installed_package_registers_the_builtin_joints():
    """pyproject.toml: [project.entry-points."nlpmbd.joints"] builtin = ..."""
    names = {ep.value for ep in metadata.entry_points(group="nlpmbd.joints")}
    assert "nlpmbd_joints.registry:JOINTS" in names
    assert set(JOINTS) <= set(joint_classes())


# --- nlpmbd new ---------------------------------------------------------------------------------
def _new(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    cli_new.add_arguments(parser)
    return cli_new.run(parser.parse_args(list(argv)))


def test_new_writes_a_template_that_runs_as_it_is(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _new() == 0
    assert "nlpmbd run model.toml" in capsys.readouterr().out
    model = load(tmp_path / "model.toml")
    assert model.name == "model" and model.options["solver"] == "qp"
    assert [type(j).__name__ for j in model.system.joints] == ["RevoluteClearance"]
    result = simulate(model.system, SimulationOptions(**model.options))
    assert result.completed and result.t[-1] == pytest.approx(model.case.t_end)
    assert result.lam.max() > 0  # the pin's contact carries the pendulum


def _commented_block(lines: list[str], first: int) -> str:
    """The TOML of the commented lines from `first` up to a line that is "#" or no comment."""
    block = []
    for line in lines[first:]:
        if not line.startswith("# "):
            break
        block.append(line[2:])
    return "\n".join(block)


@pytest.mark.slow
def test_the_template_alternatives_run_when_uncommented(tmp_path):
    """Each commented [[loads]] block, the compliant contact and the ideal pin."""
    text = template("alt")
    lines = text.splitlines()
    variants = [
        text.replace("# ---- options", _commented_block(lines, k) + "\n\n# ---- options")
        for k, line in enumerate(lines)
        if line == "# [[loads]]"
    ]
    compliant = lines.index(
        next(x for x in lines if x.startswith('# contact = { law = "compliant"'))
    )
    hard = 'contact = { law = "hard", mu = 0.0, restitution = 0.0 }'
    variants.append(
        text.replace(hard, _commented_block(lines, compliant))
        .replace("h_min = 1e-3 ", "h_min = 1e-4 ")
        .replace("h_max = 1e-3 ", "h_max = 1e-4 ")
    )
    ideal = lines.index("# The ideal pin instead:") + 1
    pin = text[text.index('[[joints]]\ntype = "revolute_clearance"') : text.index("# The ideal")]
    variants.append(text.replace(pin, _commented_block(lines, ideal) + "\n\n"))
    kinds = []
    for k, variant in enumerate(variants):
        (tmp_path / f"v{k}.toml").write_text(variant)
        model = load(tmp_path / f"v{k}.toml")
        result = simulate(model.system, SimulationOptions(**{**model.options, "t_end": 0.02}))
        assert result.completed and not result.meta["warnings"]
        kinds.append(type(model.system.loads[-1]).__name__)
        kinds.append(type(model.system.joints[0].contact or model.system.joints[0]).__name__)
    assert {"Force", "SpringDamper", "RotationalSpringDamper", "CompliantContact"} <= set(kinds)
    assert type(model.system.joints[0]).__name__ == "RevoluteJoint"


def test_new_keeps_an_existing_file_unless_forced(tmp_path):
    path = tmp_path / "rig.toml"
    path.write_text("# mine\n")
    with pytest.raises(InputError, match="exists; choose another name or add --force"):
        _new(str(path))
    assert path.read_text() == "# mine\n"
    assert _new(str(path), "--force") == 0
    assert load(path).name == "rig"
    with pytest.raises(InputError, match="must end in .toml"):
        _new(str(tmp_path / "rig.txt"))


# --- the command line (needs the wiring of cli_parser.py, cli.py and cli_run.py) --------------
def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nlpmbd", *argv], cwd=cwd, capture_output=True, text=True
    )


@pytest.mark.slow
def test_cli_new_then_run_the_model_file(tmp_path):
    made = _cli("new", "rig.toml", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    ran = _cli("run", "rig.toml", "--t-end", "0.05", "--no-plot", "--quiet", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    result = SimulationResult.load(tmp_path / "results" / "rig")
    assert result.completed and result.meta["case"] == "rig" and result.n_steps == 50


@pytest.mark.slow
def test_cli_rejects_a_malformed_model_file_with_exit_2(tmp_path):
    path = BAD_FILES[0]
    where, reason = _expected(path)
    ran = _cli("run", str(path), "--no-plot", "--quiet", cwd=tmp_path)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith(f"nlpmbd: error: {where}") and reason in line
