"""Dependent equalities (an overconstrained mechanism: Bricard's, IFToMM A04), found once at the
assembled configuration, and the compliance their rows then take on both paths.

Bricard's six revolute joints write 30 equations on 30 velocities and leave one freedom: their
Jacobian Phi_eq,v has rank 29 on the mechanism's path. A step's start lies off that path by
the drift of the steps before (1e-9 m), where the Jacobian has full rank again, its smallest
singular value ~2e-11 of the largest: the linearised equalities then fix all 30 velocities,
the free motion's too, as their inconsistency (~3e-10 m/s) over that singular value, 8 to 80
m/s where the mechanism moves at 2 m/s, with multipliers of 1e7 N and more. DAQP (the QP path)
returns no force at all at the first step (EoM residual 8e3 N); IPOPT (the NLP path) follows
the multipliers up until its test, scaled by their size, passes a point whose EoM residual
misses the kernel's bound (step 16 of the first-order step: 3.7e-6 N against 2.6e-7 N).

The cure is game engines' constraint force mixing: every equality row of such a system gets
the compliance rho (a dual regularisation), its force lambda = s / (rho h) for a row residual
s (m/s), so that the dependent direction takes the least-squares velocity and the smallest
force. rho is EPS of the largest eigenvalue of Phi_eq,v M^-1 Phi_eq,v^T: far above its
dependent eigenvalue (~1e-21 of it) and far below the others (1e-4 of it and more for
Bricard's; the cases' smallest is 2e-7 of it, andrews'): a joint yields rho h^2 lambda, 4e-12
m at 30 N and h = 1e-3 s (the acceptance test allows 1e-9 m). A system whose equalities are
independent has rho = 0: its rows are as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Singular-value ratio of Phi_eq,v M^-1/2 below which the equalities count as dependent: the
#: cases have 5e-4 (andrews) to 4e-2 (pendulum) at their start, Bricard's default closing 4e-3,
#: its six revolute joints 0 (round-off) as built and 1e-8 when assembled only to 1e-6 m (the
#: run's assembly tolerance, run/limits.py).
RANK_TOL = 1e-6
#: rho in units of the largest eigenvalue of Phi_eq,v M^-1 Phi_eq,v^T (1/kg).
EPS = 1e-10


def equality_regularisation(model: Any, q0: np.ndarray, t0: float = 0.0) -> float:
    """rho (1/kg): the compliance of the equality rows when their Jacobian at (q0, t0) is rank
    deficient (more equalities than velocities, or a singular value ratio below RANK_TOL), else
    0."""
    if model.n_eq == 0:
        return 0.0
    J = np.asarray(model.Phi_eq_v(q0, t0), dtype=float)
    dual = np.linalg.eigvalsh(J @ np.asarray(model.M_inv, dtype=float) @ J.T)
    largest = float(dual[-1])
    if largest <= 0.0:
        return 0.0
    dependent = model.n_eq > model.n_v or float(dual[0]) < RANK_TOL**2 * largest
    return EPS * largest if dependent else 0.0
