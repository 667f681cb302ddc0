"""What a case study declares: typed parameters with defaults and ranges, default step
options, and a builder that turns parameter values into a System (no plotting, no file I/O)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .system import System


@dataclass(frozen=True)
class Parameter:
    """One case parameter. `kind` is float, int, bool or str; str parameters list `choices`."""

    name: str
    default: Any
    description: str
    kind: type = float
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()
    unit: str = ""

    def __post_init__(self) -> None:
        self.check(self.default)

    def describe_range(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.kind is bool:
            return "true or false"
        if self.kind is str:
            return "text"
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        left = "(" if self.low_open or self.low is None else "["
        right = "]" if self.high is not None else ")"
        return f"{left}{lo}, {hi}{right}"

    def parse(self, text: str) -> Any:
        """Value from a --set string."""
        raw = text.strip()
        try:
            if self.kind is bool:
                if raw.lower() in ("true", "1", "yes", "on"):
                    return self.check(True)
                if raw.lower() in ("false", "0", "no", "off"):
                    return self.check(False)
                raise ValueError
            if self.kind is int:
                return self.check(int(raw))
            if self.kind is float:
                return self.check(float(raw))
            return self.check(raw)
        except ValueError:
            raise InputError(
                f"parameter {self.name} must be {self.kind.__name__} in "
                f"{self.describe_range()}, got {text!r}"
            ) from None

    def check(self, value: Any) -> Any:
        bad = InputError(
            f"parameter {self.name} must be {self.kind.__name__} in "
            f"{self.describe_range()}, got {value!r}"
        )
        if self.kind is bool:
            if not isinstance(value, bool):
                raise bad
            return value
        if self.kind is str:
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise bad
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if self.kind is int and not float(value).is_integer():
            raise bad
        x = self.kind(value)
        if not math.isfinite(x):
            raise bad
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            raise bad
        if self.high is not None and x > self.high:
            raise bad
        return x


@dataclass(frozen=True)
class Case:
    """A registered case study."""

    name: str
    description: str
    parameters: tuple[Parameter, ...]
    builder: Callable[[Mapping[str, Any]], System]
    t_end: float = 1.0
    h_min: float = 1e-3
    h_max: float = 1e-3
    notes: str = field(default="")

    def resolve(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults updated by `overrides` (strings are parsed), each checked against its range."""
        return resolve_parameters(self.parameters, overrides or {}, f"case {self.name}")

    def build(self, overrides: Mapping[str, Any] | None = None) -> tuple[System, dict[str, Any]]:
        params = self.resolve(overrides)
        return self.builder(params), params


def resolve_parameters(
    parameters: tuple[Parameter, ...], overrides: Mapping[str, Any], owner: str
) -> dict[str, Any]:
    """Defaults updated by `overrides` (strings are parsed), each checked against its range."""
    params = {p.name: p.default for p in parameters}
    by_name = {p.name: p for p in parameters}
    for key, value in overrides.items():
        if key not in by_name:
            known = ", ".join(by_name) or "none"
            raise InputError(f"unknown parameter {key!r} for {owner} (known: {known})")
        p = by_name[key]
        params[key] = p.parse(value) if isinstance(value, str) else p.check(value)
    return params
