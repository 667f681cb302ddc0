"""[[flexible_bodies]] of a model file (io/model_file.py) and the nodes joints and loads name.

A flexible body is a Q4 plane-stress strip (model/fem.py `PlaneStressStrip`) placed as a
`FlexibleBody` (model/flexible.py): its keys are the keywords of the two constructors, `name`,
`position` (the lower-left corner, m, global), `velocity` ([vx, vy], m/s) and `lumping`, and
`width`, `height`, `elements_x`, `elements_y`, `youngs_modulus`, `poisson_ratio`, `thickness`,
`rayleigh_alpha`, `rayleigh_beta` and one of `density` (kg/m^3) or `areal_density` (kg/m^2,
`PlaneStressStrip.from_areal_density`). `elements` instead of `elements_x` and `elements_y` is
the total, meshed as square as it divides with the longer side along x (model/fem.py
`square_mesh`, as the built-in cases' `elements` parameter: 25 -> 5 x 5, 8 -> 4 x 2).

A joint's `node` (NodeContact, NodePin) is a table naming the flexible body and one node:
``{ body = "slider", index = 12 }`` (the strip's node number, row-major from the lower-left
corner) or ``{ body = "slider", point = [0.25, 0.15] }`` (the node at that point of the strip,
m from its lower-left corner: independent of the mesh). An entry may give `nodes` instead,
``{ body = "slider", face = "lower" }`` or ``{ body = "slider", index = [0, 1, 2] }``: one joint
per node, named the entry's `name` followed by the node's number (as
`nlpmbd_joints.node_joints.node_contacts` names them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..model.fem import PlaneStressStrip, square_mesh
from ..model.flexible import FlexibleBody, Node
from ..validation import MAX_LENGTH, short_repr
from .model_schema import GROUND_NAMES, Where, check_keys, located, number, string, table, tables

#: The keys of a [[flexible_bodies]] entry: FlexibleBody's, then PlaneStressStrip's.
FLEXIBLE_BODY_KEYS = (
    "name",
    "position",
    "velocity",
    "lumping",
    "width",
    "height",
    "elements",
    "elements_x",
    "elements_y",
    "youngs_modulus",
    "poisson_ratio",
    "density",
    "areal_density",
    "thickness",
    "rayleigh_alpha",
    "rayleigh_beta",
)
FLEXIBLE_BODY_REQUIRED = ("name", "width", "height", "youngs_modulus", "poisson_ratio")
#: Most elements of one flexible body in a model file (the built-in cases' `elements` limit):
#: every face node may become a joint, and the step grows with the nodes.
MAX_ELEMENTS = 400
#: The keys of a `node` table and of a `nodes` table.
NODE_KEYS = ("body", "index", "point")
NODES_KEYS = ("body", "face", "index")
_LENGTHS = ("width", "height", "thickness")
_FACES = ("lower", "upper", "left", "right")


def read_flexible_bodies(value: object, where: Where) -> list[FlexibleBody]:
    """Every [[flexible_bodies]] entry as a FlexibleBody (names checked by the caller)."""
    return [_flexible(entry, where.item(i)) for i, entry in enumerate(tables(value, where))]


def _flexible(entry: dict[str, Any], where: Where) -> FlexibleBody:
    check_keys(entry, where, FLEXIBLE_BODY_KEYS, FLEXIBLE_BODY_REQUIRED)
    name = string(entry["name"], where.key("name"))
    if name in GROUND_NAMES:
        raise where.key("name").error(f"{name!r} is reserved for the fixed frame")
    given = [k for k in ("density", "areal_density") if k in entry]
    if len(given) != 1:
        raise where.error("give the mass as exactly one of density (kg/m^3) or areal_density")
    for key in _LENGTHS:
        if key in entry:
            number(entry[key], where.key(key), low=0.0, low_open=True, high=MAX_LENGTH)
    strip_keys = {k: v for k, v in entry.items() if k in FLEXIBLE_BODY_KEYS[4:]}
    strip_keys.update(_mesh(entry, where))
    strip_keys.pop("elements", None)
    try:
        if "areal_density" in strip_keys:
            strip = PlaneStressStrip.from_areal_density(**strip_keys)
        else:
            strip = PlaneStressStrip(**strip_keys)
    except InputError as err:
        raise _at_key(err, where, strip_keys) from None
    placement = {k: v for k, v in entry.items() if k in ("position", "velocity", "lumping")}
    if "position" in placement:
        _location(placement["position"], where.key("position"))
    try:
        return FlexibleBody(name, strip, **placement)
    except InputError as err:
        raise located(err, where, [name], entry) from None


def _mesh(entry: dict[str, Any], where: Where) -> dict[str, int]:
    """elements_x and elements_y, given or from `elements`, each checked."""
    keys = ("elements",) if "elements" in entry else ("elements_x", "elements_y")
    if "elements" in entry and ("elements_x" in entry or "elements_y" in entry):
        raise where.key("elements").error("give either elements or elements_x and elements_y")
    for key in keys:
        value = entry.get(key)
        if key not in entry:
            raise where.key(key).error("missing (required: elements, or elements_x and elements_y)")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ELEMENTS:
            raise where.key(key).error(
                f"must be an integer in [1, {MAX_ELEMENTS}], got {short_repr(value)}"
            )
    if "elements" in entry:
        nx, ny = square_mesh(entry["elements"])
    else:
        nx, ny = entry["elements_x"], entry["elements_y"]
    if nx * ny > MAX_ELEMENTS:
        raise where.key("elements_y").error(
            f"elements_x * elements_y must be at most {MAX_ELEMENTS}, got {nx * ny}"
        )
    return {"elements_x": nx, "elements_y": ny}


def _location(value: object, where: Where) -> None:
    if isinstance(value, list) and len(value) == 3:
        for index, entry in enumerate(value):
            number(entry, where.item(index), low=-MAX_LENGTH, high=MAX_LENGTH)


def _at_key(err: InputError, where: Where, keys: dict[str, Any]) -> InputError:
    """A strip's message "<key> must ..." at that key of the entry."""
    message = str(err)
    for key in keys:
        if message.startswith(f"{key} "):
            return where.key(key).error(message.removeprefix(f"{key} "))
    return where.error(message)


def flexible_body(value: object, where: Where, bodies: dict[str, Any]) -> FlexibleBody:
    """A flexible body, by name (a load's `body`, a node's)."""
    flexible = [n for n, b in bodies.items() if isinstance(b, FlexibleBody)]
    if not isinstance(value, str) or not isinstance(bodies.get(value), FlexibleBody):
        raise where.error(
            f"unknown flexible body {short_repr(value)}; flexible bodies: "
            f"{', '.join(flexible) or 'none ([[flexible_bodies]])'}"
        )
    body: FlexibleBody = bodies[value]
    return body


def node(value: object, where: Where, bodies: dict[str, Any]) -> Node:
    """One node: ``{ body = NAME, index = K }`` or ``{ body = NAME, point = [x, y] }``."""
    spec = table(value, where)
    check_keys(spec, where, NODE_KEYS, ("body",))
    body = flexible_body(spec["body"], where.key("body"), bodies)
    given = [k for k in ("index", "point") if k in spec]
    if len(given) != 1:
        raise where.error("give exactly one of index (the node's number) or point ([x, y], m)")
    if "index" in spec:
        return _index(body, spec["index"], where.key("index"))
    return _at_point(body, spec["point"], where.key("point"))


def nodes(value: object, where: Where, bodies: dict[str, Any]) -> list[Node]:
    """Several nodes: ``{ body = NAME, face = "lower" }`` or ``{ body = NAME, index = [...] }``."""
    spec = table(value, where)
    check_keys(spec, where, NODES_KEYS, ("body",))
    body = flexible_body(spec["body"], where.key("body"), bodies)
    given = [k for k in ("face", "index") if k in spec]
    if len(given) != 1:
        raise where.error(f"give exactly one of face ({', '.join(_FACES)}) or index (a list)")
    if "face" in spec:
        face = spec["face"]
        if not isinstance(face, str) or face not in _FACES:
            raise where.key("face").error(
                f"must be one of {', '.join(_FACES)}, got {short_repr(face)}"
            )
        return body.face(face)
    indices = spec["index"]
    if not isinstance(indices, list) or not indices:
        raise where.key("index").error(
            f"must be a non-empty list of node numbers, got {short_repr(indices)}"
        )
    return [_index(body, k, where.key("index").item(i)) for i, k in enumerate(indices)]


def _index(body: FlexibleBody, value: object, where: Where) -> Node:
    last = body.n_nodes - 1
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= last:
        raise where.error(
            f"must be a node number of {body.name} in [0, {last}] "
            f"({body.strip.elements_x} x {body.strip.elements_y} elements), got {short_repr(value)}"
        )
    return body.node(value)


def _at_point(body: FlexibleBody, value: object, where: Where) -> Node:
    """The node at a point of the strip (reference coordinates, to 1e-9 of its size)."""
    s = body.strip
    for index, entry in enumerate(value if isinstance(value, list) else []):
        number(entry, where.item(index), low=-MAX_LENGTH, high=MAX_LENGTH)
    if not isinstance(value, list) or len(value) != 2:
        raise where.error(f"must be [x, y] (m from the strip's lower-left corner), got {value!r}")
    distance = np.linalg.norm(s.nodes() - np.asarray(value, float), axis=1)
    k = int(np.argmin(distance))
    if distance[k] > 1e-9 * max(s.width, s.height):
        raise where.error(
            f"no node of {body.name} at {value} (its nodes are {s.width / s.elements_x:g} m "
            f"apart along x, {s.height / s.elements_y:g} m along y, from [0, 0])"
        )
    return body.node(k)
