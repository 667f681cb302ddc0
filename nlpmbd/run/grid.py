"""Where the steps fall: bounds of the next step so that the run lands exactly on t_end, and the
fixed-h sizes generated as they are needed."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import casadi as ca
import numpy as np


def step_bounds(remaining: float, h_min: float, h_max: float) -> tuple[float, float]:
    """Bounds [h_lo, h_hi] of the next step so that the run lands exactly on t_end.

    A step much shorter than h_min must never happen: the linearised constraints
    c(qm) + h C_v(qm) v = 0 [eqs. 23-24] correct the O(h^2) drift of c(qm) through a velocity of
    size c(qm) / h, so a sliver step would inject a large velocity. Hence when less than
    h_max + h_min is left, the remainder is split into two equal steps (each >= h_max / 2).
    """
    if remaining <= h_max * (1 + 1e-9):
        return remaining, remaining
    if remaining < h_max + h_min:
        return remaining / 2, remaining / 2
    return h_min, h_max


def step_size(remaining: Any, h_min: Any, h_max: Any) -> tuple[Any, Any]:
    """(h_hi, landing) of `step_bounds` as CasADi expressions, for the chunks' graphs: the same
    operations in the same order, so a chunk lands on t_end exactly as the Python loop does;
    landing is 1 when h_lo == h_hi (the step's size is fixed)."""
    first = remaining <= h_max * (1 + 1e-9)
    second = remaining < h_max + h_min
    h = ca.if_else(first, remaining, ca.if_else(second, remaining / 2, h_max))
    return h, ca.logic_or(first, second)


def end_tolerance(h_min: float) -> float:
    """The run ends when less than this is left (no sliver of a last step from round-off)."""
    return 1e-6 * h_min


def fixed_step_sizes(t0: float, t_end: float, h: float) -> Iterator[float]:
    """The step sizes the stepping loop takes from t0 to t_end at a fixed step h (step_bounds,
    with t accumulated in the same floating-point order), generated as they are needed: a list
    of a long run's steps would take memory and time before the first step."""
    t, eps = t0, end_tolerance(h)
    while t < t_end - eps:
        step = step_bounds(t_end - t, h, h)[1]
        yield step
        t = t + step


def next_sizes(t: float, t_end: float, h: float, n: int) -> np.ndarray:
    """The next (at most) n fixed step sizes from time t."""
    return np.fromiter(itertools.islice(fixed_step_sizes(t, t_end, h), n), dtype=float)
