"""Small checks shared by every public constructor; each raises InputError with one line."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .errors import InputError


def finite_scalar(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
) -> float:
    """Return `value` as a float, checking finiteness and the range [low, high] (or (low, high])."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{name} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise InputError(f"{name} must be finite, got {x}")
    if low is not None and (x < low or (low_open and x == low)):
        bracket = "(" if low_open else "["
        hi = "inf)" if high is None else f"{high}]"
        raise InputError(f"{name} must be in {bracket}{low}, {hi}, got {x}")
    if high is not None and x > high:
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low}"
        raise InputError(f"{name} must be in {lo}, {high}], got {x}")
    return x


def finite_array(name: str, value: object, shape: tuple[int, ...]) -> np.ndarray:
    """Return `value` as a float array of the given shape with finite entries."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numeric with shape {shape}, got {value!r}") from None
    if a.shape != shape:
        raise InputError(f"{name} must have shape {shape}, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InputError(f"{name} must be finite, got {a.tolist()}")
    return a


def unit_vector(name: str, value: Sequence[float] | np.ndarray) -> np.ndarray:
    """Return a normalised copy of a non-zero 3-vector."""
    a = finite_array(name, value, (3,))
    n = float(np.linalg.norm(a))
    if n < 1e-12:
        raise InputError(f"{name} must be a non-zero 3-vector, got {a.tolist()}")
    return a / n


def name_string(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name} must be a non-empty string, got {value!r}")
    return value
