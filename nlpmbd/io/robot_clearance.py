"""A URDF joint annotated with a clearance, as a clearance joint entry of the model file.

The URDF gives the geometry (joint point and axis, global at t = 0; parent and child); the
annotation [joints.NAME] gives what URDF has no word for, in the clearance joint's own keys
(nlpmbd_joints), plus `clearance`:

- revolute or continuous -> `revolute_clearance` (a pin in a hole): `clearance` (radial, m),
  `pin_radius` and `length` (m), optional `axial_play` (m, default 0: axially ideal), `ends_on`,
  `contact`. The parent link carries the hole, the child the pin; hole_radius = pin_radius +
  clearance.
- prismatic -> `prismatic_clearance` (a polygonal slider in a guide): `clearance` (m),
  `vertices` (the slider's section corners, m), `length` (m), optional `section_x` (the
  section's first axis, in the URDF joint's frame; default its x axis, or y when the joint axis
  is along x), `contact`. The parent link is the guide, the child the slider.

`type` may be given and must then name that class. The values are checked by the joint's own
constructor when the model is built.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .model_schema import Where, check_keys, number, vector
from .robot_parts import Connection

#: URDF joint type -> (clearance joint type, keys, required keys).
CLEARANCE: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "revolute": (
        "revolute_clearance",
        ("type", "clearance", "pin_radius", "length", "axial_play", "ends_on", "contact"),
        ("clearance", "pin_radius", "length"),
    ),
    "prismatic": (
        "prismatic_clearance",
        ("type", "clearance", "vertices", "length", "section_x", "contact"),
        ("clearance", "vertices", "length"),
    ),
}


def clearance_entry(connection: Connection, spec: dict[str, Any], where: Where) -> dict[str, Any]:
    """The [[joints]] entry of the clearance joint that replaces `connection`."""
    urdf = connection.joint
    if urdf.kind not in ("revolute", "continuous", "prismatic"):
        raise where.error(
            f"a {urdf.kind} joint has no clearance joint here (revolute, continuous and "
            "prismatic joints have)"
        )
    kind = "prismatic" if urdf.kind == "prismatic" else "revolute"
    name, keys, required = CLEARANCE[kind]
    check_keys(spec, where, ("position", *keys), required)
    if spec.get("type", name) != name:
        raise where.key("type").error(f"a {urdf.kind} joint becomes {name!r}, got {spec['type']!r}")
    c = number(spec["clearance"], where.key("clearance"), low=0.0, low_open=True)
    point, axis = connection.point.tolist(), connection.axis.tolist()
    extra = {k: v for k, v in spec.items() if k in ("contact", "ends_on") and v is not None}
    if kind == "revolute":
        radius = number(spec["pin_radius"], where.key("pin_radius"), low=0.0, low_open=True)
        return {
            "type": name,
            "name": urdf.name,
            "hole": connection.parent,
            "pin": connection.child,
            "center": point,
            "axis": axis,
            "length": spec["length"],
            "hole_radius": radius + c,
            "pin_radius": radius,
            "axial_play": spec.get("axial_play", 0.0),
            **extra,
        }
    return {
        "type": name,
        "name": urdf.name,
        "guide": connection.parent,
        "slider": connection.child,
        "center": point,
        "axis": axis,
        "vertices": spec["vertices"],
        "length": spec["length"],
        "clearance": c,
        "section_x": _section_x(connection, spec, where).tolist(),
        **extra,
    }


def _section_x(connection: Connection, spec: dict[str, Any], where: Where) -> np.ndarray:
    """The section's first axis, global: the annotation's (joint frame) or the default."""
    if "section_x" in spec:
        local = vector(spec["section_x"], where.key("section_x"))
    else:
        along_x = abs(connection.joint.axis[0]) > 0.9
        local = np.array([0.0, 1.0, 0.0]) if along_x else np.array([1.0, 0.0, 0.0])
    return connection.frame @ local + 0.0
