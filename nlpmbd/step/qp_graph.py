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

from typing import Any

import casadi as ca
import numpy as np

from .config import Friction
from .cuts import N_CUTS, ROWS, Cuts, n_cone
from .impacts import impact_set, induced
from .kernel import StepKernel
from .qp_cone import Cone
from .qp_forces import Forces
from .qp_friction import W_REG, Tangential, friction_bound
from .qp_objective import Objective, SoftSlacks
from .qp_rounds import fixed_point, switch, symbols
from .quiet import silent_stdout
from .verlet import two_stage

#: QP solver options per CasADi conic plugin: quiet, no exception on failure (checked below).
QP_OPTIONS: dict[str, dict[str, Any]] = {
    # a step QP has tens of variables: 100 iterations means cycling on a degenerate active set
    "qrqp": {"print_iter": False, "print_header": False, "print_info": False, "max_iter": 100},
    "qpoases": {"printLevel": "none"},
    "daqp": {"daqp": {"primal_tol": 1e-12, "dual_tol": 1e-12}},  # default tolerances 1e-6
    "osqp": {"osqp": {"verbose": False, "eps_abs": 1e-12, "eps_rel": 1e-12, "polish": True}},
}
#: Outputs of `attempt`, in order (friction: (3, M) friction force on each contact's moving body).
ATTEMPT_OUT = (
    "q_new", "v_new", "lam", "lam_eq", "eom", "comp", "drift", "ok", "friction", "settled"
)  # fmt: skip


#: DAQP's options for QPs with friction: proximal-point iterations (eps_prox, kg). The friction
#: split variables carry almost no curvature (W_REG), which DAQP's dual factorisation otherwise
#: resolves to ~1e-6 relative (stick_slip: 13% of steps failed their checks). eta_prox ends
#: them at the accuracy the checks demand: EoM residuals 4e-13 N on a sliding cube, where
#: eps_prox 1e-7 leaves 3e-8 N and 1e-3 is 3x slower. Without friction they only cost accuracy
#: (a damped spin, 1e4 steps: 2e-8 relative, 1e-12 without).
DAQP_PROXIMAL = {"eps_prox": 1e-6, "eta_prox": 1e-14}


def qp_solver(
    name: str, plugin: str, h: ca.Sparsity, a: ca.Sparsity, friction: bool = False
) -> ca.Function:
    opts = {"error_on_fail": False, **QP_OPTIONS.get(plugin, {})}
    if plugin == "daqp" and friction:
        opts["daqp"] = {**opts["daqp"], **DAQP_PROXIMAL}
    with silent_stdout():  # qpOASES prints a licence banner whatever printLevel says
        return ca.conic(name, plugin, {"h": h, "a": a}, opts)


def attempt_function(
    kernel: StepKernel, plugin: str, friction: Friction, rounds: int, whole: bool = True
) -> ca.Function:
    """(t, q, v, h, use_curvature, applied, normal) -> ATTEMPT_OUT; `applied`: a generalised
    force held over the step (6N; the compliant contacts'); `normal`: the normal forces that
    start the friction fixed point (ignored without friction). Under the second-order scheme
    the whole step is its two stages (step/verlet.py), or with `whole` False its first."""
    m = kernel.model
    args, normal = _step_symbols(m), ca.MX.sym("normal", m.n_gap)
    at = _with_release(kernel, _with_cuts(kernel, _one_qp(kernel, plugin, friction)))
    if m.has_friction:
        out = fixed_point(at, args, normal, rounds, len(ATTEMPT_OUT), m)
    else:
        out = at.call([*args, ca.MX.zeros(m.n_gap), ca.DM.zeros(at.sparsity_in(7).shape)])
    out = out[: len(ATTEMPT_OUT)]
    names = ["t", "q", "v", "h", "use_curvature", "applied", "normal"]
    f = ca.Function("qp_attempt", [*args, normal], out, names, list(ATTEMPT_OUT))
    return two_stage(kernel, f) if kernel.verlet and whole else f


def _friction_symbols(m: Any) -> list:
    """normal (the friction bounds' normal forces), fdirs (friction polygons, step/qp_cone.py)."""
    rows = 3 * int(np.count_nonzero(~m.planar)) if m.has_friction else 0
    return [ca.MX.sym("normal", m.n_gap), ca.MX.sym("fdirs", rows, Cone.columns)]


def _with_release(kernel: StepKernel, one: ca.Function) -> ca.Function:
    """(t, q, v, h, use, applied, normal, fdirs) -> ATTEMPT_OUT, fdirs: one QP, and with
    restitution a second one that releases the gap rows of induced impacts (step/impacts.py); a
    second round of them fails the step's checks (the NLP path takes it)."""
    m = kernel.model
    args = _step_symbols(m) + _friction_symbols(m)
    out = one.call([*args, ca.MX.zeros(m.n_gap)])
    if m.has_restitution:
        syms = symbols(out)
        again = switch("release_induced", [*args, *syms], one.call([*args, syms[-1]]), syms)
        out = again.call([ca.mmax(ca.vertcat(0, out[-1])), *args, *out])
        out[7] = out[7] * (ca.mmax(ca.vertcat(0, out[-1] - out[-2])) == 0)
    return ca.Function("qp_released", args, out[: len(ATTEMPT_OUT) + 1])


def _with_cuts(kernel: StepKernel, one: ca.Function) -> ca.Function:
    """(t, q, v, h, use, applied, normal, fdirs, released) -> the outputs of `one`: with the
    vector linearisation, the QP again with a cut wherever its solution leaves a radial gap's
    disc, at most N_CUTS times (step/cuts.py)."""
    if not kernel.vector:
        return one
    m = kernel.model
    args = _step_symbols(m) + _friction_symbols(m) + [ca.MX.sym("released", m.n_gap)]
    dirs = ca.DM.zeros(ROWS * n_cone(m), N_CUTS)
    out = one.call([*args, dirs])
    q, v, h, use = args[1:5]
    drift = kernel.offset_drift(q, v, h, use)
    cuts = Cuts(m, q, h, args[-1], drift, lambda v_new: kernel.update(q, v_new, h)[0], use)
    for k in range(N_CUTS):
        dirs, need = cuts.next(out[1], dirs, k)
        need = need * (use >= 0)  # a velocity stage keeps closed contacts by their normal
        syms, d = symbols(out), ca.MX.sym("d", dirs.shape)
        again = switch(f"cut_{k}", [*args, d, *syms], one.call([*args, d]), syms)
        out = again.call([need, *args, dirs, *out])
    return ca.Function("qp_cut", args, out)


def _step_symbols(m: Any) -> list:
    """t, q, v, h, use_curvature, applied."""
    return [
        ca.MX.sym("t"),
        ca.MX.sym("q", m.n_q),
        ca.MX.sym("v", m.n_v),
        ca.MX.sym("h"),
        ca.MX.sym("use_curvature"),
        ca.MX.sym("applied", m.n_v),
    ]


class _Rows:
    """The QP's rows at h in m/s, in the order of its multipliers: the linearised equalities,
    the gap rows (off for `released` contacts), with restitution Newton's rows on the impact
    set (off elsewhere), with friction the slip split rows p - n (step/qp_friction.py)."""

    def __init__(
        self, k: StepKernel, args: list, phi: Any, released: Any, dirs: Any = None
    ) -> None:
        t, q, v, h = args[:4]
        m = k.model
        nc = m.n_gap
        self.Phi_v = Phi_v = m.Phi_v(q)
        self.eq_rhs = -(k.equality_bound(q, t, v, h, args[4]) / h + m.Phi_eq_t(q, t))
        inf = ca.inf * ca.DM.ones(nc)
        self.restitution = m.has_restitution
        self.e, self.rate = ca.DM(m.restitution), Phi_v @ v
        self.hit = ca.MX.zeros(nc)
        A = [m.Phi_eq_v(q, t), Phi_v]
        lba, uba = [self.eq_rhs, -inf], [self.eq_rhs, ca.if_else(released > 0, inf, -phi / h)]
        if self.restitution:
            self.hit = impact_set(k, t, q, v, h, args[5])
            A.append(Phi_v)
            lba.append(-inf)
            uba.append(ca.if_else(self.hit, -self.e * self.rate, inf))
        self.cut_start = sum(a.shape[0] for a in A)
        drift = k.offset_drift(q, v, h, args[4]) if k.vector else None
        self.cuts = Cuts(m, q, h, released, drift, use=args[4]) if k.vector else None
        if self.cuts is not None:  # the vector linearisation's cut rows (step/cuts.py)
            self.cut = self.cuts.rows(dirs)
            A.append(self.cut[0])
            lba.append(-ca.inf * ca.DM.ones(self.cut[0].shape[0]))
            uba.append(self.cut[1])
        self.A, self.lba, self.uba = ca.vertcat(*A), ca.vertcat(*lba), ca.vertcat(*uba)
        self.n_contact = self.A.shape[0]  # rows before the friction rows

    def newton(self, v_new: Any) -> Any:
        """Phi_v v + e Phi_v vm on the impact set (m/s; <= 0 when Newton's law holds), else 0."""
        if not self.restitution:
            return ca.MX.zeros(self.Phi_v.shape[0])
        return ca.if_else(self.hit, self.Phi_v @ v_new + self.e * self.rate, 0)


def _one_qp(kernel: StepKernel, plugin: str, friction: Friction) -> ca.Function:
    """One QP: (t, q, v, h, use, applied, normal, fdirs, released[, cuts]) -> ATTEMPT_OUT,
    fdirs of the next round (step/qp_cone.py), released, released + the contacts of induced
    impacts (step/impacts.py)."""
    k, m = kernel, kernel.model
    nc, ne, nv = m.n_gap, m.n_eq, m.n_v
    args = _step_symbols(m)
    t, q, v, h, use, applied = args
    (normal, state), released = _friction_symbols(m), ca.MX.sym("released", nc)
    phi = k.gap_bound(q, v, h, use)
    dirs = ca.MX.sym("cuts", ROWS * n_cone(m), N_CUTS) if k.vector else None
    rows = _Rows(k, args, phi, released, dirs)
    obj = Objective(k, args)
    fr = Tangential(m, q, v, obj.v_free, state) if m.has_friction else None
    nw = fr.nw if fr is not None else 0
    H, g, A = obj.hessian(nw), obj.g, ca.horzcat(rows.A, ca.MX(rows.A.shape[0], nw))
    lba, uba = rows.lba, rows.uba
    lbx, ubx = -ca.inf * ca.DM.ones(nv), ca.inf * ca.DM.ones(nv)
    if fr is not None:
        mu = ca.if_else(ca.vertcat(*fr.slip_m) >= friction.stick_speed, m.mu, m.mu_static)
        bound = friction_bound(mu, normal)
        H, g, lbx, ubx, A, lba, uba = fr.extend((H, g, lbx, ubx, A, lba, uba), h, bound, obj)
    soft = SoftSlacks(k, h, A.shape[0], ne)
    H, g, A, lbx, ubx = soft.extend(H, g, A, lbx, ubx)  # SpringDamperContacts' slacks
    A = obj.unscale(A, nw + soft.n)  # the friction rows too
    qp = qp_solver("step_qp", plugin, H.sparsity(), A.sparsity(), friction=nw > 0)
    # qrqp starts from the active set that lam_x0 marks: no slip (p = n = 0), a regular KKT
    # matrix at once where no ideal joint fixes a slip direction already
    start = fr.active_start(friction.stick_speed) if fr is not None else ca.DM(0, 1)
    lam_x0 = ca.vertcat(ca.DM.zeros(nv), start, ca.DM.zeros(soft.n))
    sol = qp(h=H, g=g, a=A, lba=lba, uba=uba, lbx=lbx, ubx=ubx, lam_x0=lam_x0)
    if soft.n:  # a soft row's gap is a Phi + h Phi_v v - h s (kernel.soft_terms)
        phi = phi - h * k.soft_spread(sol["x"][nv + nw :, 0])
    v_new, y = obj.velocities(sol["x"][:nv, 0]), sol["lam_a"]
    mult = y[: rows.n_contact, 0] / h
    f = Forces(rows, mult, ne, nc, v_new)
    lam, lam_eq = f.lam, f.lam_eq
    fric, generalised, within, miss = ca.MX.zeros(3, nc), ca.MX.zeros(nv, 1), 1, 0
    if fr is not None:
        bias = W_REG * float(np.min(m.masses)) * ca.mmax(sol["x"][nv : nv + nw]) / h
        y_f = y[rows.n_contact :, 0] / h
        fric, generalised, within = fr.forces(y_f, bound, bias, v_new, h)
    K = obj.residual(v_new)
    eom, comp, ok, eom_scale = _checks(k, args, rows, phi, released, v_new, K, f, generalised)
    fdirs, tol = state, k.verification.eom * eom_scale  # fdirs: the next round's polygons
    if fr is not None:
        miss, fdirs = fr.mismatch(y_f, bound, friction_bound(mu, lam), bias, v_new, h, tol)
    q_new, drift = k.update(q, v_new, h)
    total = ca.sum1(q_new) + ca.sum1(v_new) + ca.sum1(mult)
    finite = (total == total) * (ca.fabs(total) < ca.inf)  # false for NaN and inf
    # an infinite residual passes the tolerance tests (inf <= tol * inf); NaN and inf both
    # fail x < inf
    ok = ok * finite * (comp < ca.inf) * (drift < ca.inf) * within
    caught = induced(f.lam_gap, rows.hit, released, m.restitution) if nc else released
    # Coulomb's law at the step's own forces ends the fixed point (NLP path: step/friction.py)
    settled = eom + miss <= tol
    outputs = [q_new, v_new, lam, lam_eq, eom, comp, drift, ok, fric, settled, fdirs]
    outputs += [released, released + caught]
    inputs = [*args, normal, state, released] + ([dirs] if dirs is not None else [])
    return ca.Function("qp_one", inputs, outputs)


def _checks(k, args, rows, phi, released, v_new, K, f, generalised):
    """(|EoM residual| (N), complementarity (N m), the kernel's acceptance of the point, the
    forces at play (N)): the NLP path's units, constraints in m."""
    t, q, v, h = args[:4]
    m = k.model
    lam_gap, lam_rest, lam_eq = f.lam_gap, f.lam_rest, f.lam_eq
    eom = K + rows.Phi_v.T @ f.lam_rows + m.Phi_eq_v(q, t).T @ lam_eq - generalised
    eom = ca.norm_2(eom + f.generalised)  # the cut rows' reaction (0 without)
    eom_scale = k.eom_scale(ca.DM(m.M) @ (v_new - v) / h, K)
    phi_lin = phi + h * rows.Phi_v @ v_new
    gap_rows = ca.if_else(released > 0, 0, phi_lin)  # a released row constrains nothing
    eq_lin = h * (m.Phi_eq_v(q, t) @ v_new - rows.eq_rhs)
    newton = rows.newton(v_new)
    viol = ca.mmax(ca.vertcat(0, gap_rows, ca.fabs(eq_lin), h * newton, f.viol))
    comp = ca.vertcat(0, ca.fabs(lam_gap * gap_rows), ca.fabs(lam_rest * newton), f.comp)
    comp = ca.mmax(comp)
    return eom, comp, k.accepts(viol, eom, eom_scale, comp, f.lam), eom_scale
