"""Model files: a multibody system and its default options in one TOML file
(`nlpmbd run model.toml`; `nlpmbd new` writes a commented template; examples/ has every built-in
case as one).

Why TOML: Python reads it with the standard library (tomllib), so model files add no
dependency; its values are typed explicitly (a string is quoted, a number is not: none of
YAML's implicit conversions such as `no` -> false or 1.10 -> 1.1); it has comments; and its
arrays of tables ([[bodies]], [[joints]]) are the lists of objects a system is made of.

Sections (all optional but [[bodies]] or [[flexible_bodies]]; any other key is an error):

- `[model]`: `name` (default: the file's stem; names the result directory), `description` and
  `gravity = [gx, gy, gz]` (m/s^2, default [0, -9.81, 0]);
- `[parameters]`: typed, ranged parameters referenced as `$name` (io/model_params.py), set by
  `--set` and `--compare` as a built-in case's;
- `[[bodies]]`: io/model_bodies.py; `[[flexible_bodies]]` (Q4 strips, their nodes named by
  node joints and point loads): io/model_flexible.py;
- `[[joints]]` and `[[loads]]`: `type` and the class's constructor keywords, io/model_parts.py;
- `[materials]`: the ground's material and per-pair restitution, friction and impact law for
  joints that give no `contact` (bodies' `material`), io/model_materials.py;
- `[options]`: default simulation options by their flat names (t_end, h_min, h_max, solver,
  ...; run/option_groups.py), which command-line flags override.

Each error is one InputError line naming the file, the key path and what is allowed
(io/model_schema.py); a TOML syntax error names the line.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model.case import Case, Parameter
from ..model.system import System
from .model_bodies import read_bodies
from .model_flexible import read_flexible_bodies
from .model_materials import Materials
from .model_params import ModelCase, read_parameters, substitute
from .model_parts import LOADS, build_entries, build_entry, joint_classes
from .model_schema import (
    MODEL_KEYS,
    TOP_LEVEL,
    Where,
    check_keys,
    name_of,
    string,
    table,
    tables,
    vector,
)

#: Largest model file read (bytes).
MAX_BYTES = 5_000_000
#: Most [[bodies]], [[joints]] and [[loads]] entries each. Setting a system up grows with the
#: square of its size (measured on 2 cores, QP path, a chain on revolute joints: 200 bodies 6 s,
#: 500 bodies 41 s and 1.0 GB, 800 bodies 3 minutes and 1.7 GB; a file of 3000 used 3.5 GB and
#: was not set up after 3 minutes), so more than 500 is refused before anything is built.
MAX_ENTRIES = 500
DEFAULT_GRAVITY = (0.0, -9.81, 0.0)
#: Time grid of a file that sets none (the Case defaults).
DEFAULT_TIME = {"t_end": 1.0, "h_min": 1e-3, "h_max": 1e-3}


@dataclass(frozen=True)
class ModelFile:
    """A model file read and checked: its System (built once, at the parameters' defaults), its
    [options] (flat names) and a Case of its [parameters] whose builder builds the System again
    from the file for any values of them."""

    path: Path
    name: str
    description: str
    system: System
    options: dict[str, Any]
    case: Case
    sha256: str


def load_model(
    path: str | Path,
    *,
    joints: Mapping[str, type] | None = None,
    options: Callable[..., Any] | None = None,
) -> ModelFile:
    """Read and check the model file at `path`; InputError "<file>: <key path>: <reason>".

    `joints` maps [[joints]] type names to classes (default: the entry point group
    "nlpmbd.joints"). `options` checks the [options] table: called with them as keywords, it
    raises InputError for a bad one (pass SimulationOptions; None checks only that it is a
    table, since this layer does not know the options).
    """
    return model_from_bytes(read_model_bytes(path), Path(path), joints=joints, options=options)


def read_model_bytes(path: str | Path) -> bytes:
    """The bytes of the model file at `path` (InputError if unreadable or too large)."""
    return _read(Path(path), Where(str(path)))


def model_from_bytes(
    data: bytes,
    path: Path,
    *,
    joints: Mapping[str, type] | None = None,
    options: Callable[..., Any] | None = None,
    label: str | None = None,
) -> ModelFile:
    """`load_model` of a model file's bytes (e.g. one converted from a URDF, io/robot_model.py);
    `path` names the file, `label` (default: the path) begins its error messages."""
    where = Where(label or str(path))
    document = _parse(data, where)
    check_keys(document, where, TOP_LEVEL)
    if "bodies" not in document and "flexible_bodies" not in document:
        raise where.key("bodies").error("missing (required: bodies or flexible_bodies)")
    for section in ("bodies", "flexible_bodies", "joints", "loads"):
        entries = document.get(section, [])
        if isinstance(entries, list) and len(entries) > MAX_ENTRIES:
            raise where.key(section).error(
                f"a model file may have at most {MAX_ENTRIES} [[{section}]] entries, got "
                f"{len(entries)} (setting up takes minutes and GBs of memory beyond that)"
            )
    name, description = _header(document.get("model", {}), where.key("model"), path)
    classes = dict(joint_classes() if joints is None else joints)
    flat = check_options(document.get("options", {}), where.key("options"), options)
    parameters, unused = _parameters(document, where)

    def builder(params: Mapping[str, Any]) -> System:
        if "parameters" not in document:
            return build_system(document, where, classes)
        return build_system(substitute(document, params, where)[0], where, classes)

    time = {k: flat.get(k, v) for k, v in DEFAULT_TIME.items()}
    # the file's other options are its case's option defaults, as a built-in case's: every entry
    # point (run, study, bench, the API's simulate) takes them below the caller's own
    chosen = {k: v for k, v in flat.items() if k not in DEFAULT_TIME}
    try:
        case = ModelCase(
            name,
            description,
            parameters,
            builder,
            options=lambda params: dict(chosen),
            file=where.file,
            unused=tuple(sorted(unused)),
            **time,
        )
    except InputError as err:
        raise where.key("options").error(str(err).removeprefix(f"case {name}: ")) from None
    system, _ = case.build()
    digest = hashlib.sha256(data).hexdigest()
    return ModelFile(path, name, description, system, flat, case, digest)


def _parameters(document: Mapping[str, Any], where: Where) -> tuple[tuple[Parameter, ...], set]:
    """The [parameters] (none without the table) and the names referenced nowhere."""
    if "parameters" not in document:
        return (), set()
    parameters = read_parameters(document["parameters"], where.key("parameters"))
    _, used = substitute(document, {p.name: p.default for p in parameters}, where)
    return parameters, {p.name for p in parameters} - used


def _read(path: Path, where: Where) -> bytes:
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as err:
        raise where.error(f"cannot read the model file ({err.strerror or err})") from None
    if len(data) > MAX_BYTES:
        raise where.error(f"a model file may have at most {MAX_BYTES} bytes")
    return data


def _parse(data: bytes, where: Where) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise where.error(f"not UTF-8 text (byte {err.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        line = re.search(r"at line (\d+)", message)
        at = f"{where.file}:{line.group(1)}" if line else where.file
        raise InputError(f"{at}: TOML syntax error: {message}") from None
    except RecursionError:  # absurd nesting of arrays or inline tables
        raise where.error("TOML syntax error: nested too deeply") from None


def _header(value: object, where: Where, path: Path) -> tuple[str, str]:
    model = table(value, where)
    check_keys(model, where, MODEL_KEYS)
    if "name" in model:
        name = name_of(model["name"], where.key("name"))
    else:
        name = name_of(path.stem, Where(where.file, "the file's name (set [model] name)"))
    description = (
        string(model["description"], where.key("description"))
        if model.get("description")
        else f"model file {path.name}"
    )
    return name, description


def build_system(document: Mapping[str, Any], where: Where, classes: Mapping[str, type]) -> System:
    """The System the checked document describes (InputError at the first bad entry)."""
    model = document.get("model", {})
    gravity = vector(model.get("gravity", DEFAULT_GRAVITY), where.key("model").key("gravity"))
    system = System(gravity=gravity)
    bodies = read_bodies(document.get("bodies", []), where.key("bodies"))
    flexible = read_flexible_bodies(
        document.get("flexible_bodies", []), where.key("flexible_bodies")
    )
    if not bodies and not flexible:
        raise where.key("bodies").error("a model needs at least one body")
    system.add_bodies(bodies)
    materials = Materials(document, where)
    named: dict[str, Any] = {b.name: b for b in bodies}
    for index, body in enumerate(flexible):
        at = where.key("flexible_bodies").item(index).key("name")
        if body.name in named:
            raise at.error(f"duplicate body name {body.name!r}; names must be unique")
        named[body.name] = system.add_body(body)
    for index, entry in enumerate(tables(document.get("joints", []), where.key("joints"))):
        at = where.key("joints").item(index)
        if isinstance(entry.get("type"), str) and entry["type"] in classes:
            entry = materials.contact(entry, classes[entry["type"]], at)
        for joint in build_entries(entry, at, classes, named):
            _add(system.add_joint, joint, at)
        count = len(system.joints)
        if count > MAX_ENTRIES:
            raise at.error(
                f"a model may have at most {MAX_ENTRIES} joints, got {count} with this entry's "
                "nodes (setting up takes minutes and GBs of memory beyond that)"
            )
    seen: dict[str, int] = {}
    for index, entry in enumerate(tables(document.get("loads", []), where.key("loads"))):
        at = where.key("loads").item(index)
        load = build_entry(entry, at, LOADS, named)
        if load.name in seen:
            raise at.key("name").error(
                f"duplicate load name {load.name!r} (also loads[{seen[load.name]}]); "
                "give each load its own name"
            )
        seen[load.name] = index
        _add(system.add_load, load, at)
    return system


def _add(add: Callable[[Any], Any], item: Any, where: Where) -> None:
    try:
        add(item)
    except InputError as err:
        message = str(err)
        if "is already used" in message:
            raise where.key("name").error(message) from None
        if "contact law would do nothing" in message:
            raise where.key("contact").error(message) from None
        raise where.error(message) from None


def check_options(
    value: object, where: Where, factory: Callable[..., Any] | None
) -> dict[str, Any]:
    """The [options] table, checked by `factory` all together; a bad one is named by checking
    each alone (with the defaults for the others)."""
    flat = table(value, where)
    if factory is None:
        return flat
    try:
        factory(**flat)
        return flat
    except InputError as err:
        combined = str(err)
    for key, entry in flat.items():
        try:
            factory(**{key: entry})
        except InputError as err:
            message = str(err)
            if message.startswith("unknown option") or _FIELD_ERROR.match(message):
                raise where.key(key).error(message.removeprefix(f"{key} ")) from None
    first = re.match(r"[A-Za-z_]\w*", combined)  # e.g. "h_min must be <= h_max, got ..."
    if first and first.group(0) in flat:
        key = first.group(0)
        raise where.key(key).error(combined.removeprefix(f"{key} "))
    raise where.error(combined)


#: How the options' own checks of one value begin (not those of a combination of options).
_FIELD_ERROR = re.compile(
    r"[\w-]+ must (be (in |a number|finite|one of|true or false|an integer)|not)"
)
