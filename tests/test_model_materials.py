"""Per-pair contact materials in model files (issue 32): bodies' `material`, the ground's, and
[[materials.pairs]] giving restitution, friction and the impact law of the joints between them
that give no `contact` (io/model_materials.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlpmbd import InputError, SimulationOptions
from nlpmbd.io.model_file import model_from_bytes
from nlpmbd.model.contact import HardContact

HEAD = """
[parameters.e]
default = 0.5
description = "restitution of steel on concrete"
low = 0.0
high = 1.0

[materials]
ground = "concrete"
[[materials.pairs]]
between = ["steel", "concrete"]
restitution = "$e"
mu = 0.4
impact = "energetic"
[[materials.pairs]]
between = ["steel", "steel"]
mu = 0.1

[[bodies]]
name = "a"
mass = 1.0
inertia = [0.01, 0.01, 0.01]
position = [0, 0.1, 0]
material = "steel"
[[bodies]]
name = "b"
mass = 1.0
inertia = [0.01, 0.01, 0.01]
position = [0.5, 0.1, 0]
material = "steel"
"""

JOINTS = """
[[joints]]
type = "plane_contact"
name = "a_floor"
body = "a"
points = [[0, -0.1, 0]]
[[joints]]
type = "sphere_contact"
name = "ab"
parent = "a"
child = "b"
parent_center = [0, 0.1, 0]
child_center = [0.5, 0.1, 0]
parent_radius = 0.1
child_radius = 0.1
[[joints]]
type = "plane_contact"
name = "b_floor"
body = "b"
points = [[0, -0.1, 0]]
contact = { law = "hard", restitution = 0.9 }
"""


def load(text: str):
    return model_from_bytes(text.encode(), Path("m.toml"), options=SimulationOptions)


def contacts(model) -> dict[str, HardContact]:
    return {j.name: j.contact for j in model.system.joints}


def test_joints_take_their_bodies_pair_and_an_explicit_contact_wins():
    model = load(HEAD + JOINTS)
    got = contacts(model)
    assert got["a_floor"] == HardContact(restitution=0.5, mu=0.4, impact="energetic")
    assert got["ab"] == HardContact(mu=0.1)  # steel on steel
    assert got["b_floor"] == HardContact(restitution=0.9)  # its own contact
    system, _ = model.case.build({"e": 0.8})  # the pair's values are parameters too
    assert {j.name: j.contact for j in system.joints}["a_floor"].restitution == 0.8


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('between = ["steel", "steel"]\nmu = 0.1', 'between = ["steel", "ice"]\nmu = 0.1'),
            "m.toml: joints[1].contact: no [[materials.pairs]] entry between 'steel' and 'steel'",
        ),
        (("mu = 0.4", "mu = -1"), "m.toml: materials.pairs[0].mu: must be in >= 0, got -1.0"),
        (("mu = 0.4", "friction = 0.4"), "m.toml: materials.pairs[0].friction: unknown key"),
        (
            ('impact = "energetic"', 'impact = "kinetic"'),
            "m.toml: materials.pairs[0].impact: must be one of newton, poisson, energetic",
        ),
        (
            ('between = ["steel", "steel"]', 'between = ["steel"]'),
            "m.toml: materials.pairs[1].between: must be two material names",
        ),
        (
            ('between = ["steel", "steel"]', 'between = ["concrete", "steel"]'),
            "m.toml: materials.pairs[1].between: the pair ['concrete', 'steel'] is given twice",
        ),
        (('material = "steel"', "material = 3"), "m.toml: bodies[0].material: must be a non"),
        (('ground = "concrete"', 'floor = "concrete"'), "m.toml: materials.floor: unknown key"),
    ],
)
def test_bad_materials_are_one_line_naming_the_key(change, message):
    old, new = change
    assert old in HEAD
    with pytest.raises(InputError) as err:
        load(HEAD.replace(old, new, 1) + JOINTS)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)
