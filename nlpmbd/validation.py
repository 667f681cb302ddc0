"""Small checks shared by every public constructor; each raises InputError with one line."""

from __future__ import annotations

import math

import numpy as np

from .errors import InputError

#: A vector shorter than this (Euclidean norm) is taken as zero, e.g. for an axis.
ZERO_LENGTH = 1e-12


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
        raise InputError(f"{name} must be a number, got {short_repr(value)}")
    try:
        x = float(value)
    except OverflowError:  # an int beyond the float range
        raise InputError(f"{name} must be finite, got an integer beyond the float range") from None
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


#: Largest length or coordinate (m) of a model's geometry: 1 km is far beyond any mechanism,
#: and below it the squares of lengths in the gap functions neither overflow nor bury clearances
#: of a micrometre in rounding error (1e300 m overflowed, 1e300 m lengths gave infinite bounds).
MAX_LENGTH = 1e3


def distance(name: str, value: object, *, low: float = 0.0, low_open: bool = True) -> float:
    """A length (m): finite, in (low, MAX_LENGTH] ([low, ...] unless low_open)."""
    return finite_scalar(name, value, low=low, high=MAX_LENGTH, low_open=low_open)


def location(name: str, value: object) -> np.ndarray:
    """A point (m) as a 3-vector whose coordinates are within +-MAX_LENGTH."""
    a = finite_array(name, value, (3,))
    if float(np.max(np.abs(a))) > MAX_LENGTH:
        raise InputError(
            f"{name} must have coordinates in [-{MAX_LENGTH:g}, {MAX_LENGTH:g}] m, got {a.tolist()}"
        )
    return a


def short_repr(value: object, limit: int = 80) -> str:
    """repr(value) cut to one line of at most `limit` characters."""
    try:
        text = " ".join(repr(value).split())
    except Exception:  # e.g. an int of more than 4300 digits, or a broken __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def numeric_array(value: object, bad: InputError) -> np.ndarray:
    """`value` as a float array, or raise `bad`: booleans, complex numbers, times, text and
    ragged nesting are rejected, not converted."""
    try:
        raw = np.asarray(value)
        if raw.dtype.kind in "bcmMSUV":  # bool, complex, times, text, bytes: not numbers
            raise bad
        return raw.astype(float)
    except (TypeError, ValueError, OverflowError):
        raise bad from None


def error_reason(err: BaseException) -> str:
    """The last line of an exception's message (or its type): for one-line InputErrors that
    report what a user's function or a file reader raised."""
    lines = str(err).strip().splitlines()
    return lines[-1] if lines else type(err).__name__


def finite_array(name: str, value: object, shape: tuple[int, ...]) -> np.ndarray:
    """Return `value` as a float array of the given shape with finite entries.

    Booleans, complex numbers, text and ragged nesting are rejected, not converted.
    """
    bad = InputError(f"{name} must be numeric with shape {shape}, got {short_repr(value)}")
    a = numeric_array(value, bad)
    if a.shape != shape:
        raise InputError(f"{name} must have shape {shape}, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InputError(f"{name} must be finite, got {a.tolist()}")
    return a


def vector_norm(a: np.ndarray) -> float:
    """Euclidean norm of a finite vector without overflow or underflow (entries up to 1e308)."""
    scale = float(np.max(np.abs(a))) if a.size else 0.0
    if scale == 0.0:
        return 0.0
    if 1e-150 < scale < 1e150:  # the plain norm neither overflows nor underflows
        return float(np.linalg.norm(a))
    return scale * float(np.linalg.norm(a / scale))


def unit_vector(name: str, value: object) -> np.ndarray:
    """Return a normalised copy of a 3-vector of length >= ZERO_LENGTH."""
    a = finite_array(name, value, (3,))
    if vector_norm(a) < ZERO_LENGTH:
        raise InputError(
            f"{name} must be a non-zero 3-vector (length >= {ZERO_LENGTH:g}), got {a.tolist()}"
        )
    scale = float(np.max(np.abs(a)))
    if not 1e-150 < scale < 1e150:  # the plain norm could overflow or underflow
        a = a / scale
    return a / np.linalg.norm(a)


def name_string(name: str, value: object) -> str:
    """A name for labels and messages: non-empty text on one line (printable characters)."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name} must be a non-empty string, got {short_repr(value)}")
    if not value.isprintable():
        raise InputError(
            f"{name} must be printable text on one line (no line breaks or control "
            f"characters), got {short_repr(value)}"
        )
    return value
