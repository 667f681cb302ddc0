"""The step QP from a guessed active set when its Hessian is not diagonal: the radial gaps'
Newton rounds (step/cuts_newton.py), whose discs' curvature couples the bodies of each joint.

step/qp_warm.py solves a guessed active set in the range space, (C_a H^-1 C_a^T) y = ..., which
needs H^-1 in closed form (H diagonal there) and is dense once H couples the bodies. Here the
guess is the KKT system itself,

    K0 = [ H     C_a^T ]    K0 [x; y] = [-g; b_a],
         [ C_a   0     ]

with every row assembled and an inactive row masked (C_i = 0, a unit diagonal: y_i = 0), so that
the sparsity is fixed. CasADi's sparse LDL (Linsol "ldl": loops over the pattern in the compiled
chunk, its fill-reducing order chosen once at build) factorises its regularisation K, the active
rows' diagonal -DELTA |C_i|^2 / h_max (h_max, H's largest diagonal entry): K is quasi-definite,
which has an LDL^T factorisation in any order (Vanderbei 1995), and for a chain it factorises
joint by joint, so the cost grows with the number of bodies. Its order (AMD: CasADi 3.8's Linsol
declares the option 'preordering' but reads 'amd', which it refuses as unknown) eliminates rows
before bodies, which makes K's solve lose digits as 1 / DELTA; REFINE steps of iterative
refinement against K0 (residual with K0, correction with K, a second factorisation: MX has no
solve that keeps one) restore them. The 32-link clearance chain over 1 s: DELTA = 1e-10 with one
step left 16 of 1000 steps failing the step's EoM check without the stationarity check below,
and 1.35 DAQP solves a step with it; 1e-8 with one or two steps 0.11 and none failing, 1.84 and
2.16 ms a step (the sparse products in scalar Functions instead of MX: 1.92 ms, and the cold
compilation 17 -> 57 s). The point is the QP's optimum when it is primal and dual feasible
(step/qp_warm.py's checks) and stationary, H x + g + C^T y = 0 to qp_warm.TOLERANCE; otherwise
(dependent active rows, a wrong guess) the guess its point corrects is solved (`guessed`: the
active rows that push and the inactive ones it violates, one step of the primal-dual active set
method; 54 of 72 guesses with one row wrong corrected in tests/test_qp_guess_sparse.py), and
DAQP only where that misses too: on the 32-link clearance chain 0.06 -> 0.04 DAQP solves a step
of the first QPs, 0.95 -> 0.87-0.94 ms a step.

Where it applies: rigid bodies, no friction rows (the split variables' bounds are not rows),
no joint friction, no process impact laws, with cut rows: the QPs of Newton's rounds.
"""

from __future__ import annotations

from typing import Any

import casadi as ca

from . import qp_warm
from .cuts import n_cone
from .layout import switch

#: Regularisation of the active rows, relative to their scale in the KKT system, and the steps
#: of iterative refinement against the system itself (module docstring).
DELTA = 1e-8
REFINE = 1


def solve(qp: dict, s: qp_warm.Shape, upper: Any, skip: range = range(0)) -> dict:
    """(x, lam_a, hit) of the QP `qp` (H, g, a, uba by name: CasADi's conic inputs) with its
    equalities (the first n_eq rows) and the `upper` rows active at their upper bounds; the
    rows `skip` (Newton's fan, step/cuts_newton.py: rarely active) are left out of the KKT
    system, taken inactive and only checked."""
    H, g, A, uba = qp["h"], qp["g"], qp["a"], qp["uba"]
    nx, n_rows = A.shape[1], A.shape[0]
    keep = [i for i in range(n_rows) if i not in skip]
    active = ca.vertcat(ca.DM.ones(s.n_eq), upper)
    target = ca.if_else(active, uba, 0)  # an inactive row's bound may be infinite
    place = ca.DM.zeros(n_rows, len(keep))  # a kept row's multiplier to its place
    for j, i in enumerate(keep):
        place[i, j] = 1.0
    place = ca.sparsify(place)
    Ak, active_k = A[keep, :], active[keep]
    scale, norms = ca.mmax(ca.fabs(ca.diag(H))), ca.sum2(Ak * Ak)
    active_k = active_k * (norms > 0)  # an empty row would make the system singular
    e = ca.if_else(active_k, DELTA * norms / scale, 1)
    Aa = ca.diag(active_k) @ Ak
    AaT = Aa.T  # once: each MX transpose is a pass over the nonzeros
    K = ca.blockcat([[H, AaT], [Aa, -ca.diag(e)]])
    rhs = ca.vertcat(-g, target[keep])
    # K.T: K is symmetric, and the solve node transposes its matrix (trans(trans(K)) is K)
    z = ca.solve(K.T, rhs, "ldl")
    for _ in range(REFINE):
        x, y = z[:nx], z[nx:]
        K0z = ca.vertcat(H @ x + AaT @ y, Aa @ x - (1 - active_k) * y)  # the system itself
        z = z + ca.solve(K.T, rhs - K0z, "ldl")
    x, y = z[:nx], place @ z[nx:]
    hit = qp_warm.optimal(A @ x, uba, target, place @ active_k, y, s)
    # stationarity, which the range-space solve has by construction, checked here: the
    # refinement's residual must not reach the step's EoM check (y = 0 on inactive rows)
    Hx, Ay = H @ x, AaT @ z[nx:]
    size = ca.mmax(ca.vertcat(ca.fabs(Hx), ca.fabs(Ay), ca.fabs(g)))
    hit = hit * (ca.mmax(ca.fabs(Hx + g + Ay)) <= qp_warm.TOLERANCE * (1 + size))
    return {"x": x, "lam_a": y, "hit": hit}


def fan_rows(rows: Any) -> range:
    """The rows of Newton's fan in the QP of `rows` (step/qp_graph.py _Rows; the first QP's,
    step/cuts_newton.py): `solve`'s `skip`."""
    fan = rows.cuts.n_fan * len(rows.cuts.index) if rows.cuts is not None else 0
    start = rows.layout["cuts"].start
    return range(start, start + fan)


def upper(m: Any, rows: Any, hint: dict, warm: Any, s: qp_warm.Shape) -> Any:
    """The one-sided rows guessed active in a QP with Newton's cut rows: a round's, those
    active in the round before (`warm`) and every cut set (each replaces its gap's scalar row,
    active in the round before where the gap was loaded); the first QP's, the contacts `hint`
    holds and its cuts (Cuts.first); never a row without a bound (released, or replaced by a
    cut)."""
    assert rows.cuts is not None
    n_up, n_cut = s.n_upper, rows.cuts.slots * n_cone(m)  # the cut rows come last
    held = ca.vertcat(hint["upper"], ca.DM.zeros(n_up - hint["upper"].shape[0]))
    before = warm[m.n_eq : m.n_eq + n_up] > 0
    guess = ca.if_else(ca.mmax(ca.vertcat(0, ca.fabs(warm))) > 0, before, held)
    cuts = ca.vertcat(ca.DM.zeros(n_up - n_cut), rows.cut[2][-n_cut:])
    return ((guess + cuts) > 0) * (rows.uba[m.n_eq : m.n_eq + n_up] < ca.inf)


def applies(model: Any, tangential: Any, rows: Any) -> bool:
    """Whether this guess serves the QP (module docstring)."""
    rigid = not model.flexible and not model.joint_friction.n and not rows.laws.process
    cuts = rows.cuts is not None and rows.cut[0].shape[0] > 0
    return rigid and cuts and tangential is None


def guessed(cold: ca.Function, args: dict, s: qp_warm.Shape, upper: Any, skip: range) -> dict:
    """x and lam_a of the QP `args` from the guess `upper` (`solve`); on a miss once more from
    the guess that its point corrects (the active rows that push, and the inactive ones it
    violates: a step of the primal-dual active set method), then DAQP (qp_warm.on_miss)."""
    out = solve(args, s, upper, skip)
    up = slice(s.n_eq, s.n_eq + s.n_upper)
    ins = {n: ca.MX.sym(n, v.sparsity()) for n, v in args.items()}
    kept = {n: ca.MX.sym(n, out[n].sparsity()) for n in ("x", "lam_a", "hit")}
    r = ins["a"] @ kept["x"]
    tp = qp_warm.TOLERANCE * (1 + ca.mmax(ca.vertcat(0, ca.fabs(r))))
    bounded = ins["uba"][up] < ca.inf
    ups = ca.MX.sym("upper", upper.sparsity())
    pushes = (kept["lam_a"][up] > 0) * ups
    violated = (r[up] - ins["uba"][up] > tp) * bounded
    second = solve(ins, s, ((pushes + violated) > 0) * bounded, skip)
    redo = switch("qp_guess_again", {**ins, "upper": ups}, kept, second)
    out2 = redo(1 - out["hit"], {**args, "upper": upper}, out)
    sol = qp_warm.on_miss(cold, args, out2)
    # DAQP's (cold) only after both guesses missed
    return {**sol, "solves": sol["solves"] + (1 - out["hit"]), "cold": 1 - out2["hit"]}
