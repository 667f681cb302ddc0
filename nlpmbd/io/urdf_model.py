"""A URDF file (and its annotations) as nlpmbd's own model file: `nlpmbd convert robot.urdf -o
model.toml` writes it, `nlpmbd run robot.urdf` runs it (so a URDF gets everything a model file
gets: options, resume, export, studies of the file).

The mapping (io/urdf_tree.py for the frames): links -> [[bodies]]; revolute and continuous
joints -> `revolute`, prismatic -> `prismatic` (or their clearance joints where annotated, io/
urdf_clearance.py); fixed joints join links into one body; <dynamics> damping of a revolute
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
from .urdf_annotations import Annotations, beside, read_annotations
from .urdf_clearance import clearance_entry
from .urdf_read import INSTALL, Robot, read_urdf
from .urdf_tree import Assembly, assemble

URDF_GRAVITY = [0.0, 0.0, -9.81]


def convert(urdf: Path, annotations: Path | None = None) -> str:
    """The model file (TOML text) of the URDF at `urdf` with the annotation file `annotations`
    (default: robot.nlpmbd.toml beside it, when it exists)."""
    robot = read_urdf(urdf)
    if annotations is None and beside(urdf).is_file():
        annotations = beside(urdf)
    marks = read_annotations(annotations, {j.name: j.kind for j in robot.joints})
    assembly = assemble(robot, marks.positions, marks.floating, str(urdf))
    document = model_document(robot, assembly, marks, urdf)
    return _header(urdf, annotations, assembly.notes) + _toml(document)


def load_urdf(
    urdf: Path, *, annotations: Path | None = None, options: Callable[..., Any] | None = None
) -> ModelFile:
    """The URDF as a checked model file (io/model_file.py), as `nlpmbd run robot.urdf` runs it."""
    text = convert(urdf, annotations)
    marks = annotations or (beside(urdf) if beside(urdf).is_file() else None)
    label = f"{urdf} (converted with {marks})" if marks else f"{urdf} (converted)"
    return model_from_bytes(text.encode(), urdf, options=options, label=label)


def model_document(
    robot: Robot, assembly: Assembly, marks: Annotations, urdf: Path
) -> dict[str, Any]:
    """The model file's sections as plain data."""
    described = f"URDF robot {short_repr(robot.name, 60)} ({short_repr(urdf.name, 60)})"
    model = {"name": _name(robot, urdf), "description": described}
    model |= {"gravity": URDF_GRAVITY} | marks.model
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
    joints, loads = [], []
    where = Where(str(marks.path)).key("joints")
    for c in assembly.connections:
        name, kind = c.joint.name, "prismatic" if c.joint.kind == "prismatic" else "revolute"
        if name in marks.clearances:
            joints.append(clearance_entry(c, marks.clearances[name], where.key(name)))
        else:
            ends = {"parent": c.parent, "child": c.child}
            joints.append(
                {
                    "type": kind,
                    "name": name,
                    **ends,
                    "point": c.point.tolist(),
                    "axis": c.axis.tolist(),
                }
            )
        if c.joint.damping > 0 and kind == "revolute":
            loads.append(
                {
                    "type": "rotational_spring_damper",
                    "name": f"{name}_damping",
                    "parent": c.parent,
                    "child": c.child,
                    "axis": c.axis.tolist(),
                    "damping": c.joint.damping,
                }
            )
    document: dict[str, Any] = {"model": model, "bodies": bodies, "joints": joints}
    if loads:
        document["loads"] = loads
    if marks.options:
        document["options"] = marks.options
    return document


def _name(robot: Robot, urdf: Path) -> str:
    for name in (robot.name, urdf.stem):
        if NAME_PATTERN.fullmatch(name) and len(name) <= 100:
            return name
    return "robot"


def _header(urdf: Path, annotations: Path | None, notes: list[str]) -> str:
    digest = hashlib.sha256(urdf.read_bytes()).hexdigest()
    lines = [
        f"nlpmbd model file converted from {urdf.name} (SHA-256 {digest[:16]}...)",
        f"with the annotations of {annotations.name}" if annotations else "without annotations",
        "by `nlpmbd convert` (io/urdf_model.py). Not modelled: joint limits, <dynamics>",
        "friction, damping of prismatic joints, transmissions, visuals and collisions.",
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
