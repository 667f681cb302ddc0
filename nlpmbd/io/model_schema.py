"""The shape of a model file (io/model_file.py) and its error messages.

Every error is one InputError line "<file>: <key path>: <reason>", e.g.
``model.toml: joints[2].hole_radius: must be > pin_radius = 0.01, got 0.005``. `Where` carries
the file and the key path; `located` turns the message of a class's own check ("pin.hole_radius
must be ...") into one at the key path of the file.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from ..validation import finite_array, finite_scalar, short_repr

#: Sections of a model file, in the order they are read.
TOP_LEVEL = (
    "model",
    "bodies",
    "flexible_bodies",
    "joints",
    "loads",
    "options",
    "parameters",
    "materials",
)
MODEL_KEYS = ("name", "description", "gravity")
BODY_KEYS = (
    "name", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity",
    "material",
)  # fmt: skip
BODY_REQUIRED = ("name", "mass", "inertia")
#: Axis-angle orientation: a table with `axis` and one of `angle` (rad) or `degrees`.
AXIS_ANGLE_KEYS = ("axis", "angle", "degrees")
#: How joints and loads name the fixed frame.
GROUND_NAMES = ("GROUND", "ground")
#: A model's name becomes a directory name (results/NAME): letters, digits, _ . - only.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")

_KEY = re.compile(r"([A-Za-z_]\w*)((?:\[\d+\])*)[ :]*(.*)", re.DOTALL)


class Where:
    """A place in a model file: the file's name and a key path such as "joints[2].axis"."""

    def __init__(self, file: str, path: str = "") -> None:
        self.file, self.path = file, path

    def key(self, name: str) -> Where:
        return Where(self.file, f"{self.path}.{name}" if self.path else name)

    def item(self, index: int) -> Where:
        return Where(self.file, f"{self.path}[{index}]")

    def error(self, reason: str) -> InputError:
        return InputError(f"{self}: {reason}")

    def __str__(self) -> str:
        return f"{self.file}: {self.path}" if self.path else self.file


def located(
    err: InputError, where: Where, owners: Sequence[str], keys: Collection[str]
) -> InputError:
    """A class's message "<owner>.<key> must ..." (or "<owner>: ...") as "<file>: <path>.<key>:
    must ...", for an owner in `owners` (e.g. the joint's name, "contact") and a key the file
    gave; any other message at `where` itself."""
    message = str(err)
    for owner in owners:
        if message.startswith(f"{owner}: "):
            return where.error(message[len(owner) + 2 :])
        if not message.startswith(f"{owner}."):
            continue
        match = _KEY.fullmatch(message[len(owner) + 1 :])
        if match is None:
            continue
        key, index, reason = match.groups()
        if key in keys:
            return Where(where.file, where.key(key).path + index).error(reason)
    return where.error(message)


def table(value: object, where: Where) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise where.error(f"must be a table, got {short_repr(value)}")
    return dict(value)


def tables(value: object, where: Where) -> list[dict[str, Any]]:
    """An array of tables ([[bodies]] ...)."""
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise where.error(f"must be an array of tables ([[...]] sections), got {short_repr(value)}")
    return [dict(v) for v in value]


def check_keys(
    entries: Mapping[str, Any],
    where: Where,
    allowed: Collection[str],
    required: Collection[str] = (),
) -> None:
    """Unknown and missing keys, each named with its path and the allowed ones."""
    for key in entries:
        if key not in allowed:
            raise where.key(key).error(f"unknown key; allowed keys: {', '.join(allowed)}")
    for key in required:
        if key not in entries:
            raise where.key(key).error(f"missing (required: {', '.join(required)})")


def string(value: object, where: Where) -> str:
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise where.error(f"must be a non-empty string on one line, got {short_repr(value)}")
    return value


def number(value: object, where: Where, **limits: Any) -> float:
    """A number in range (finite_scalar's keywords low, high, low_open)."""
    try:
        return finite_scalar("value", value, **limits)
    except InputError as err:
        raise where.error(str(err).removeprefix("value ")) from None


def vector(value: object, where: Where, size: int = 3) -> np.ndarray:
    try:
        return finite_array("value", value, (size,))
    except InputError as err:
        raise where.error(str(err).removeprefix("value ")) from None


def name_of(value: object, where: Where) -> str:
    """A model's name (used as a directory name)."""
    text = string(value, where)
    if not NAME_PATTERN.fullmatch(text) or len(text) > 100:
        raise where.error(
            f"must be 1 to 100 letters, digits, '_', '.' or '-' (it names the result "
            f"directory), not starting with '.' or '-', got {short_repr(text)}"
        )
    return text
