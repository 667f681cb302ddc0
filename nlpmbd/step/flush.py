"""Tiny numbers out of a step's parameters (NLPStep.parameters)."""

from __future__ import annotations

import numpy as np

#: Numbers below this magnitude in a step's parameters P (NLPStep.parameters) are set to zero.
#: Components that the constraints drive to zero (e.g. the out-of-axis Euler parameters of a
#: body on a revolute joint) decay geometrically from step to step and reach the subnormal
#: range (< 2.2e-308) after some tens of steps; the NLP's Jacobian then holds subnormal entries,
#: on which the scaling of IPOPT's linear solver breaks (the same step solves in one iteration
#: with MUMPS's scaling off, or with those numbers zero, or with them raised to 1e-250): the
#: line search rejects the Newton step and the step ends in Restoration_Failed or
#: Maximum_Iterations (issue 14, a spinning prismatic guide without the predictor). 1e-100 is
#: far below anything a state in SI units resolves (the smallest nonzero state component of the
#: regression runs is 1e-41) and far enough above the subnormal range that the products of two
#: or three such components in the derivatives stay normal numbers.
FLUSH_BELOW = 1e-100


def flushed(a: np.ndarray) -> np.ndarray:
    """`a` with its nonzero entries of magnitude below FLUSH_BELOW set to 0 (`a` itself, not a
    copy, when there are none: then the step is bit for bit the one without the flush)."""
    size = np.abs(a)
    tiny = (size < FLUSH_BELOW) & (size > 0)
    return np.where(tiny, 0.0, a) if tiny.any() else a
