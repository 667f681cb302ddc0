"""IPOPT options: the step NLP's own (STEP_BASE, STEP_WARM), and those given by the user,
checked against IPOPT's own registry before anything runs.

IPOPT documents every option it knows (name, integer/real/string, range, valid values) when
asked with `print_options_documentation`; `registry` reads that once per process, from the
IPOPT that CasADi loads, so the check follows the installed version. A value the registry
allows but this build cannot use (linear_solver=ma57 without the HSL library) is caught by one
trial solve of a one-variable problem with the user's options.
"""

from __future__ import annotations

import functools
import math
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..validation import short_repr

#: In every IPOPT solve nlpmbd creates: read no options file. IPOPT otherwise reads ipopt.opt
#: in the working directory, whose options bypass check_ipopt_options (its output_file writes
#: a log anywhere); IPOPT documents an empty option_file_name as "disables reading".
NO_OPTIONS_FILE = {"ipopt.option_file_name": ""}
#: Options of every IPOPT solve of the step NLP (step/nlp.py); the user's `ipopt` options are
#: applied on top.
STEP_BASE = {
    "print_time": False,
    "error_on_fail": False,
    "ipopt.print_level": 0,
    "ipopt.sb": "yes",
    "ipopt.mu_strategy": "adaptive",
    "ipopt.max_iter": 300,
    # IPOPT relaxes bounds by 1e-8 by default, which lets Phi_lin sit ~1e-10 m inside the
    # obstacle and spoils complementarity (2e-8 -> 1e-11 N m); no iteration cost.
    "ipopt.bound_relax_factor": 0.0,
}
#: A warm start keeps the previous point's multipliers and slacks (no push off the bounds).
STEP_WARM = {
    "ipopt.warm_start_init_point": "yes",
    "ipopt.warm_start_bound_push": 1e-9,
    "ipopt.warm_start_bound_frac": 1e-9,
    "ipopt.warm_start_slack_bound_push": 1e-9,
    "ipopt.warm_start_slack_bound_frac": 1e-9,
    "ipopt.warm_start_mult_bound_push": 1e-9,
}
#: IPOPT stores integer options as C ints.
INT_RANGE = (-(2**31), 2**31 - 1)


@dataclass(frozen=True)
class IpoptOption:
    name: str
    kind: str  # "integer", "real" or "string"
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    values: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == "string":
            return "one of " + ", ".join(self.values)
        low, high = self.low, self.high
        if self.kind == "integer":
            low, high = max(low, INT_RANGE[0]), min(high, INT_RANGE[1])
        left = "(" if self.low_open or low == -math.inf else "["
        right = ")" if self.high_open or high == math.inf else "]"
        what = "an integer" if self.kind == "integer" else "a number"
        return f"{what} in {left}{low:.15g}, {high:.15g}{right}"


def _number(text: str) -> float:
    """A number of IPOPT's documentation: 1.5, 10<sup>-08</sup>, 2.5*10<sup>+20</sup>."""
    m = re.fullmatch(r"([-+]?[\d.]+)?(?:\s*\*?\s*10<sup>([-+]?\d+)</sup>)?", text.strip())
    if not m or not (m.group(1) or m.group(2)):
        raise ValueError(text)
    mantissa = m.group(1)
    if m.group(2) is None:
        return float(mantissa)
    scale = 10.0 ** int(m.group(2))
    return (float(mantissa) if mantissa not in (None, "", "-", "+") else 1.0) * (
        -scale if mantissa == "-" else scale
    )


_RANGE = re.compile(r"The valid range for this (integer|real) option is (.+?) and its default")
_BOUND = re.compile(r"^(?:(.+?)\s*(<|&le;)\s*)?(\w+)(?:\s*(<|&le;)\s*(.+))?$")


def _parse(text: str) -> dict[str, IpoptOption]:
    """The options of IPOPT's doxygen-mode documentation."""
    out: dict[str, IpoptOption] = {}
    for block in text.split("\\anchor OPT_")[1:]:
        name = block.split("\n", 1)[0].strip()
        m = _RANGE.search(block)
        if m:
            kind, rng = m.group(1), m.group(2).strip()
            spec = IpoptOption(name, kind)
            b = _BOUND.match(rng)
            if rng != "unrestricted" and b:
                spec = IpoptOption(
                    name,
                    kind,
                    low=_number(b.group(1)) if b.group(1) else -math.inf,
                    high=_number(b.group(5)) if b.group(5) else math.inf,
                    low_open=b.group(2) == "<",
                    high_open=b.group(4) == "<",
                )
            out[name] = spec
        elif "string option" in block:
            values = tuple(re.findall(r"^ - ([^:\s]+):", block, flags=re.M))
            out[name] = IpoptOption(name, "string", values=values)
    return out


def _trial(options: Mapping[str, Any], output_file: str | None = None) -> str:
    """The return status of a one-variable problem solved with these IPOPT options."""
    import casadi as ca  # on first use: `nlpmbd --help` does not load CasADi

    x = ca.SX.sym("x")
    opts = {f"ipopt.{k}": v for k, v in options.items()}
    opts.update({"print_time": False, "error_on_fail": False, "ipopt.sb": "yes"})
    opts.update(NO_OPTIONS_FILE)
    if output_file is not None:
        opts.update(
            {
                "ipopt.print_options_documentation": "yes",
                "ipopt.print_options_mode": "doxygen",
                "ipopt.print_advanced_options": "yes",
                "ipopt.output_file": output_file,
                "ipopt.file_print_level": 3,
                "ipopt.print_level": 0,
                "ipopt.max_iter": 0,
            }
        )
    else:
        opts.setdefault("ipopt.print_level", 0)
    solver = ca.nlpsol("ipopt_check", "ipopt", {"x": x, "f": x**2}, opts)
    solver(x0=1.0)
    return str(solver.stats().get("return_status", ""))


@functools.lru_cache(maxsize=1)
def registry() -> dict[str, IpoptOption]:
    """Every option of the installed IPOPT (about 300), read from its documentation."""
    with tempfile.TemporaryDirectory(prefix="nlpmbd-ipopt-") as d:
        path = os.path.join(d, "options.txt")
        _trial({}, output_file=path)
        with open(path) as fh:
            return _parse(fh.read())


def _value(spec: IpoptOption, value: Any) -> Any:
    """The value converted to the option's type (text from the command line too), or
    InputError naming the option and what it takes."""
    bad = InputError(f"ipopt {spec.name} must be {spec.describe()}, got {short_repr(value)}")
    if spec.kind == "string":
        if not isinstance(value, str) or (spec.values and value not in spec.values):
            raise bad
        return value
    if isinstance(value, bool):
        raise bad
    try:
        if spec.kind == "integer":
            x: float = int(value) if isinstance(value, str) else value
            if not isinstance(x, int):
                raise bad
            lo, hi = max(spec.low, INT_RANGE[0]), min(spec.high, INT_RANGE[1])
        else:
            x = float(value)
            lo, hi = spec.low, spec.high
    except (ValueError, TypeError, OverflowError):
        raise bad from None
    if not math.isfinite(x) or x < lo or x > hi:
        raise bad
    if (spec.low_open and x == spec.low) or (spec.high_open and x == spec.high):
        raise bad
    return x


def check_ipopt_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options with values of IPOPT's types (InputError naming an unknown, mistyped,
    out-of-range or unusable option)."""
    if not isinstance(options, Mapping):
        raise InputError(f"ipopt must be a dict of IPOPT options, got {short_repr(options)}")
    if not options:
        return {}
    known = registry()
    out = {}
    for key, value in options.items():
        if not isinstance(key, str) or key not in known:
            raise InputError(f"ipopt option {short_repr(key)} is unknown to IPOPT")
        out[key] = _value(known[key], value)
    if _trial(out) == "Invalid_Option":
        for key, value in out.items():
            if _trial({key: value}) == "Invalid_Option":
                raise InputError(
                    f"ipopt {key}={short_repr(value)} is not usable with this IPOPT build"
                )
    return out
