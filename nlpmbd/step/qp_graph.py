"""The CasADi graph of the QP step (step/qp.py): one QP, the second QP of induced impacts, and the
fixed point of Coulomb friction, as one Function `attempt(t, q, v, h, use_curvature, applied,
normal)`.

With h fixed, the per-step NLP is a convex QP in the velocities (docs/FORMULATION.md section 4),

    minimise 1/2 (v - v_free)^T M (v - v_free) + h sum_j g_j |D_j v|,   v_free = vm + h M^-1 (Q - S)
    subject to  Phi_v v <= -(Phi + T2) / h,   Phi_eq,v v = -(Phi_eq / h + Phi_eq,t),
                Phi_v,j v <= -e_j Phi_v,j vm on the impact set (step/impacts.py),

every row divided by h so that it reads in m/s. Its multipliers divided by h are the forces. The
Tresca term h g_j |D_j v| (friction bound g_j = mu_j lambda_j, D_j v the slip) is the NLP's
(step/graph.py): exact for planar contacts, whose slip has one component (a split p - n, step/
qp_friction.py), and for spatial ones a polygon under the cone, refined by cuts at the slip and
by Newton's second-order term across it round by round (step/qp_cone.py). The friction bound's
normal forces are a fixed point: the step is solved again with the normal forces (and friction
polygons) it produced, at most `rounds` times, until a round is settled: its EoM residual plus
the generalised force by which its friction misses Coulomb's law at its own normal forces is
within the kernel's EoM tolerance, the NLP path's acceptance (step/friction.py). Each round runs
only when the one before did not settle (Function.if_else); one that has not settled starts
once more from above (step/qp_rounds.py); a step that has not settled then, or whose friction
forces leave the friction law, fails its checks.

qrqp cycles or stops at dual-infeasible points on the friction QPs of several mechanisms
(crank_rocker, slider_crank_moment: ideal joints fix slip directions, so the active rows become
dependent), and its sparse QR grows as N^3 with the number of bodies; qp_solver "auto" therefore
takes DAQP (step/config.py, QPPlugin), which is compiled with the chunk like qrqp.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import casadi as ca
import numpy as np

from . import qp_guess_sparse, qp_warm
from .config import Friction
from .cuts import Cuts
from .impact_process import ImpactLaws, Impulses
from .impacts import RELEASE_ROUNDS, impact_set, induced
from .kernel import StepKernel
from .layout import Layout, adding, counts, named_function, switch, symbols_like
from .qp_cut_rounds import cut_kind, cut_state, with_cuts
from .qp_forces import Forces, checks
from .qp_friction import W_REG, Tangential, friction_bound
from .qp_joint_rounds import with_joint_rounds
from .qp_objective import Objective
from .qp_plugins import qp_solver
from .qp_rounds import fixed_point
from .qp_symbols import ATTEMPT_OUT, first_stage, friction_symbols, step_symbols
from .rows import joint_friction
from .rows.compliant import QPSlacks
from .verlet import two_stage


def attempt_function(
    kernel: StepKernel,
    plugin: str,
    friction: Friction,
    rounds: int,
    whole: bool = True,
    velocity: bool = False,
) -> ca.Function:
    """(t, q, v, h, use_curvature, applied, normal) -> ATTEMPT_OUT; `applied`: a generalised
    force held over the step (6N; the compliant contacts'); `normal`: the normal forces that
    start the friction fixed point (ignored without friction). Under the second-order scheme
    the whole step is its two stages (step/verlet.py), or with `whole` False its first; with
    `velocity` the velocity stage's QP, which keeps closed contacts by their normal rows
    alone: no fan or cut rows (step/cuts.py), so that the guessed active set serves it."""
    m = kernel.model
    args, normal = step_symbols(m), ca.MX.sym("normal", m.n_gap)
    cut_rows = kernel.vector and not velocity  # step/cuts.py
    build = partial(_one_qp, kernel, plugin, friction, cut_rows)
    at = _with_release(kernel, with_cuts(kernel, build, cut_rows))
    if m.joint_friction.coupled:
        at = with_joint_rounds(kernel, at)
    if m.has_friction:
        out = fixed_point(at, args, normal, rounds, m)
    else:
        no_fdirs = ca.DM.zeros(at.sparsity_in("fdirs").shape)
        # the normal forces of the steps before guess the QP's active set (step/qp_warm.py)
        out = at.call({**args, "normal": normal, "fdirs": no_fdirs})
    out["capped_friction"] = out["rounds"] >= rounds if m.has_friction else ca.MX(0)
    outputs = {k: out[k] for k in ATTEMPT_OUT}
    outputs.update(
        first_stage(args, out["v_new"], out["v_new"])
    )  # the second-order scheme's: its own
    f = named_function("qp_attempt", {**args, "normal": normal}, outputs)
    if not (kernel.verlet and whole):
        return f
    second = attempt_function(kernel, plugin, friction, rounds, False, True) if cut_rows else f
    return two_stage(kernel, f, second)


def _with_release(kernel: StepKernel, one: ca.Function) -> ca.Function:
    """(t, q, v, h, use, applied, normal, fdirs) -> ATTEMPT_OUT, fdirs_next: one QP, and with
    restitution up to RELEASE_ROUNDS more, each releasing the gap rows of the induced impacts
    found so far (step/impacts.py); induced impacts left after them fail the step's checks."""
    m = kernel.model
    args = {**step_symbols(m), **friction_symbols(m)}
    out = one.call({**args, "released": ca.MX.zeros(m.n_gap)})
    for k in range(RELEASE_ROUNDS if m.has_restitution else 0):
        more = ca.mmax(ca.vertcat(0, out["released_next"] - out["released_before"]))
        syms = symbols_like(out)
        again = adding(one.call({**args, "released": syms["released_next"]}), syms)
        out = switch(f"release_induced_{k}", args, syms, again)(more, args, out)
    if m.has_restitution:
        out["capped_releases"] = out["capped_releases"] + (more > 0)  # the last round's `more`
        more = ca.mmax(ca.vertcat(0, out["released_next"] - out["released_before"]))
        out["ok"] = out["ok"] * (more == 0)
    out["rounds"] = ca.MX(1)  # a round of the friction fixed point (step/qp_rounds.py)
    keep = (*ATTEMPT_OUT, "fdirs_next", "joint_load_next", "joint_settled")
    return named_function("qp_released", args, {k: out[k] for k in keep})


class _Rows:
    """The QP's rows at h in m/s, in the order of its multipliers: the linearised equalities,
    the gap rows (off for `released` contacts), with restitution Newton's rows on the impact
    set (off elsewhere), with friction the slip split rows p - n (step/qp_friction.py)."""

    def __init__(
        self, k: StepKernel, args: dict, phi: Any, released: Any, state: dict, fan: bool = True
    ) -> None:
        """`state`: the cut state's symbols (step/qp_cut_rounds.py), empty without cut rows;
        `fan`: whether Newton's rows have the fan's (step/cuts_newton.py; Kelley's always)."""
        t, q, v, h, use = (args[n] for n in ("t", "q", "v", "h", "use_curvature"))
        m = k.model
        nc = m.n_gap
        Phi_v, G = m.Phi_v(q), m.Phi_eq_v(q, t)  # once: the checks (qp_forces.py) use them too
        self.Phi_v, self.Phi_eq_v = Phi_v, G
        self.eq_rhs = -(k.equality_bound(q, t, v, h, use) / h + m.Phi_eq_t(q, t))
        inf = ca.inf * ca.DM.ones(nc)
        self.restitution = m.has_restitution
        self.e, self.rate = ca.DM(m.restitution), Phi_v @ v
        self.hit = ca.MX.zeros(nc)
        self.laws = ImpactLaws(m.gap_laws)  # Newton's rows; the others': Impulses
        self.cuts: Cuts | None = None
        if state:  # step/qp_cut_rounds.py
            drift = k.offset_drift(q, v, h, use)
            self.cuts = cut_kind(m)(m, q, h, released, drift, use=use, fan=fan)
        #: gaps whose scalar row is off: released, or replaced by a cut (step/cuts.py)
        self.off = released + self.cuts.cut_gaps(state) if self.cuts is not None else released
        A = [G, Phi_v]
        lba, uba = [self.eq_rhs, -inf], [self.eq_rhs, ca.if_else(self.off > 0, inf, -phi / h)]
        if self.restitution:
            self.hit = impact_set(k, t, q, v, h, args["applied"])
            A.append(Phi_v)
            lba.append(-inf)
            uba.append(ca.if_else(self.hit * self.laws.rows, -self.e * self.rate, inf))
        n_cut = 0
        if self.cuts is not None:  # the vector linearisation's cut rows (step/cuts.py)
            self.cut = self.cuts.rows(state)
            A_cut, b_cut, _ = self.cut
            n_cut = A_cut.shape[0]
            A.append(A_cut)
            lba.append(-ca.inf * ca.DM.ones(n_cut))
            uba.append(b_cut)
        self.A, self.lba, self.uba = ca.vertcat(*A), ca.vertcat(*lba), ca.vertcat(*uba)
        #: the rows' blocks, in the order of their multipliers (the friction rows follow)
        rest = nc if self.restitution else 0
        self.layout = Layout([("eq", m.n_eq), ("gap", nc), ("restitution", rest), ("cuts", n_cut)])
        self.n_contact = self.layout.size  # rows before the friction rows

    def newton(self, v_new: Any) -> Any:
        """Phi_v v + e Phi_v vm on the impact set (m/s; <= 0 when Newton's law holds), else 0."""
        if not self.restitution:
            return ca.MX.zeros(self.Phi_v.shape[0])
        return ca.if_else(self.hit * self.laws.rows, self.Phi_v @ v_new + self.e * self.rate, 0)


def _solve(
    k: StepKernel,
    solver: tuple,
    rows: _Rows,
    obj: Objective,
    fr: Any,
    bound: Any,
    hint: dict,
    jf: joint_friction.JointFrictionQP | None = None,
) -> tuple[dict, dict, QPSlacks, Any]:
    """The QP of `rows` and `obj`, with the friction rows of `fr` at the bounds `bound` and
    the soft gaps' slacks, solved by `solver` (plugin, Friction settings): its unknowns u,
    friction, soft and its multipliers / h of the contact and friction rows, by name; the
    slacks; the solves made. `hint`: the active set to try first (step/qp_warm.py)."""
    nv, h, (plugin, friction) = k.model.n_v, obj.h, solver
    nw = fr.nw if fr is not None else 0
    nj = jf.nw if jf is not None else 0
    qp = {"H": obj.hessian(nw), "g": obj.g, "A": ca.horzcat(rows.A, ca.MX(rows.A.shape[0], nw))}
    if rows.cuts is not None and rows.cuts.curved is not None:  # step/cuts_newton.py, in u
        G, r = rows.cuts.curved
        GT = obj.unscale(G, 0)
        qp["H"] = qp["H"] + ca.diagcat(GT.T @ GT, ca.DM(nw, nw))
        qp["g"] = qp["g"] - GT.T @ r
    qp.update(lba=rows.lba, uba=rows.uba, lbx=-ca.inf * ca.DM.ones(nv), ubx=ca.inf * ca.DM.ones(nv))
    if fr is not None:
        qp = fr.extend(qp, h, bound, obj)
    n_fr = qp["A"].shape[0] - rows.n_contact  # the contacts' friction rows
    if jf is not None:  # friction inside joints (step/rows/joint_friction.py)
        qp = jf.extend(qp, h)
    soft = QPSlacks(k, h, qp["A"].shape[0], k.model.n_eq)
    qp = soft.extend(qp)  # the compliant rows' slacks
    qp["A"] = obj.unscale(qp["A"], nw + nj + soft.n)  # the friction rows too
    H, A = qp["H"], qp["A"]
    solve = qp_solver("step_qp", plugin, H.sparsity(), A.sparsity(), friction=nw + nj > 0)
    # qrqp starts from the active set that lam_x0 marks: no slip (p = n = 0), a regular KKT
    # matrix at once where no ideal joint fixes a slip direction already
    start = fr.active_start(friction.stick_speed) if fr is not None else ca.DM(0, 1)
    lam_x0 = ca.vertcat(ca.DM.zeros(nv), start, ca.DM.zeros(nj + soft.n))
    args = {"h": H, "g": qp["g"], "a": A, "lba": qp["lba"], "uba": qp["uba"], "lbx": qp["lbx"]}
    warm, lam_a0 = qp_warm.daqp_start(k.model, hint, A.shape[0])
    args.update(ubx=qp["ubx"], lam_x0=lam_x0, lam_a0=lam_a0)
    if qp_guess_sparse.applies(k.model, fr, rows):  # Newton's rounds (step/cuts_newton.py)
        s = qp_warm.shape(k.model, rows, fr, soft.n)
        upper = qp_guess_sparse.upper(k.model, rows, hint, warm, s)
        args["lam_a0"] = ca.vertcat(ca.DM.zeros(k.model.n_eq), upper)  # DAQP's on a miss
        sol = qp_guess_sparse.guessed(solve, args, s, upper, qp_guess_sparse.fan_rows(rows))
    elif qp_warm.applies(k.model, fr, rows):
        sol = qp_warm.first_guessed(solve, args, qp_warm.shape(k.model, rows, fr, soft.n), hint)
    else:
        sol = {**solve.call(args), "solves": 1, "cold": 1}
    unknowns = Layout([("u", nv), ("friction", nw), ("joint_friction", nj), ("soft", soft.n)])
    x = unknowns.split(sol["x"])
    n_jf = jf.n if jf is not None else 0
    blocks = [("contact", rows.n_contact), ("friction", n_fr), ("joint_friction", n_jf)]
    y_rows = Layout(blocks)
    y = {name: y / h for name, y in y_rows.split(sol["lam_a"]).items()}
    counted = counts(solves=sol["solves"], cold=sol.get("cold", sol["solves"] - 1))
    return x, y, soft, {**counted, "warm": warm, "lam_a_raw": sol["lam_a"]}


def _one_qp(
    kernel: StepKernel, plugin: str, friction: Friction, cut_rows: bool, fan: bool = True
) -> ca.Function:
    """One QP (with `fan` Newton's fan rows, step/cuts_newton.py): (t, q, v, h, use, applied,
    normal, fdirs, released, warm[, the cut state: cuts; step/qp_cut_rounds.py]) -> ATTEMPT_OUT,
    fdirs_next (step/qp_cone.py), released_before, released_next (with induced impacts,
    step/impacts.py), lam_a_raw (the next round's warm)."""
    k, m = kernel, kernel.model
    nc, nv, args = m.n_gap, m.n_v, step_symbols(m)
    q, v, h, use = args["q"], args["v"], args["h"], args["use_curvature"]
    fs, released = friction_symbols(m), ca.MX.sym("released", nc)
    normal, state = fs["normal"], fs["fdirs"]
    phi = k.gap_bound(q, v, h, use)
    cut_in = cut_state(m) if cut_rows else {}
    rows = _Rows(k, args, phi, released, cut_in, fan)
    imp = Impulses(k, rows.laws, args, rows.hit, released, plugin)  # process laws' (or 0)
    obj = Objective(k, {**args, "applied": args["applied"] + imp.force})
    fr = Tangential(m, q, v, obj.v_free, state) if m.has_friction else None
    mu = bound = None
    if fr is not None:
        mu = k.friction_coefficient(ca.vertcat(*fr.slip_m), friction.stick_speed)
        bound = friction_bound(mu, normal - imp.normal)  # friction beyond the impulses
    hint = qp_warm.hint(normal, released, rows, fr, v, friction.stick_speed)
    jf = joint_friction.qp_rows(k, q, use, fs["joint_load"])
    x, y, soft, counted = _solve(k, (plugin, friction), rows, obj, fr, bound, hint, jf)
    warm = counted.pop("warm")
    phi = soft.gaps(h, phi, x["soft"])  # a compliant row: a Phi + h Phi_v v - h s
    v_new, mult = obj.velocities(x["u"]), y["contact"]
    f = Forces(rows, mult, v_new)
    fric, generalised, within, miss = ca.MX.zeros(3, nc), ca.MX.zeros(nv, 1), 1, 0
    if fr is not None:
        bias = W_REG * float(np.min(m.masses)) * ca.mmax(ca.fabs(x["friction"])) / h
        fric, generalised, within = fr.forces(y["friction"], bound, bias, v_new, h)
    tau = ca.MX(0, 1)
    if jf is not None:
        tau, joint_generalised, joint_within = jf.forces(
            y["joint_friction"], x["joint_friction"], h
        )
        generalised, within = generalised + joint_generalised, within * joint_within
    K = obj.residual(v_new)
    eom, comp, ok, eom_scale = checks(k, args, rows, phi, rows.off, v_new, K, f, generalised)
    fdirs, tol = state, k.verification.eom * eom_scale  # fdirs: the next round's polygons
    if fr is not None:
        own = friction_bound(mu, f.lam)
        miss, fdirs = fr.mismatch(y["friction"], bound, own, bias, v_new, h, tol)
    q_new, drift = k.update(q, v_new, h)
    total = ca.sum1(q_new) + ca.sum1(v_new) + ca.sum1(mult)
    finite = (total == total) * (ca.fabs(total) < ca.inf)  # false for NaN and inf
    # an infinite residual passes the tests (inf <= tol * inf); NaN and inf fail x < inf
    ok = ok * finite * (comp < ca.inf) * (drift < ca.inf) * within
    caught = induced(f.lam_gap, rows.hit, released, m.restitution) if nc else released
    # Coulomb's law at the step's own forces ends the fixed point (NLP path: step/friction.py)
    settled = eom + miss <= tol
    outputs = {"q_new": q_new, "v_new": v_new, "lam": f.lam + imp.normal, "lam_eq": f.lam_eq}
    outputs.update(eom=eom, comp=comp, drift=drift, ok=ok, friction=fric + imp.friction)
    outputs.update(settled=settled, **counted)
    outputs.update(fdirs_next=fdirs, released_before=released, released_next=released + caught)
    outputs.update(joint_friction.qp_loads(k, args, jf, tau, f, tol))
    inputs = {**args, **fs, "released": released, "warm": warm, **cut_in}  # fs: normal, fdirs...
    return named_function("qp_one", inputs, outputs)
