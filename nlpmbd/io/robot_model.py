"""A URDF file (and its annotations) as nlpmbd's own model file: `nlpmbd convert robot.urdf -o
model.toml` writes it, `nlpmbd run robot.urdf` runs it (so a URDF gets everything a model file
gets: options, resume, export, studies of the file).

The mapping (io/urdf_tree.py for the frames): links -> [[bodies]]; revolute and continuous
joints -> `revolute`, prismatic -> `prismatic` (or their clearance joints where annotated, io/
robot_clearance.py); fixed joints join links into one body; <dynamics> damping of a revolute
joint -> a `rotational_spring_damper` load (stiffness 0). Gravity is -9.81 m/s^2 along Z (ROS's
z-up convention, REP 103) unless the annotations say otherwise. Not modelled, and said so in
the file's header: joint limits (a passive mechanism here; their stops would be contacts),
<dynamics> friction, damping of prismatic joints, transmissions, visuals and collisions.
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..validation import short_repr
from .model_file import ModelFile, model_from_bytes
from .model_schema import NAME_PATTERN, Where
from .robot_annotations import Annotations, beside, read_annotations
from .robot_clearance import clearance_entry
from .robot_parts import Assembly, Connection
from .urdf_read import INSTALL, read_urdf
from .urdf_tree import assemble

URDF_GRAVITY = [0.0, 0.0, -9.81]
#: What each format has that the model file does not get (the converted file's header).
URDF_UNMODELLED = (
    "Not modelled: joint limits, <dynamics> friction, damping of prismatic joints, "
    "transmissions, visuals and collisions."
)
#: Joint kinds -> [[joints]] type, and the keys of its geometry.
TYPES = {
    "revolute": ("revolute", ("point", "axis")),
    "continuous": ("revolute", ("point", "axis")),
    "prismatic": ("prismatic", ("point", "axis")),
    "spherical": ("spherical", ("point",)),
    "fixed": ("fixed", ("point",)),
}


def convert(path: Path, annotations: Path | None = None) -> str:
    """The model file (TOML text) of the robot at `path` (URDF, or MJCF for a .xml file) with
    the annotation file `annotations` (default: robot.nlpmbd.toml beside it, if it exists)."""
    if annotations is None and beside(path).is_file():
        annotations = beside(path)
    where = str(path)
    if path.suffix.lower() == ".xml":
        from .mjcf_read import assemble_mjcf, read_mjcf

        mjcf = read_mjcf(path)
        marks = read_annotations(annotations, mjcf.joints)
        if marks.floating:
            raise InputError(
                f"{annotations}: base.floating: applies to a URDF; an MJCF body floats with a "
                "<freejoint>"
            )
        assembly = assemble_mjcf(mjcf, marks.positions, where)
        name, gravity = mjcf.name, [float(g) for g in mjcf.model.opt.gravity]
        kind = "MJCF model"
    else:
        robot = read_urdf(path)
        marks = read_annotations(annotations, {j.name: j.kind for j in robot.joints})
        assembly = assemble(robot, marks.positions, marks.floating, where)
        assembly.notes.insert(0, URDF_UNMODELLED)
        name, gravity, kind = robot.name, URDF_GRAVITY, "URDF robot"
    described = f"{kind} {short_repr(name, 60)} ({short_repr(path.name, 60)})"
    header = {"name": _name(name, path), "description": described, "gravity": gravity}
    document = model_document(header | marks.model, assembly, marks)
    return _header(path, annotations, assembly.notes) + _toml(document)


def load_robot(
    path: Path, *, annotations: Path | None = None, options: Callable[..., Any] | None = None
) -> ModelFile:
    """The URDF (or MJCF) robot as a checked model file (io/model_file.py), as `nlpmbd run
    robot.urdf` runs it."""
    text = convert(path, annotations)
    marks = annotations or (beside(path) if beside(path).is_file() else None)
    label = f"{path} (converted with {marks})" if marks else f"{path} (converted)"
    return model_from_bytes(text.encode(), path, options=options, label=label)


def model_document(model: dict[str, Any], assembly: Assembly, marks: Annotations) -> dict[str, Any]:
    """The model file's sections as plain data."""
    bodies = [
        {
            "name": b.name,
            "mass": b.mass,
            "inertia": b.inertia.tolist(),
            "position": b.position.tolist(),
            "orientation": b.orientation.tolist(),
        }
        for b in assembly.bodies
    ]
    joints = [_joint(c, marks) for c in assembly.connections]
    loads = [_spring(c) for c in assembly.connections if _sprung(c)]
    document: dict[str, Any] = {"model": model, "bodies": bodies, "joints": joints}
    if loads:
        document["loads"] = loads
    if marks.options:
        document["options"] = marks.options
    return document


def _joint(c: Connection, marks: Annotations) -> dict[str, Any]:
    name = c.joint.name
    if name in marks.clearances:
        where = Where(str(marks.path)).key("joints").key(name)
        return clearance_entry(c, marks.clearances[name], where)
    kind, keys = TYPES[c.joint.kind]
    geometry = {"point": c.point.tolist(), "axis": c.axis.tolist()}
    entry = {"type": kind, "name": name, "parent": c.parent, "child": c.child}
    return entry | {k: geometry[k] for k in keys}


def _sprung(c: Connection) -> bool:
    return TYPES[c.joint.kind][0] == "revolute" and (c.joint.damping > 0 or c.joint.stiffness > 0)


def _spring(c: Connection) -> dict[str, Any]:
    """A revolute joint's damping (and stiffness) as a rotational spring-damper."""
    joint = c.joint
    entry = {
        "type": "rotational_spring_damper",
        "name": f"{joint.name}_{'spring' if joint.stiffness > 0 else 'damping'}",
        "parent": c.parent,
        "child": c.child,
        "axis": c.axis.tolist(),
        "damping": joint.damping,
    }
    if joint.stiffness > 0:
        entry |= {"stiffness": joint.stiffness, "angle0": joint.spring_angle}
    return entry


def _name(given: str, path: Path) -> str:
    for name in (given, path.stem):
        if NAME_PATTERN.fullmatch(name) and len(name) <= 100:
            return name
    return "robot"


def _header(urdf: Path, annotations: Path | None, notes: list[str]) -> str:
    digest = hashlib.sha256(urdf.read_bytes()).hexdigest()
    lines = [
        f"nlpmbd model file converted from {urdf.name} (SHA-256 {digest[:16]}...)",
        f"with the annotations of {annotations.name}" if annotations else "without annotations",
        "by `nlpmbd convert` (io/robot_model.py).",
        *notes,
    ]
    wrapped = [part for line in lines for part in textwrap.wrap(line, 98)]
    return "".join(f"# {line}\n" for line in wrapped) + "\n"


def _toml(document: dict[str, Any]) -> str:
    """TOML text: one line per value, entries' sub-tables inline (as the examples are)."""
    try:
        import tomlkit
    except ImportError:
        raise InputError(f"writing a model file needs the urdf extra: {INSTALL}") from None
    out = tomlkit.document()
    for key, value in document.items():
        if isinstance(value, list):
            array = tomlkit.aot()
            for entry in value:
                item = tomlkit.table()
                for k, v in entry.items():
                    item.add(k, _inline(v) if isinstance(v, dict) else v)
                array.append(item)
            out.add(key, array)
        else:
            out.add(key, value)
    return tomlkit.dumps(out)


def _inline(value: dict[str, Any]) -> Any:
    import tomlkit

    table = tomlkit.inline_table()
    table.update(value)
    return table
