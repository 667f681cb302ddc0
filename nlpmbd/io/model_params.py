"""A model file's [parameters] table and the `$name` references to it (io/model_file.py).

Each key of [parameters] declares one parameter as a built-in case does (model/case.py
`Parameter`): an inline table with `default` and `description` (both required), `type`
("float", "int", "bool" or "str"; default: that of `default`, numbers float), `low`, `high`,
`low_open`, `choices` (str) and `unit`. `--set NAME=VALUE`, `--compare NAME=VALUE` and a
study's `RunSpec(label, "model.toml", {NAME: VALUE})` set them, checked against their range.

In a file with [parameters], every string value of [model] gravity, [[bodies]],
[[flexible_bodies]], [[joints]], [[loads]] and [materials] but a `name` is a template (the
standard library's `string.Template`): `$name` or `${name}` is a parameter, `$$` a literal `$`.
A string that is one reference alone is the parameter's value (of its type: `ends_on =
"$side"`, `mass = "$mass"`); any other string with references is arithmetic of the expression
language (io/expressions.py), the values written in (`hole_radius = "$pin_radius +
$clearance"`): without a variable it is evaluated to a number, with one (t, a body's state) it
stays an expression (`value = [0, 0, "$amp * sin(t)"]`). A reference to an undeclared name is
an error, and so is setting a parameter referenced nowhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from string import Template
from typing import Any

from ..errors import InputError
from ..model.case import Case, Parameter
from ..validation import short_repr
from .expressions import BODY_STATE, parse_expression
from .model_schema import Where, check_keys, string, table

#: The keys of one parameter's table.
PARAMETER_KEYS = ("default", "description", "type", "low", "high", "low_open", "choices", "unit")
#: What each key of a parameter's table holds (the model-file reference, docs/generate.py).
PARAMETER_DOCS = {
    "default": "required: its value unless set",
    "description": "required: what it is (shown with its range in errors)",
    "type": '`"float"`, `"int"`, `"bool"` or `"str"` (default: that of `default`, numbers float)',
    "low": "smallest value of a number (default: no bound)",
    "high": "largest value of a number (default: no bound)",
    "low_open": "`true`: `low` itself is excluded (default `false`)",
    "choices": "the values a `str` parameter may take (default: any text)",
    "unit": 'its unit, e.g. `"m"`',
}
#: The `type` names of a parameter.
TYPES: dict[str, type] = {"float": float, "int": int, "bool": bool, "str": str}
#: The sections whose string values are templates (gravity alone of [model]).
TEMPLATED = ("bodies", "flexible_bodies", "joints", "loads", "materials")


def read_parameters(value: object, where: Where) -> tuple[Parameter, ...]:
    """The [parameters] table as Parameters (InputError at the first bad key)."""
    declared = []
    for name, entry in table(value, where).items():
        at = where.key(name)
        spec = table(entry, at)
        check_keys(spec, at, PARAMETER_KEYS, ("default", "description"))
        for key in ("description", "unit"):
            if key in spec:
                string(spec[key], at.key(key))
        if not isinstance(spec.get("low_open", False), bool):
            raise at.key("low_open").error(
                f"must be true or false, got {short_repr(spec['low_open'])}"
            )
        kind = _kind(spec, at)
        for key in ("low", "high", "low_open"):
            if key in spec and kind not in (float, int):
                raise at.key(key).error(
                    f"applies to a number parameter; this one is {kind.__name__} (its type, or "
                    f"that of its default {short_repr(spec['default'])})"
                )
        keywords: dict[str, Any] = {
            k: spec[k] for k in ("low", "high", "low_open", "unit") if k in spec
        }
        if "choices" in spec:
            choices = spec["choices"]
            if not isinstance(choices, list):
                raise at.key("choices").error(
                    f"must be a list of strings, got {short_repr(choices)}"
                )
            keywords["choices"] = tuple(choices)
        default = float(spec["default"]) if _widened(kind, spec["default"]) else spec["default"]
        try:
            declared.append(Parameter(name, default, spec["description"], kind, **keywords))
        except (InputError, TypeError) as err:
            raise at.error(str(err).removeprefix(f"parameter {name} ")) from None
    return tuple(declared)


def _kind(spec: Mapping[str, Any], where: Where) -> type:
    if "type" in spec:
        name = spec["type"]
        if not isinstance(name, str) or name not in TYPES:
            raise where.key("type").error(
                f"must be one of {', '.join(TYPES)}, got {short_repr(name)}"
            )
        return TYPES[name]
    default = spec["default"]
    if isinstance(default, bool):
        return bool
    return str if isinstance(default, str) else float


def _widened(kind: type, value: object) -> bool:
    """A TOML integer given as the default of a float parameter (`default = 1`)."""
    return kind is float and isinstance(value, int) and not isinstance(value, bool)


def substitute(
    document: Mapping[str, Any], params: Mapping[str, Any], where: Where
) -> tuple[dict[str, Any], set[str]]:
    """The document with its references replaced by `params`, and the names referenced."""
    used: set[str] = set()
    out = dict(document)
    for section in TEMPLATED:
        if section in document:
            out[section] = _walk(document[section], params, where.key(section), used)
    model = document.get("model")
    if isinstance(model, Mapping) and "gravity" in model:
        at = where.key("model").key("gravity")
        out["model"] = {**model, "gravity": _walk(model["gravity"], params, at, used)}
    return out, used


def _walk(value: Any, params: Mapping[str, Any], where: Where, used: set[str]) -> Any:
    if isinstance(value, str):
        return _resolve(value, params, where, used)
    if isinstance(value, list):
        return [_walk(v, params, where.item(i), used) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {
            k: v if k == "name" else _walk(v, params, where.key(k), used) for k, v in value.items()
        }
    return value


def _resolve(text: str, params: Mapping[str, Any], where: Where, used: set[str]) -> Any:
    """One string value with its references replaced (see the module docstring)."""
    template = Template(text)
    if not template.is_valid():
        raise where.error(
            f"{short_repr(text)}: '$' must begin a parameter reference ($name or ${{name}}) "
            "or be written '$$'"
        )
    names = template.get_identifiers()
    unknown = [n for n in names if n not in params]
    if unknown:
        known = ", ".join(params) or "none"
        raise where.error(f"unknown parameter ${unknown[0]} (parameters: {known})")
    used.update(names)
    if not names:
        return template.substitute({})
    if text.strip() in (f"${names[0]}", f"${{{names[0]}}}"):
        return params[names[0]]
    if any(isinstance(params[n], str) for n in names):
        return template.substitute({n: params[n] for n in names})
    filled = template.substitute({n: f"({float(params[n])!r})" for n in names})
    expression = parse_expression(filled, str(where), BODY_STATE)
    return filled if expression.variables else float(expression({}))


@dataclass(frozen=True)
class ModelCase(Case):
    """The Case of a model file: its parameter errors name the file and [parameters] key."""

    file: str = ""
    #: parameters referenced nowhere (e.g. a template's joint swapped for another): setting one
    #: would change nothing, so it is an error, as for a built-in case's inapplicable parameter
    unused: tuple[str, ...] = ()

    def resolve(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        where = Where(self.file, "parameters")
        for name in overrides or {}:
            if name in self.unused:
                raise where.key(name).error(
                    f'has no effect: the model references it nowhere (write "${name}" where '
                    "its value goes)"
                )
        try:
            return super().resolve(overrides)
        except InputError as err:
            message = str(err)
        for p in self.parameters:
            prefix = f"parameter {p.name} "
            if message.startswith(prefix):
                raise where.key(p.name).error(message.removeprefix(prefix))
        raise where.error(message.replace(f" for case {self.name}", ""))
