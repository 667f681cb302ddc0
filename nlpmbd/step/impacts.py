"""Which contacts obey Newton's impact law in a step (HardContact restitution e > 0).

A contact j in the impact set gets the velocity-level row of Newton's law beside its gap row,

    Phi_v,j v <= -e_j Phi_v,j vm        (leave at e times the approach speed),

and the kinetic energy then changes by -sum_j Lambda_j (1 - e_j) u_j / 2 over the step's impulses
Lambda_j, with u_j = Phi_v,j vm the approach speed before the step: nothing for e = 1, whatever
the number of contacts that act at once (the Moreau-Jean argument). The set holds every contact
that is closed at the step's start (Phi_j >= -closed_tol_j) or closes within the step at its own
approach speed (Phi_j + h u_j >= 0) or at its free-motion one (Phi_j + h uf_j >= 0, uf_j =
Phi_v,j v_free with v_free = vm + h M^-1 f the velocity of the smooth forces alone). Without the
latter a contact that gravity closes within the step (a ball's low bounces near its Zeno point)
was taken for an induced impact below: released, projected back up without losing its speed,
it gained m g (Phi + h uf) per bounce and the ball chattered at O(g h^2) for ever.

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
#: Solves of a step again without the gap rows of its induced impacts, the same on both paths
#: (the NLP's loop, the QP's switches): a step with induced impacts left after them fails its
#: checks, and the next solver (the QP's NLP fallback) or rung of the retry ladder takes it.
RELEASE_ROUNDS = 1
#: A gap row pushes when its force exceeds this fraction of the step's largest force (or of
#: 1 N): an interior-point solver leaves ~1e-10 N on rows that are not active.
PUSH_REL = 1e-6

# Both functions are written with CasADi operations so that the NLP path (NumPy in, DM out)
# and the QP path's compiled graph (MX) use the same rule; 1 is true, 0 false.


def impact_set(kernel: Any, t: Any, q: Any, v: Any, h: Any, applied: Any = None) -> Any:
    """1 for the contacts that obey Newton's law in a step of size h from (t, q, v): from the
    gaps phi (m, > 0 penetration), approach speeds rate = Phi_v v (m/s) at its start and
    rate_free = Phi_v v_free at its end under the smooth forces alone (`applied`: compliant
    contacts' forces, if any)."""
    m, scales = kernel.model, kernel.scales
    phi, Phi_v = m.Phi(q), m.Phi_v(q)
    rate = Phi_v @ v
    rate_free = Phi_v @ free_velocity(m, kernel.kick * h, t, q, v, applied)
    closed_tol = np.where(scales > 0, CLOSED_REL * scales, CLOSED_ABS)
    closed = phi >= -ca.DM(closed_tol)
    closing = ca.logic_and(rate > 0, phi + h * rate >= 0)
    pulled = ca.logic_and(rate_free > 0, phi + h * rate_free >= 0)
    touching = ca.logic_or(closed, ca.logic_or(closing, pulled))
    return ca.logic_and(ca.DM(m.restitution) > 0, touching)


def free_velocity(m: Any, dt: Any, t: Any, q: Any, v: Any, applied: Any = None) -> Any:
    """v + dt M^-1 f: the velocity after dt (h times the scheme's kick) under the smooth forces
    f alone, explicit in a flexible body's internal forces (as the QP's v_free,
    step/qp_objective.py); `applied`: the compliant contacts' forces, if any."""
    force = m.Q(t, q, v) - m.S(q, v)
    if applied is not None:
        force = force + applied
    if m.flexible:
        force = force - m.internal(q, v, 0)
    return v + dt * (ca.DM(m.M_inv) @ force)


def induced(lam: Any, hit: Any, released: Any, restitution: np.ndarray) -> Any:
    """1 for the contacts outside the impact set, not released yet, whose gap row pushed in the
    solved step (lam_j > PUSH_REL of the largest force): an impact the step would treat as
    inelastic."""
    floor = PUSH_REL * ca.fmax(1.0, ca.mmax(ca.fabs(lam)))
    free = ca.logic_and(ca.logic_not(hit), ca.logic_not(released))
    return ca.logic_and(ca.logic_and(ca.DM(restitution) > 0, free), lam > floor)
