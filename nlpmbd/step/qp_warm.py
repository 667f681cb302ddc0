"""The step QP from a guessed active set (step/qp_graph.py): the KKT system of the rows the
step before held, solved directly and checked, DAQP only where the guess is wrong.

A step's active set rarely changes: the joints' equalities are always active, a contact that
carried a force in the step before (the `normal` forces that start the friction fixed point)
usually carries one now, and a planar contact that slid keeps its direction of slip. With the
active set known the QP is one linear system. In the unknowns u of the velocities (Hessian I,
step/qp_objective.py) and the soft gaps' slacks (diagonal weights d), with the friction split
variables of each planar contact eliminated by its mode,

* sliding in the direction sigma = +-1 (p = sigma c u, the other split variable at 0): a known
  force, g += sigma h g_j c^T, and the split variables' curvature w (c^T c) in the Hessian;
* free (g_j = 0, an open contact): p = c u, the curvature only;
* sticking (p = n = 0): the row c u = 0, active,

the active rows C_a (equalities, guessed contacts, sticking rows) give the range-space system

    (C_a H^-1 C_a^T) y_a = -(b_a + C_a H^-1 g),   x = -H^-1 (g + C_a^T y_a),

factorised by CasADi's sparse LDL (all rows are assembled; an inactive row is masked to y = 0,
so that the sparsity is fixed). H^-1 = D^-1 - w F^T E F is exact to w^2 ~ 1e-20 (w = W_REG
m_min: the split variables' curvature, step/qp_friction.py). The point is the QP's optimum
when it is primal feasible (inactive rows within their bounds, sliding contacts slipping their
way) and dual feasible (active contact rows pushing, sticking forces within g_j): checked to
`TOLERANCE` relative, with finite numbers and the active rows met (dependent active rows make
the system singular). Otherwise DAQP solves the QP from scratch (Function.if_else: only then).

Where it applies: rigid bodies, planar friction only, no cut rows (the spatial cone's polygon
rows and curvature, Kelley's cuts and flexible bodies' Hessian block go to DAQP as before; the
QPs of Newton's cut rounds to step/qp_guess_sparse.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import casadi as ca
import numpy as np

from .layout import switch
from .qp_friction import FREE_BELOW, W_REG

#: Relative tolerance of the guessed point's optimality checks (DAQP's are 1e-12 absolute in its
#: scaled rows, step/qp_graph.py QP_OPTIONS).
TOLERANCE = 1e-11


@dataclass(frozen=True)
class Shape:
    """Where the QP's unknowns and rows are (step/qp_graph.py _solve): x = [u (n_u), split
    (2 per planar contact: p, n), slacks (n_soft)]; rows = [equalities (n_eq), one-sided rows
    with upper bounds (n_upper: gaps, Newton's rows, cuts), split rows (one per planar
    contact)]; w, the split variables' curvature."""

    n_u: int
    n_planar: int
    n_soft: int
    n_eq: int
    n_upper: int
    w: float


@dataclass(frozen=True)
class Guess:
    """The active set to try: `upper`, 1 for each one-sided row taken as active; per planar
    contact, `sign` (+1 or -1: sliding that way; 0: sticking) and its friction bound h g_j
    (`bound`, in the rows' units; 0 for a free contact)."""

    upper: Any
    sign: Any
    bound: Any


def _inverse(d: Any, F: Any, e: Any, w: float) -> Any:
    """v -> H^-1 v for H = diag(d) + w F^T diag(e) F (F nonzero on the u block only, d = 1)."""
    return lambda v: v / d - w * (F.T @ (e * (F @ v)))


def _part(v: Any, rows: slice) -> Any:
    """v[rows] as a column, also when empty (CasADi slices a 1x1 into 1x0)."""
    return v[rows] if rows.stop > rows.start else ca.SX(0, 1)


def solve(qp: dict, s: Shape, guess: Guess) -> tuple[Any, Any, Any]:
    """(x, lam_a, hit) of the QP (d, the Hessian's diagonal, g, A, uba by name) at the
    guessed active set; hit is 1 where that point is its optimum (module docstring)."""
    d_all, g, A, uba = qp["d"], qp["g"], qp["A"], qp["uba"]
    nu, n2 = s.n_u, 2 * s.n_planar
    keep = [*range(nu), *range(nu + n2, nu + n2 + s.n_soft)]
    Ak, gk, d = A[:, keep], g[keep], d_all[keep]
    fric = slice(s.n_eq + s.n_upper, Ak.shape[0])
    F = Ak[fric, :]
    # eliminated: sliding or free (a free contact slides with no force whatever its sign)
    e = ca.if_else(guess.bound == 0, 1, guess.sign != 0) if s.n_planar else ca.DM(0, 1)
    inverse = _inverse(d, F, e, s.w)
    g_eff = gk + F.T @ (e * guess.sign * guess.bound)
    sticking = 1 - e if s.n_planar else ca.DM(0, 1)  # (1 - empty is 1 in CasADi)
    active = ca.vertcat(ca.DM.ones(s.n_eq), guess.upper, sticking)
    target = ca.if_else(active, uba, 0)  # an inactive row's bound may be infinite
    W = Ak @ ca.diag(1 / d) @ Ak.T - s.w * (Ak @ F.T) @ ca.diag(e) @ (F @ Ak.T)
    Wm = ca.diag(active) @ W @ ca.diag(active) + ca.diag(1 - active)
    D, Lt, perm = ca.ldl(Wm)  # symbolic: the pattern's elimination once, at build
    y = ca.ldl_solve(active * -(target + Ak @ inverse(g_eff)), D, Lt, perm)
    xk = -inverse(g_eff + Ak.T @ y)
    slip, y_fric, x = F @ xk, _part(y, fric), xk
    if s.n_planar:
        y_fric = e * (guess.sign * guess.bound + s.w * slip) + (1 - e) * y_fric
        ahead = (guess.sign >= 0) + (guess.bound == 0) > 0  # a free contact's n is fixed at 0
        split = ca.reshape(ca.horzcat(e * ahead * slip, -e * (1 - ahead) * slip).T, n2, 1)
        x = ca.vertcat(xk[:nu], split, xk[nu:])
    lam_a = ca.vertcat(_part(y, slice(0, s.n_eq + s.n_upper)), y_fric)
    r = Ak @ xk
    return x, lam_a, optimal(r, uba, target, active, y, s, (slip, y_fric, guess, e))


def function(s: Shape, A: ca.Sparsity) -> ca.Function:
    """(A, g, d, uba, upper, sign) -> (x, lam_a, hit): `solve` as one scalar (SX) Function, A of
    the sparsity `A`, d the Hessian's diagonal, the friction bounds from g (the split
    variables' costs h g_j): a few thousand flops in straight-line code for a slider-crank's
    QP, where sparse matrix products between MX nodes cost more than the QP solver."""
    nx, m = A.size2(), A.size1()
    sym = {"A": ca.SX.sym("A", A), "g": ca.SX.sym("g", nx), "d": ca.SX.sym("d", nx)}
    sym.update(uba=ca.SX.sym("uba", m), upper=ca.SX.sym("upper", s.n_upper))
    sym["sign"] = ca.SX.sym("sign", s.n_planar)
    bound = sym["g"][s.n_u : s.n_u + 2 * s.n_planar : 2]
    qp = {"d": sym["d"], "g": sym["g"], "A": sym["A"], "uba": sym["uba"]}
    x, lam_a, hit = solve(qp, s, Guess(sym["upper"], sym["sign"], bound))
    outputs = {"x": x, "lam_a": lam_a, "hit": hit}
    return ca.Function("qp_guessed", {**sym, **outputs}, [*sym], [*outputs])


def optimal(r: Any, uba: Any, target: Any, active: Any, y: Any, s: Shape, fr: tuple = ()) -> Any:
    """1 where the guessed point is primal and dual feasible (module docstring); `fr`, the
    planar contacts' (slip, y_fric, guess, e) where it has any."""
    tp = TOLERANCE * (1 + ca.mmax(ca.vertcat(0, ca.fabs(r))))  # (no rows: an empty max)
    td = TOLERANCE * (1 + ca.mmax(ca.vertcat(0, ca.fabs(y))))
    total = ca.sum1(r) + ca.sum1(y)
    hit = (total == total) * (ca.fabs(total) < ca.inf)  # false for NaN and inf
    hit = hit * (ca.mmax(ca.vertcat(0, active * ca.fabs(r - target))) <= tp)  # active rows met
    if s.n_upper:
        up = slice(s.n_eq, s.n_eq + s.n_upper)
        a = active[up]
        # contacts push: no tolerance, as the step's checks refuse a negative force in N,
        # y / h, which a small h magnifies (a contact at rest carries ~0: DAQP decides it)
        hit = hit * (ca.mmin(ca.if_else(a, y[up], ca.inf)) >= 0)
        hit = hit * (ca.mmax(ca.if_else(a, -ca.inf, r[up] - uba[up])) <= tp)  # others hold
    if s.n_planar:
        slip, y_fric, guess, e = fr
        sliding = e * (guess.bound > 0)
        hit = hit * (ca.mmin(ca.if_else(sliding, guess.sign * slip, ca.inf)) >= -tp)
        hit = hit * (ca.mmax(ca.if_else(1 - e, ca.fabs(y_fric) - guess.bound, -ca.inf)) <= td)
    return hit


def applies(model: Any, tangential: Any, rows: Any) -> bool:
    """Whether the guessed solve serves the model's QP (module docstring): not where the QP
    has cut rows (radial gaps under the vector linearisation: Kelley's change their active set
    round by round, 4.8 of 5.2 guesses a step missed on the 8-link clearance chain; Newton's
    rounds have step/qp_guess_sparse.py), nor rows the Shape does not hold: a joint's friction rows
    (step/rows/joint_friction.py), the impulses of the process impact laws."""
    rigid = not model.flexible and not model.joint_friction.n and not rows.laws.process
    cuts = rows.cuts is not None and rows.cut[0].shape[0] > 0
    return rigid and not cuts and (tangential is None or tangential.cone is None)


def shape(model: Any, rows: Any, tangential: Any, n_soft: int) -> Shape:
    """The Shape of a step QP (step/qp_graph.py: its _Rows, Tangential and slacks)."""
    n_planar = len(tangential.planar) if tangential is not None else 0
    n_upper = rows.n_contact - model.n_eq
    w = W_REG * float(np.min(model.masses))
    return Shape(model.n_v, n_planar, n_soft, model.n_eq, n_upper, w)


def hint(normal: Any, released: Any, rows: Any, tangential: Any, v: Any, stick: float) -> dict:
    """The active set of the steps before, for `first_guessed`: the contacts whose normal
    force (the `normal` that starts the friction fixed point) was not ~0 push, on the impact
    set by Newton's row (step/impacts.py) in place of the gap row; planar contacts slide the
    way they slid at the step's start (v), or stick below `stick` (m/s)."""
    held = (normal > FREE_BELOW * ca.fmax(1.0, ca.mmax(ca.vertcat(0, normal)))) * (released <= 0)
    upper = [held * (rows.hit == 0), rows.hit * (released <= 0)] if rows.restitution else [held]
    out = {"upper": ca.vertcat(*upper), "sign": ca.DM(0, 1)}
    if tangential is not None and tangential.planar:
        pairs = zip(tangential.basis, tangential.planar, strict=True)
        slip = ca.vertcat(*[T.T @ tangential.D[j] @ v for T, j in pairs])
        out["sign"] = ca.if_else(ca.fabs(slip) <= stick, 0, ca.sign(slip))
    return out


def first_guessed(cold: ca.Function, args: dict, s: Shape, hint: dict) -> dict:
    """x and lam_a of the QP `args` (conic inputs by name: h, g, a, uba, ...) from the active
    set `hint`, and from `cold` (DAQP from scratch) only where that is not the optimum; the
    number of solves made (1 or 2)."""
    guessed = function(s, args["a"].sparsity())
    upper = ca.vertcat(hint["upper"], ca.DM.zeros(s.n_upper - hint["upper"].shape[0]))
    data = {"A": args["a"], "g": args["g"], "d": ca.diag(args["h"]), "uba": args["uba"]}
    return on_miss(cold, args, guessed(**data, upper=upper, sign=hint["sign"]))


def on_miss(cold: ca.Function, args: dict, out: dict) -> dict:
    """The guessed solve's x and lam_a where it `hit`, else `cold`'s (DAQP) on the QP `args`
    (Function.if_else: only then); the number of solves made (1 or 2)."""
    ins = {n: ca.MX.sym(n, v.sparsity()) for n, v in args.items()}
    kept = {n: ca.MX.sym(n, out[n].sparsity()) for n in ("x", "lam_a")}
    again = cold.call(ins)
    redo = switch("qp_cold", ins, kept, {n: again[n] for n in kept})
    sol = redo(1 - out["hit"], args, {n: out[n] for n in kept})
    return {**sol, "solves": 2 - out["hit"]}  # the guessed solve, and DAQP's on a miss


def daqp_start(model: Any, hint: dict, n_rows: int) -> tuple[Any, Any]:
    """(warm, lam_a0): DAQP's first working set where it solves the QP (compiled chunks: run/
    codegen_source.py warm_daqp), `warm` a symbol of the rows active in the round before
    (nonzero when given: step/qp_graph.py's cut rounds), else the gap rows (and Newton's
    rows) of the contacts `hint` holds; the equalities are in it anyway."""
    warm, upper = ca.MX.sym("warm", n_rows), hint["upper"]
    held = ca.vertcat(ca.DM.zeros(model.n_eq), upper)
    held = ca.vertcat(held, ca.DM.zeros(n_rows - held.shape[0]))
    return warm, ca.if_else(ca.mmax(ca.vertcat(0, ca.fabs(warm))) > 0, warm, held)
