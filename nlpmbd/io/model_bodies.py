"""The [[bodies]] of a model file (io/model_file.py) as RigidBody objects.

A body: `name`, `mass` (kg), `inertia` (kg m^2 about the centre of mass in body axes: three
principal moments [Jxx, Jyy, Jzz] or a 3x3 matrix), and optionally `position` (m, global),
`orientation`, `velocity` (m/s, global) and `angular_velocity` (rad/s, BODY axes), all at t = 0.

`orientation` rotates body axes into global axes, given either as unit Euler parameters
[e0, e1, e2, e3] (e0 the scalar part, the engine's own coordinates: exact) or as an axis and an
angle, ``{ axis = [0, 0, 1], angle = 0.5 }`` (rad) or ``{ axis = [0, 0, 1], degrees = 30 }``.
"""

from __future__ import annotations

from typing import Any

from pyquaternion import Quaternion

from ..errors import InputError
from ..model.bodies import RigidBody
from ..validation import vector_norm
from .model_schema import (
    AXIS_ANGLE_KEYS,
    BODY_KEYS,
    BODY_REQUIRED,
    GROUND_NAMES,
    Where,
    check_keys,
    located,
    number,
    string,
    table,
    tables,
    vector,
)


def read_bodies(value: object, where: Where) -> list[RigidBody]:
    """Every [[bodies]] entry, checked; names unique and not the ground's."""
    bodies: list[RigidBody] = []
    first: dict[str, int] = {}
    for index, entry in enumerate(tables(value, where)):
        at = where.item(index)
        check_keys(entry, at, BODY_KEYS, BODY_REQUIRED)
        name = string(entry["name"], at.key("name"))
        if name in GROUND_NAMES:
            raise at.key("name").error(f"{name!r} is reserved for the fixed frame")
        if name in first:
            raise at.key("name").error(
                f"duplicate body name {name!r} (also bodies[{first[name]}]); names must be unique"
            )
        first[name] = index
        bodies.append(_body(entry, at, name))
    return bodies


def _body(entry: dict[str, Any], where: Where, name: str) -> RigidBody:
    kwargs = {k: v for k, v in entry.items() if k != "material"}  # io/model_materials.py
    if "orientation" in kwargs:
        kwargs["orientation"] = orientation(kwargs["orientation"], where.key("orientation"))
    try:
        return RigidBody(**kwargs)
    except InputError as err:
        raise located(err, where, [name], entry) from None


def orientation(value: object, where: Where) -> Any:
    """Euler parameters (a list, checked by RigidBody) or an axis-angle table (a Quaternion)."""
    if not isinstance(value, dict):
        return value
    entries = table(value, where)
    check_keys(entries, where, AXIS_ANGLE_KEYS, ("axis",))
    given = [k for k in ("angle", "degrees") if k in entries]
    if len(given) != 1:
        raise where.error("give the rotation angle as exactly one of angle (rad) or degrees")
    axis = vector(entries["axis"], where.key("axis"))
    if vector_norm(axis) == 0.0:
        raise where.key("axis").error("must be a non-zero 3-vector")
    angle = number(entries[given[0]], where.key(given[0]))
    # pyquaternion, as the built-in cases use it, so that both give the same bits
    return Quaternion(axis=list(entries["axis"]), **{given[0]: angle})
