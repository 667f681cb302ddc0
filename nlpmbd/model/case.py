"""What a case study declares: typed parameters with defaults and ranges, default step
options, and a builder that turns parameter values into a System (no plotting, no file I/O)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..validation import finite_scalar, name_string, short_repr

if TYPE_CHECKING:  # listing cases reads their parameters only: no CasADi until a build
    from .system import System

#: The kinds of value a Parameter can hold.
KINDS = (float, int, bool, str)
#: Largest magnitude of a number parameter (SI units): beyond it products of a few parameters
#: overflow double precision, and no mechanism of this scale is meaningful.
MAX_MAGNITUDE = 1e12


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
    #: other parameter -> its values for which this one has an effect (e.g. a clearance only
    #: with joint=clearance); setting this one explicitly otherwise is an error
    applies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        name_string("parameter name", self.name)
        if self.kind not in KINDS:
            raise InputError(
                f"parameter {self.name}: kind must be one of float, int, bool, str, "
                f"got {short_repr(self.kind)}"
            )
        for bound in ("low", "high"):
            value = getattr(self, bound)
            if value is not None:
                finite_scalar(f"parameter {self.name}: {bound}", value)
        if self.low is not None and self.high is not None and self.low > self.high:
            raise InputError(
                f"parameter {self.name}: low must be <= high, got low={self.low} > high={self.high}"
            )
        if not isinstance(self.choices, tuple) or not all(
            isinstance(c, str) and c for c in self.choices
        ):
            raise InputError(
                f"parameter {self.name}: choices must be a tuple of non-empty strings, "
                f"got {short_repr(self.choices)}"
            )
        if self.choices and self.kind is not str:
            raise InputError(
                f"parameter {self.name}: choices need kind str, got {self.kind.__name__}"
            )
        self.check(self.default)

    def describe_range(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.kind is bool:
            return "true or false"
        if self.kind is str:
            return "text"
        low, high = self.bounds
        left = "(" if self.low_open and low == self.low else "["
        return f"{left}{low:g}, {high:g}]"

    @property
    def bounds(self) -> tuple[float, float]:
        """[low, high] of a number parameter, within +-MAX_MAGNITUDE."""
        low = -MAX_MAGNITUDE if self.low is None else max(self.low, -MAX_MAGNITUDE)
        high = MAX_MAGNITUDE if self.high is None else min(self.high, MAX_MAGNITUDE)
        return low, high

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
                f"{self.describe_range()}, got {short_repr(text)}"
            ) from None

    def check(self, value: Any) -> Any:
        """`value` as a plain Python value of `kind`, or InputError if it is out of range."""
        bad = InputError(
            f"parameter {self.name} must be {self.kind.__name__} in "
            f"{self.describe_range()}, got {short_repr(value)}"
        )
        if self.kind is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise bad
            return bool(value)
        if self.kind is str:
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise bad
            return value
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise bad
        try:
            if self.kind is int and not float(value).is_integer():
                raise bad
            x = self.kind(value)
        except OverflowError:  # an int beyond the float range
            raise bad from None
        if not math.isfinite(x):
            raise bad
        low, high = self.bounds
        if x < low or x > high or (self.low_open and x == self.low):
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
    #: option defaults the case chooses for its parameters, below the user's options (e.g. the
    #: QP path for a flexible slider): params -> {option: value}; `build` puts them on the
    #: System (System.option_defaults), where `simulate` takes them
    options: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    #: whether the case can be written as a model file (examples/<name>.toml); False for one
    #: whose loads are Python functions beyond the model file's expressions (a controller)
    model_file: bool = True

    def __post_init__(self) -> None:
        name_string("case name", self.name)
        owner = f"case {self.name}"
        if not isinstance(self.parameters, (tuple, list)) or not all(
            isinstance(p, Parameter) for p in self.parameters
        ):
            raise InputError(
                f"{owner}: parameters must be a tuple of Parameter, "
                f"got {short_repr(self.parameters)}"
            )
        object.__setattr__(self, "parameters", tuple(self.parameters))
        names = [p.name for p in self.parameters]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise InputError(f"{owner}: parameter names must be unique, repeated: {repeated}")
        if not callable(self.builder):
            raise InputError(
                f"{owner}: builder must be a callable params -> System, "
                f"got {short_repr(self.builder)}"
            )
        if self.options is not None and not callable(self.options):
            raise InputError(
                f"{owner}: options must be a callable params -> {{option: value}} or None, "
                f"got {short_repr(self.options)}"
            )
        set_ = object.__setattr__
        set_(self, "t_end", finite_scalar(f"{owner}: t_end", self.t_end, low=0.0, low_open=True))
        set_(self, "h_min", finite_scalar(f"{owner}: h_min", self.h_min, low=0.0, low_open=True))
        set_(
            self,
            "h_max",
            finite_scalar(f"{owner}: h_max", self.h_max, low=self.h_min, high=self.t_end),
        )

    def resolve(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults updated by `overrides` (strings are parsed), each checked against its range."""
        return resolve_parameters(
            self.parameters, {} if overrides is None else overrides, f"case {self.name}"
        )

    def option_defaults(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The case's option defaults for resolved `params` (Case.options), {} without."""
        if self.options is None:
            return {}
        chosen = self.options(params)
        if not isinstance(chosen, Mapping) or not all(isinstance(k, str) for k in chosen):
            raise InputError(
                f"case {self.name}: options must return a mapping option name -> value, "
                f"got {short_repr(chosen)}"
            )
        return dict(chosen)

    def build(self, overrides: Mapping[str, Any] | None = None) -> tuple[System, dict[str, Any]]:
        from .system import System

        params = self.resolve(overrides)
        system = self.builder(params)
        if not isinstance(system, System):
            raise InputError(
                f"case {self.name}: builder must return a System, got {short_repr(system)}"
            )
        system.option_defaults = self.option_defaults(params)
        return system, params


def resolve_parameters(
    parameters: tuple[Parameter, ...], overrides: Mapping[str, Any], owner: str
) -> dict[str, Any]:
    """Defaults updated by `overrides` (strings are parsed), each checked against its range."""
    if not isinstance(overrides, Mapping):
        raise InputError(
            f"overrides for {owner} must be a mapping name -> value, got {short_repr(overrides)}"
        )
    params = {p.name: p.default for p in parameters}
    by_name = {p.name: p for p in parameters}
    for key, value in overrides.items():
        if not isinstance(key, str) or key not in by_name:
            known = ", ".join(by_name) or "none"
            raise InputError(f"unknown parameter {short_repr(key)} for {owner} (known: {known})")
        p = by_name[key]
        params[key] = p.parse(value) if isinstance(value, str) else p.check(value)
    for key in overrides:
        for other, allowed in by_name[key].applies.items():
            if params.get(other) not in allowed:
                raise InputError(
                    f"parameter {key} has no effect with {other}={params.get(other)}; drop it "
                    f"or set {other}={' or '.join(allowed)} ({owner})"
                )
    return params
