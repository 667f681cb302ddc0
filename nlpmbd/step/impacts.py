"""Which contacts obey Newton's impact law in a step (HardContact restitution e > 0).

A contact j in the impact set gets the velocity-level row of Newton's law beside its gap row,

    Phi_v,j v <= -e_j Phi_v,j vm        (leave at e times the approach speed),

and the kinetic energy then changes by -sum_j Lambda_j (1 - e_j) u_j / 2 over the step's impulses
Lambda_j, with u_j = Phi_v,j vm the approach speed before the step: nothing for e = 1, whatever
the number of contacts that act at once (the Moreau-Jean argument). The set holds every contact
that is closed at the step's start (Phi_j >= -closed_tol_j) or closes within the step at its own
approach speed (Phi_j + h u_j >= 0).

An open contact outside the set can still be driven into its wall by another contact's impulse
in the same step (an induced impact): its gap row would then stop it dead, an inelastic impact
whatever e says (a tilted cube with e = 1 lost 21% of its energy that way). Such a contact is
released instead: the step is solved again without its gap row, as Moreau-Jean leaves open
contacts unconstrained. It penetrates by at most h times its speed, is then closed and
approaching, and the next step applies Newton's law to it; the projection (step/projection.py)
moves the positions back onto the gap without touching the velocities.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

#: A contact counts as closed when its gap is within this fraction of its clearance (or within
#: CLOSED_ABS metres where it has none): the gap row leaves a resting contact at ~0.
CLOSED_REL = 1e-3
CLOSED_ABS = 1e-9
#: A gap row pushes when its force exceeds this fraction of the step's largest force (or of
#: 1 N): an interior-point solver leaves ~1e-10 N on rows that are not active.
PUSH_REL = 1e-6

# Both functions are written with CasADi operations so that the NLP path (NumPy in, DM out)
# and the QP path's compiled graph (MX) use the same rule; 1 is true, 0 false.


def impact_set(phi: Any, rate: Any, h: Any, restitution: np.ndarray, scales: np.ndarray) -> Any:
    """1 for the contacts that obey Newton's law in a step of size h, from the gaps phi (m,
    > 0 penetration) and approach speeds rate = Phi_v vm (m/s) at its start."""
    closed_tol = np.where(scales > 0, CLOSED_REL * scales, CLOSED_ABS)
    closed = phi >= -ca.DM(closed_tol)
    closing = ca.logic_and(rate > 0, phi + h * rate >= 0)
    return ca.logic_and(ca.DM(restitution) > 0, ca.logic_or(closed, closing))


def induced(lam: Any, hit: Any, released: Any, restitution: np.ndarray) -> Any:
    """1 for the contacts outside the impact set, not released yet, whose gap row pushed in the
    solved step (lam_j > PUSH_REL of the largest force): an impact the step would treat as
    inelastic."""
    floor = PUSH_REL * ca.fmax(1.0, ca.mmax(ca.fabs(lam)))
    free = ca.logic_and(ca.logic_not(hit), ca.logic_not(released))
    return ca.logic_and(ca.logic_and(ca.DM(restitution) > 0, free), lam > floor)
