"""Annotations of a URDF file: what URDF cannot say and nlpmbd needs, in a TOML file beside it.

`robot.urdf` is read with `robot.nlpmbd.toml` from the same directory when that file exists
(`nlpmbd convert --annotations FILE` names another). A sidecar, not custom URDF elements: URDF
files are usually generated (xacro, CAD exporters) and owned by the robot's vendor, so they stay
untouched; and the annotations are written in the model file's own language, with its keys,
checks and one-line errors. Every section is optional:

    [model]                    # as a model file's [model]: name, description, gravity
    gravity = [0.0, 0.0, -9.81]
    [base]
    floating = false           # true: the root link is a free body, not fixed to the ground
    [joints.elbow]             # a URDF joint, by name
    position = 0.3             # initial joint position, rad (also for MJCF in degrees) or m
    clearance = 1e-4           # m: the joint becomes a clearance joint (io/robot_clearance.py)
    pin_radius = 0.01
    length = 0.04
    [options]                  # the model file's [options]: t_end, h_min, ...
    t_end = 2.0
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model_schema import MODEL_KEYS, Where, check_keys, number, table

SUFFIX = ".nlpmbd.toml"
TOP_LEVEL = ("model", "base", "joints", "options")
BASE_KEYS = ("floating",)
#: Keys of a [joints.NAME] table besides those of its clearance joint (io/robot_clearance.py).
JOINT_KEYS = ("position",)
MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class Annotations:
    """The checked annotations (all empty: the URDF as it is)."""

    path: Path | None = None
    model: dict[str, Any] = field(default_factory=dict)
    floating: bool = False
    positions: dict[str, float] = field(default_factory=dict)
    clearances: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)


def beside(urdf: Path) -> Path:
    """The annotation file read with `urdf` by default: robot.urdf -> robot.nlpmbd.toml."""
    return urdf.with_name(urdf.stem + SUFFIX)


def read_annotations(path: Path | None, joints: dict[str, str]) -> Annotations:
    """The annotations at `path` (None: none), checked against the URDF's `joints`
    ({name: type}); InputError "<file>: <key path>: <reason>"."""
    if path is None:
        return Annotations()
    where = Where(str(path))
    try:
        data = path.read_bytes()[: MAX_BYTES + 1]
    except OSError as err:
        raise where.error(f"cannot read the annotation file ({err.strerror or err})") from None
    if len(data) > MAX_BYTES:
        raise where.error(f"an annotation file may have at most {MAX_BYTES} bytes")
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as err:
        raise where.error(f"TOML syntax error: {err}") from None
    check_keys(document, where, TOP_LEVEL)
    model = table(document.get("model", {}), where.key("model"))
    check_keys(model, where.key("model"), MODEL_KEYS)
    base = table(document.get("base", {}), where.key("base"))
    check_keys(base, where.key("base"), BASE_KEYS)
    floating = base.get("floating", False)
    if not isinstance(floating, bool):
        raise where.key("base").key("floating").error(f"must be true or false, got {floating!r}")
    positions: dict[str, float] = {}
    clearances: dict[str, dict[str, Any]] = {}
    at = where.key("joints")
    for name, value in table(document.get("joints", {}), at).items():
        entry = table(value, at.key(name))
        if name not in joints:
            raise at.key(name).error(
                f"no joint {name!r} in the URDF; its joints: {', '.join(joints) or 'none'}"
            )
        if "position" in entry:
            positions[name] = _position(entry.pop("position"), at.key(name), joints[name])
        if entry:
            clearances[name] = entry
    options = table(document.get("options", {}), where.key("options"))
    return Annotations(path, model, floating, positions, clearances, options)


def _position(value: object, where: Where, kind: str) -> float:
    if kind not in ("revolute", "continuous", "prismatic"):
        raise where.key("position").error(f"a {kind} joint has no position")
    return number(value, where.key("position"), low=-1e3, high=1e3)
