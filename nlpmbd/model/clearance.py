"""Numbers about gaps that every layer needs: the clearance a gap closes, and penetration as a
fraction of it. Written once for NumPy arrays and CasADi expressions alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import casadi as ca
import numpy as np

#: Stand-in clearance (m) when no gap has one (e.g. plane contacts): it sets the projection's
#: penetration tolerance to 1e-4 of it, 1e-9 m.
DEFAULT_CLEARANCE = 1e-5


def smallest_clearance(scales: Sequence[float]) -> float:
    """The smallest clearance among the gaps (m), DEFAULT_CLEARANCE when none has one."""
    positive = [float(c) for c in scales if c > 0]
    return min(positive) if positive else DEFAULT_CLEARANCE


def gap_fractions(phi: Any, scales: Sequence[float] | np.ndarray) -> Any:
    """Phi_j / c_j for the gaps that close a clearance c_j > 0, and 0 for the others.
    `phi` is a NumPy array (gaps in its last axis) or a CasADi column."""
    c = np.asarray(scales, dtype=float)
    safe = np.where(c > 0, c, 1.0)
    if isinstance(phi, np.ndarray):
        return np.where(c > 0, phi / safe, 0.0)
    return ca.if_else(ca.DM(c > 0), phi / ca.DM(safe), 0)
