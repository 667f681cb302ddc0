"""Which contacts an impact carries with it (step/impact_process.py): the impulse-level
inelastic impact of the step's impact set,

    minimise 1/2 (v - vm)^T M (v - vm)   subject to  Phi_eq,v v = 0,  Phi_v,k v <= 0 (k hit),

one small QP from the step's start velocity. A resting contact whose row pushes in it is held,
as a bilateral row, in the Delassus block of every other contact's process: a column of touching
beads then moves as one body under its lowest bead's impact (as Newton's rows move it), where a
contact that the inelastic impact would open (a rocking block's old corner) is left free.

Contacts that impact together share the impact: each one's process is scaled by its impulse
in the inelastic impact over the compression impulse it would take alone without friction,
P_j W_nn,j / c_j (1 for a contact impacting alone: the same block). A box landing on an edge
(two corners, each of which alone would stop the whole rotation) then takes each corner's
process at half, where each at full pushed twice and added energy.
"""

from __future__ import annotations

from typing import Any

import casadi as ca

from .impacts import PUSH_REL
from .quiet import silent_stdout

#: The QP's options per CasADi conic plugin: quiet, no exception (a failed solve holds nothing
#: it did not push).
OPTIONS: dict[str, dict[str, Any]] = {
    "qrqp": {"print_iter": False, "print_header": False, "print_info": False},
    "qpoases": {"printLevel": "none"},
    "osqp": {"osqp": {"verbose": False}},
}


def inelastic(kernel: Any, plugin: str, args: dict, hit: Any) -> tuple[Any, Any]:
    """(held, P): (M,) 1 for the contacts of the impact set `hit` whose rows push in the
    inelastic impact (module docstring) and do not approach (an impacting contact runs its own
    process: held in another's, it would push twice), else 0; (M,) their impulses there (N s)."""
    m = kernel.model
    t, q, v = (args[k] for k in ("t", "q", "v"))
    G, Phi_v, M = m.Phi_eq_v(q, t), m.Phi_v(q), m.M_sparse
    A = ca.vertcat(G, Phi_v)
    zero, inf = ca.DM.zeros(m.n_eq), ca.inf * ca.DM.ones(m.n_gap)
    opts = {"error_on_fail": False, **OPTIONS.get(plugin, {})}
    with silent_stdout():  # qpOASES' licence banner
        solver = ca.conic("impact_qp", plugin, {"h": M.sparsity(), "a": A.sparsity()}, opts)
    uba = ca.vertcat(zero, ca.if_else(hit, 0, inf))
    sol = solver(h=M, g=-M @ v, a=A, lba=ca.vertcat(zero, -inf), uba=uba)
    lam = sol["lam_a"][m.n_eq :]
    floor = PUSH_REL * ca.fmax(ca.mmax(ca.fabs(lam)), 1e-300)
    # and its row closed at the QP's point (DAQP's interface crashes where x is not an output)
    scale = 1e-6 * ca.fmax(ca.mmax(ca.fabs(Phi_v @ v)), 1e-300)
    closed = ca.fabs(Phi_v @ sol["x"]) <= scale
    resting = Phi_v @ v <= scale
    return hit * (lam > floor) * closed * resting, hit * ca.fmax(lam, 0)
