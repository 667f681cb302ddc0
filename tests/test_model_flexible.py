"""Flexible bodies in model files (issue 33, item 3): [[flexible_bodies]], node contacts, node
pins and point loads.

Each built-in case with a flexible slider ships as examples/<case>_flexible.toml; a short run
of the file's system gives bit-identical arrays to the case's own with slider=flexible, at its
defaults and with parameters set through the file's [parameters]; bad flexible-body entries
are one-line errors naming the file, the key and the allowed range.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from fixtures import SHORT_STEPS, load_model_file, short_run

from nlpmbd import InputError, SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import load_cases
from nlpmbd_joints.node_joints import NodeContact, NodePin

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: The built-in cases with a flexible slider (slider=flexible) and their model files.
FLEXIBLE = ("slider_crank_moment", "stick_slip")
CASES = load_cases()
ARRAYS = [f.name for f in fields(SimulationResult) if f.name not in ("meta", "solve_time")]
STEPS = SHORT_STEPS


load = load_model_file


def assert_bit_identical(first: SimulationResult, second: SimulationResult) -> None:
    assert first.n_steps == second.n_steps == STEPS
    for key in ARRAYS:
        a, b = np.asarray(getattr(first, key)), np.asarray(getattr(second, key))
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), key
        assert a.tobytes() == b.tobytes(), f"{key}: the bits differ (a signed zero?)"


def test_every_flexible_case_has_an_example():
    with_slider = {n for n, c in CASES.items() if "slider" in {p.name for p in c.parameters}}
    assert with_slider == set(FLEXIBLE)
    assert {p.stem for p in EXAMPLES.glob("*_flexible.toml")} == {f"{n}_flexible" for n in FLEXIBLE}


# parameters set for both (the file declares the case's): a changed mesh, modulus and clearance
SET = {
    "stick_slip": {"elements": 6, "youngs_modulus": 2500.0, "clearance": 1e-3, "mu": 0.1},
    "slider_crank_moment": {"elements": 8, "youngs_modulus": 500.0, "clearance": 4e-3, "g": 3.7},
}


# 0.2-0.3 s each (pytest --durations): the fast tier
@pytest.mark.parametrize("name", FLEXIBLE)
@pytest.mark.parametrize("changed", [False, True], ids=["defaults", "set"])
def test_flexible_example_runs_bit_identical_to_its_case(name, changed):
    case = CASES[name]
    model = load(EXAMPLES / f"{name}_flexible.toml")
    assert (model.case.t_end, model.case.h_min, model.case.h_max) == (
        case.t_end,
        case.h_min,
        case.h_max,
    )
    params = SET[name] if changed else {}
    built, resolved = case.build({"slider": "flexible", **params})
    assert model.options["solver"] == case.options(resolved)["solver"] == "qp"
    from_file, _ = model.case.build(params)
    assert [b.name for b in from_file.bodies] == [b.name for b in built.bodies]
    assert [b.strip for b in from_file.flexible] == [b.strip for b in built.flexible]
    assert [(type(j), j.name) for j in from_file.joints] == [
        (type(j), j.name) for j in built.joints
    ]
    assert [x.name for x in from_file.point_loads] == [x.name for x in built.point_loads]
    first, second = short_run(built, case.h_min), short_run(from_file, case.h_min)
    # the strip moves and its contacts or pin carry load: the comparison means something
    assert np.abs(first.node_q[-1] - first.node_q[0]).max() > 1e-9
    assert np.abs(np.c_[first.lam, first.lam_eq]).max() > 0
    assert_bit_identical(first, second)


# --- entries -----------------------------------------------------------------------------------
STRIP = """[[flexible_bodies]]
name = "s"
width = 0.4
height = 0.2
elements_x = 2
elements_y = 2
youngs_modulus = 1e4
poisson_ratio = 0.3
areal_density = 1.0
position = [0.0, 0.0, 0.0]
"""
FLOOR = """[[joints]]
type = "node_contact"
name = "floor"
guide = "GROUND"
nodes = { body = "s", face = "lower" }
face_point = [0.0, -0.01, 0.0]
normal = [0.0, 1.0, 0.0]
"""


def test_a_strip_falls_onto_its_node_contacts(tmp_path):
    path = tmp_path / "drop.toml"
    path.write_text(
        STRIP + FLOOR + '[[loads]]\ntype = "point_load"\nname = "push"\nbody = "s"\n'
        'point = [0.4, 0.2]\nvalue = ["-0.5 * vx", "t"]\n'
    )
    system = load(path).system
    assert [j.name for j in system.joints] == ["floor0", "floor1", "floor2"]
    assert all(isinstance(j, NodeContact) for j in system.joints)
    (load_,) = system.point_loads
    assert load_.weights() == [(8, 1.0)]  # the upper-right corner node
    options = SimulationOptions(t_end=0.1, h_min=1e-3, h_max=1e-3, solver="qp", codegen="off")
    result = simulate(system, options)
    # it fell the 1 cm onto the floor and rests on it: the gaps closed, the contacts push
    assert np.abs(result.gap[-1]).max() < 1e-6 and result.lam[-1].min() > 0


def test_a_node_pin_by_index_and_by_point_is_the_same_node(tmp_path):
    pins = []
    for node in ("{ body = 's', index = 4 }", "{ body = 's', point = [0.2, 0.1] }"):
        path = tmp_path / "pin.toml"
        path.write_text(
            STRIP + f'[[joints]]\ntype = "node_pin"\nname = "p"\nbody = "GROUND"\nnode = {node}\n'
        )
        (pin,) = load(path).system.joints
        pins.append(pin)
    assert all(isinstance(p, NodePin) for p in pins)
    assert pins[0].child.index == pins[1].child.index == 4


BAD = [
    ("elements_x = 2\n", "elements_x = 2.5\n", "flexible_bodies[0].elements_x: must be an integer"),
    ("elements_x = 2\n", "", "elements_x: missing (required: elements, or elements_x and"),
    ("elements_x = 2\n", "elements = 4\n", "elements: give either elements or elements_x and"),
    ("elements_x = 2\nelements_y = 2\n", "elements = 401\n", "elements: must be an integer in"),
    ("elements_x = 2\n", "elements_x = 0\n", "elements_x: must be an integer in [1, 400], got 0"),
    ("elements_y = 2\n", "elements_y = 401\n", "elements_y: must be an integer in [1, 400]"),
    ("elements_x = 2\nelements_y = 2\n", "elements_x = 40\nelements_y = 40\n", "at most 400"),
    ("poisson_ratio = 0.3", "poisson_ratio = 0.5", "poisson_ratio: must be in (-1, 0.5)"),
    ("youngs_modulus = 1e4", 'youngs_modulus = "stiff"', "youngs_modulus: must be a number"),
    ("width = 0.4", "width = 1e300", "width: must be in (0.0, 1000.0]"),
    ("areal_density = 1.0\n", "", "exactly one of density (kg/m^3) or areal_density"),
    ("areal_density = 1.0\n", "areal_density = 1.0\ndensity = 1.0\n", "exactly one of density"),
    ('name = "s"', 'name = "s"\ncolour = "red"', "flexible_bodies[0].colour: unknown key"),
    ("position = [0.0, 0.0, 0.0]", "position = [0.0, 1e300, 0.0]", "position[1]: must be in"),
    ('face = "lower"', 'face = "bottom"', "joints[0].nodes.face: must be one of lower, upper"),
    ('face = "lower"', "index = [0, 9]", "joints[0].nodes.index[1]: must be a node number of s"),
    ('face = "lower"', "index = [0, -1]", "in [0, 8] (2 x 2 elements), got -1"),
    ('face = "lower"', 'index = ["0"]', "nodes.index[0]: must be a node number of s in [0, 8]"),
    ('body = "s", face', 'body = "t", face', "nodes.body: unknown flexible body 't'; flexible"),
    ("nodes = {", "node = {", "joints[0].node.face: unknown key; allowed keys: body, index, point"),
    ('guide = "GROUND"', 'guide = "s"', "joints[0].guide: 's' is a flexible body"),
    ("normal = [0.0, 1.0, 0.0]", "normal = [0.0, 0.0, 1.0]", "normal: must lie in the body's"),
]


@pytest.mark.parametrize(("old", "new", "expected"), BAD, ids=[b[2][:40] for b in BAD])
def test_bad_flexible_entries_name_the_file_and_key(tmp_path, old, new, expected):
    text = STRIP + FLOOR
    assert old in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(InputError) as err:
        load(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert expected in message, message


def test_bad_nodes_and_point_loads(tmp_path):
    cases = {
        # a point between nodes is no node
        "node = { body = 's', point = [0.1, 0.05] }": "node.point: no node of s at [0.1, 0.05]",
        "node = { body = 's', index = 1, point = [0.0, 0.0] }": "exactly one of index",
        "node = { body = 's', index = 99 }": "node.index: must be a node number of s in [0, 8]",
        "node = 's'": "joints[0].node: must be a table",
    }
    for node, expected in cases.items():
        path = tmp_path / "pin.toml"
        path.write_text(
            STRIP + f'[[joints]]\ntype = "node_pin"\nname = "p"\nbody = "GROUND"\n{node}\n'
        )
        with pytest.raises(InputError, match="^" + str(path)) as err:
            load(path)
        assert expected in str(err.value), str(err.value)
    loads = {
        'value = ["t", 0.0, 0.0]': "loads[0].value: must have 2 entries, got 3",
        "value = [1.0, 2.0, 3.0]": "loads[0].value: must have shape (2,)",
        "point = [0.5, 0.0]\nvalue = [1.0, 0.0]": "loads[0]: s: point must lie in [0, 0.4]",
        'body = "GROUND"\nvalue = [1.0, 0.0]': "loads[0].body: unknown flexible body 'GROUND'",
    }
    for entry, expected in loads.items():
        path = tmp_path / "load.toml"
        text = (
            f'[[loads]]\ntype = "point_load"\nname = "f"\nbody = "s"\npoint = [0.0, 0.0]\n{entry}\n'
        )
        if "body =" in entry:
            text = text.replace('body = "s"\n', "", 1)
        path.write_text(STRIP + text.replace("point = [0.0, 0.0]\npoint", "point", 1))
        with pytest.raises(InputError, match="^" + str(path)) as err:
            load(path)
        assert expected in str(err.value), str(err.value)
