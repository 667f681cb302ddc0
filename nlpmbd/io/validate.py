"""What a result file must satisfy to be loaded: the metadata's schema, and arrays whose dtypes,
shapes and values a run can produce (io/schema.py). Each breach is one InputError line naming
the file and the key or array."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..validation import short_repr
from .schema import COUNTERS, GAP_KEYS, SCHEMA, SIZE_KEYS

#: Largest | |p| - 1 | of the Euler parameters of a run that renormalises them.
UNIT_NORM_TOL = 1e-6
#: Relative slack of the time axis against t_end and of t[k+1] - t[k] against h[k].
TIME_TOL = 1e-9
#: Relative slack of energy[:, 2] against energy[:, 0] + energy[:, 1] (one rounding: ~1e-16).
ENERGY_TOL = 1e-12
#: Arrays that are counts, times or norms (not lam: IPOPT may end a bound 1e-8 outside).
NON_NEGATIVE = (
    "eom_residual",
    "norm_residual",
    "eq_residual",
    "comp_residual",
    "iterations",
    "solve_time",
)
#: Arrays whose first row (t = 0, before any step) is 0 (io/schema.py).
ZERO_FIRST_ROW = ("lam", "lam_eq", "compliant_force")
#: Types of the top-level metadata a run writes (checked when present).
TYPES: dict[str, type] = {
    "case": str,
    "completed": bool,
    "command": str,
    "message": str,
    "codegen": str,
    "resumed": bool,
    "summary": dict,
    "versions": dict,
    "options": dict,
}


def _bad(d: Path, name: str, what: str, file: str = "meta.json") -> InputError:
    return InputError(f"{file} in {str(d)!r}: {name} {what}")


def _finite_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _names(meta: dict, key: str, d: Path) -> list[str]:
    value = meta.get(key, [])
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise _bad(d, key, "must list names (strings)")
    return value


def check_meta(meta: dict[str, Any], d: Path) -> None:
    """The metadata's schema: the keys loading, plotting and resuming rely on."""
    if "bodies" not in meta:
        raise _bad(d, "bodies", "is missing")
    for key in SIZE_KEYS.values():
        _names(meta, key, d)
    _check_gap_lists(meta, d)
    for key, kind in TYPES.items():
        if key in meta and not isinstance(meta[key], kind):
            raise _bad(d, key, f"must be a JSON {kind.__name__}, got {short_repr(meta[key])}")
    for key in COUNTERS:  # each present (older results lack the newer ones, io/schema.py)
        if key in meta and not (isinstance(meta[key], int) and not isinstance(meta[key], bool)):
            raise _bad(d, key, f"must be a count (an integer >= 0), got {short_repr(meta[key])}")
        if key in meta and meta[key] < 0:
            raise _bad(d, key, f"must be a count (an integer >= 0), got {meta[key]}")
    for key in ("wall_time", "setup_time"):
        if key in meta and not (_finite_number(meta[key]) and meta[key] >= 0):
            raise _bad(d, key, f"must be a finite time >= 0 s, got {short_repr(meta[key])}")
    gravity = meta.get("gravity", [0.0, 0.0, 0.0])
    if not (isinstance(gravity, list) and len(gravity) == 3 and all(map(_finite_number, gravity))):
        raise _bad(d, "gravity", f"must be 3 finite numbers (m/s^2), got {short_repr(gravity)}")
    _check_options(meta.get("options"), d)
    parameters = meta.get("parameters", {})
    if not isinstance(parameters, dict) or not all(
        isinstance(v, (str, bool)) or _finite_number(v) for v in parameters.values()
    ):
        raise _bad(d, "parameters", "must map names to numbers, true/false or text")
    _check_geometry(meta.get("joint_geometry", {}), meta.get("joints", []), d)
    warnings = meta.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise _bad(d, "warnings", "must list text lines")
    if "resume" in meta:
        _check_resume(meta["resume"], len(meta.get("compliant_labels", [])), d)


def _check_gap_lists(meta: dict[str, Any], d: Path) -> None:
    """The per-gap lists (schema GAP_KEYS): one entry per label; contact_scales may only be
    absent without contacts, the others (newer) only together."""
    for key, (size, kind) in GAP_KEYS.items():
        if key not in meta and key != "contact_scales":
            continue
        value, labels = meta.get(key, []), SIZE_KEYS[size].split("_")[0]
        if kind == "flag":
            ok, what = (lambda x: isinstance(x, bool)), "true/false"
        else:
            ok, what = (lambda x: _finite_number(x) and x >= 0), "clearance >= 0 (m)"
        if not (
            isinstance(value, list)
            and len(value) == len(meta.get(SIZE_KEYS[size], []))
            and all(map(ok, value))
        ):
            raise _bad(d, key, f"must give one {what} per {labels} label")
    if ("contact_soft" in meta) != ("compliant_scales" in meta):
        raise _bad(d, "contact_soft", "and compliant_scales must be both present or both absent")


def _check_geometry(geometry: Any, joints: list[str], d: Path) -> None:
    """Joint.describe() of the result's joints: plain numbers and names (model/joint.py)."""
    if not isinstance(geometry, dict) or not all(isinstance(g, dict) for g in geometry.values()):
        raise _bad(d, "joint_geometry", "must map joint names to JSON objects")
    for joint, values in geometry.items():
        if joint not in joints:
            raise _bad(d, "joint_geometry", f"names {short_repr(joint)}, not a joint of the run")
        for key, value in values.items():
            if not (isinstance(value, (str, bool)) or _finite_number(value)):
                raise _bad(
                    d,
                    f"joint_geometry.{joint}.{key}",
                    f"must be a finite number, true/false or text, got {short_repr(value)}",
                )


def _check_options(options: Any, d: Path) -> None:
    """Option groups as SimulationOptions.as_dict writes them; loading reads t_end and
    renormalize (the rest is checked when a run is resumed with them)."""
    if not isinstance(options, dict):
        raise _bad(d, "options", "must be a JSON object")
    for group, entries in options.items():
        if not isinstance(entries, dict):
            raise _bad(d, f"options.{group}", f"must be a JSON object, got {short_repr(entries)}")
    t_end = options.get("time", {}).get("t_end")
    if not (_finite_number(t_end) and t_end > 0):
        raise _bad(d, "options.time.t_end", f"must be a finite time > 0 s, got {short_repr(t_end)}")
    renormalize = options.get("scheme", {}).get("renormalize", True)
    if not isinstance(renormalize, bool):
        raise _bad(
            d, "options.scheme.renormalize", f"must be true or false, got {short_repr(renormalize)}"
        )


def _check_resume(state: Any, n_compliant: int, d: Path) -> None:
    """The checkpoint state of a partial result (run/checkpoint.py)."""
    if not isinstance(state, dict):
        raise _bad(d, "resume", "must be a JSON object")
    n = state.get("n_steps")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise _bad(d, "resume.n_steps", f"must be an integer >= 0, got {short_repr(n)}")
    h = state.get("h_next")
    if not (_finite_number(h) and h > 0):  # type: ignore[operator]
        raise _bad(d, "resume.h_next", f"must be a finite step size > 0 s, got {short_repr(h)}")
    counters = state.get("counters", {})
    if not isinstance(counters, dict) or not all(
        isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counters.values()
    ):
        raise _bad(d, "resume.counters", "must map names to integers >= 0")
    warm = state.get("warm")
    if warm is not None and (
        not isinstance(warm, dict)
        or not all(isinstance(a, list) and all(map(_finite_number, a)) for a in warm.values())
    ):
        raise _bad(d, "resume.warm", "must be null or map names to lists of finite numbers")
    speed = state.get("impact_speed", [0.0] * n_compliant)
    if not isinstance(speed, list) or len(speed) != n_compliant:
        raise _bad(d, "resume.impact_speed", f"must list {n_compliant} speeds (m/s)")
    if not all(_finite_number(s) and s >= 0 for s in speed):
        raise _bad(d, "resume.impact_speed", "must hold finite speeds >= 0 (m/s)")


def check_arrays(arrays: dict[str, np.ndarray], meta: dict[str, Any], d: Path) -> None:
    """Dtypes and shapes from the schema, and values a run can produce."""
    sizes = {k: len(meta.get(key, [])) for k, key in SIZE_KEYS.items()}
    n = arrays["h"].shape[0] if arrays["h"].ndim == 1 else -1
    for spec in SCHEMA:
        a = arrays[spec.name]
        if a.dtype != np.dtype(spec.dtype):
            raise _bad(d, spec.name, f"must be {spec.dtype}, got {a.dtype}", "result.npz")
        want = (spec.rows(n), *spec.trailing(sizes))
        if n < 0 or a.shape != want:
            raise _bad(d, spec.name, f"has shape {a.shape}, expected {want}", "result.npz")
        if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            raise _bad(d, spec.name, "must be finite (it holds NaN or inf)", "result.npz")
    _check_time(arrays["t"], arrays["h"], meta, d)
    if not np.all(np.isin(arrays["status"], (0, 1, 2, 3))):
        raise _bad(d, "status", "must hold integers in [0, 3]", "result.npz")
    _check_values(arrays, d)
    _check_euler(arrays, meta, d)


def _check_values(arrays: dict[str, np.ndarray], d: Path) -> None:
    """Signs, first rows and the energy balance that every run writes (io/schema.py)."""
    for name in NON_NEGATIVE:
        if np.any(arrays[name] < 0):
            raise _bad(d, name, "must be >= 0 (a count, time or norm)", "result.npz")
    for name in ZERO_FIRST_ROW:
        if np.any(arrays[name][0] != 0):
            raise _bad(d, name, "must be 0 in its first row (t = 0)", "result.npz")
    kinetic, potential, total = arrays["energy"].T
    scale = np.maximum(1.0, np.abs(kinetic) + np.abs(potential))
    if np.any(kinetic < -ENERGY_TOL * scale) or np.any(
        np.abs(kinetic + potential - total) > ENERGY_TOL * scale
    ):
        raise _bad(
            d,
            "energy",
            "must hold kinetic (>= 0), potential and total = kinetic + potential (J)",
            "result.npz",
        )


def _check_time(t: np.ndarray, h: np.ndarray, meta: dict[str, Any], d: Path) -> None:
    if t[0] != 0.0:
        raise _bad(d, "t", f"must start at 0 s, got {t[0]!r}", "result.npz")
    if np.any(h <= 0) or np.any(np.abs(np.diff(t) - h) > TIME_TOL * np.maximum(1.0, t[1:])):
        raise _bad(d, "h", "must be > 0 with t[k+1] - t[k] = h[k]", "result.npz")
    t_end = meta["options"].get("time", {}).get("t_end")
    if _finite_number(t_end) and t[-1] > t_end * (1 + TIME_TOL):
        raise _bad(d, "t", f"runs to {t[-1]!r} s, past t_end = {t_end!r} s", "result.npz")


def _check_euler(arrays: dict[str, np.ndarray], meta: dict[str, Any], d: Path) -> None:
    """|p| = 1 for a run that renormalises; otherwise |p^T p - 1| within the drift recorded."""
    q = arrays["q"]
    p = q.reshape(q.shape[0], -1, 7)[:, :, 3:]
    drift = np.max(np.abs(np.sum(p * p, axis=2) - 1.0), axis=1, initial=0.0)
    renormalize = meta["options"].get("scheme", {}).get("renormalize", True)
    allowed = np.full(drift.shape, UNIT_NORM_TOL)
    if renormalize is False:
        allowed[1:] += np.maximum.accumulate(arrays["norm_residual"]) * 2 + TIME_TOL
    if np.any(drift > allowed):
        k = int(np.argmax(drift - allowed))
        raise _bad(
            d,
            "q",
            f"holds Euler parameters with |p'p - 1| = {drift[k]:.3g} at row {k}: not unit length",
            "result.npz",
        )
