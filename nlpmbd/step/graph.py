"""The CasADi graph of the per-step NLP (built once per simulation by NLPStep).

Implicit form: minimise c K^T M^-1 K - w_h s over x = (s, q_dot), K = M (v - vm) / h + S - Q_A
[eq. 26], subject to the linearised rows of the StepKernel; its KKT conditions are the v-space
equations of motion, with forces lambda = h^2 y / (2 c) from the rows' multipliers y
(docs/FORMULATION.md section 8). MPCC form: the paper's NLP [eq. 25], lambda explicit, the equations
of motion as rows and Scholtes-relaxed complementarity lambda_j (-Phi_lin_j) <= sigma.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import casadi as ca
import numpy as np

from ..model.rotation import g_matrix
from .config import Formulation, Friction
from .elastic import elastic, gauss
from .impacts import impact_set, induced
from .kernel import StepKernel
from .layout import Layout, named_function
from .nlp_layout import nlp_layouts
from .rows import compliant, joint_friction


@dataclass(frozen=True)
class NLPGraph:
    """The NLP's symbols and the Functions evaluated around each solve."""

    x: ca.SX
    p: ca.SX
    f: ca.SX
    g: ca.SX
    lbg: np.ndarray
    ubg: np.ndarray
    layout_p: Layout
    layout_x: Layout
    layout_g: Layout
    objective_scale: float  # c: the Gauss objective is c K^T M^-1 K
    eq_rho: float  # the equality rows' compliance rho (step/dependent.py), 0: rigid rows
    row_scale: float  # rs: the rows in metres are multiplied by it
    rows: ca.Function  # (P, x) -> g
    #: (P, x, y, y_eq) -> q, v [eq. 22], lam, lam_eq, eom (|EoM residual|), comp, drift
    #: (|p'p - 1|), friction (3, M), eom_scale (kernel.eom_scale), by name
    post: ca.Function
    lagrangian_gradient: ca.Function  # (P, x, lam_g) -> grad: d/dx (f + lam_g^T g)
    impacts: ca.Function  # (qm, vm, h) -> hit: 1 on the impact set (step/impacts.py)
    induced: ca.Function  # (lam, hit, released) -> induced: 1 on them (step/impacts.py)
    n_bodies: int
    n_v: int

    def multipliers(self, lam_g: Any) -> dict[str, Any]:
        """post's inputs y (the contact rows' multipliers: gaps then restitution) and y_eq (the
        equality rows')."""
        lay = self.layout_g
        return {"y": lam_g[lay["gap"].start : lay["restitution"].stop], "y_eq": lam_g[lay["eq"]]}

    def cold_point(self, qm: np.ndarray, vm: np.ndarray) -> np.ndarray:
        """h = h_max and q_dot from the previous velocities; zero multipliers."""
        N = self.n_bodies
        qd = np.zeros(7 * N)
        for k in range(N):
            p = qm[7 * k + 3 : 7 * k + 7]
            qd[7 * k : 7 * k + 3] = vm[6 * k : 6 * k + 3]
            qd[7 * k + 3 : 7 * k + 7] = 0.5 * g_matrix(p).T @ vm[6 * k + 3 : 6 * k + 6]
        nodes = vm[6 * N : self.n_v]  # a node's q_dot is its velocity
        extra = np.zeros(self.layout_x.size - 1 - 7 * N - nodes.size)
        return np.concatenate([[1.0], qd, nodes, extra])


def _velocities(qm: ca.SX, qd: ca.SX, h: ca.SX, N: int) -> tuple[ca.SX, list]:
    """v(q_dot) with G at the previous step [eq. 22c] and the linearised norm rows [eq. 23]."""
    blocks, norm_rows = [], []
    for k in range(N):
        pm, pd = qm[7 * k + 3 : 7 * k + 7], qd[7 * k + 3 : 7 * k + 7]
        blocks += [qd[7 * k : 7 * k + 3], 2 * g_matrix(pm) @ pd]
        norm_rows.append(ca.dot(pm, pm) - 1 + 2 * h * ca.dot(pm, pd))
    if qd.shape[0] > 7 * N:  # the nodes of flexible bodies: v = q_dot
        blocks.append(qd[7 * N :])
    return ca.vertcat(*blocks), norm_rows


class _Terms:
    """The symbolic quantities of one NLP, built in the order of docs/FORMULATION.md section 4."""

    def __init__(self, kernel: StepKernel, h_max: float, mpcc: bool) -> None:
        m = kernel.model
        n_soft = int(np.count_nonzero(kernel.soft))
        self.lay_p, self.lay_x, self.lay_g = nlp_layouts(m, mpcc, kernel.eq_rho, n_soft)
        self.P = ca.SX.sym("P", self.lay_p.size)
        self.x = ca.SX.sym("x", self.lay_x.size)
        p, x = self.lay_p.split(self.P), self.lay_x.split(self.x)
        self.t, self.qm, self.vm, self.use_curv = p["t"], p["q"], p["v"], p["use_curvature"]
        self.normal, self.applied = p["friction_normal"], p["applied"]
        self.s, self.qd, self.z, self.sigma = x["s"], x["qd"], x["z"], x["sigma"]
        self.lam, self.lam_eq = x["lam"], x["lam_eq"]
        self.h = h = self.s * h_max
        self.h_max = h_max
        self.v, self.norm_rows = _velocities(self.qm, self.qd, h, m.n_bodies)
        self.M = m.M_sparse
        t, qm, vm, v = self.t, self.qm, self.vm, self.v
        a = kernel.kick  # 1, or 1/2 in the first stage of the second-order scheme (verlet.py)
        self.K = self.M @ (v - vm) / h + a * m.S(qm, vm) - a * m.Q(t, qm, vm)  # [eq. 26]
        if m.n_compliant:
            self.K = self.K - a * self.applied
        if m.flexible:  # internal forces implicit in v (docs/FORMULATION.md section 17)
            self.K = self.K + m.internal(qm, v, h)
        self.Phi_v, self.Phi_eq_v = m.Phi_v(qm), m.Phi_eq_v(qm, t)
        self.Phi_lin = kernel.gap_rows(qm, vm, h, v, self.use_curv)  # [eq. 24]
        #: the gaps' force directions in the equations of motion (Phi_v but for vector rows)
        self.G = self.Phi_v
        if kernel.vector:
            self.Phi_lin, self.G = kernel.vector_rows(qm, vm, h, v, self.use_curv)
        if kernel.has_soft:  # compliant rows a Phi + h Phi_v v - k lambda <= 0 (rows/compliant)
            self.Phi_lin = self.Phi_lin - compliant.nlp_give(kernel, h, self.lam, self.sigma, mpcc)
        # compliant equalities (step/dependent.py): a row yields k lambda, k = rho h^2 (m)
        self.give = x["give"]  # that over h (m/s): its cost's gradient then scales as K's
        give = kernel.eq_rho * h**2 * self.lam_eq if mpcc else h * self.give
        self.eq_lin = kernel.equality_rows(qm, t, vm, h, v, self.use_curv, give)
        self.rate_m = self.Phi_v @ vm
        self.rest = self.Phi_v @ v + ca.DM(m.restitution) * self.rate_m
        # Gauss objective [eqs. 17-19], scaled by c so that its size does not depend on units
        # and by (h_max / 1 ms)^2 below 1 ms: the Hessian 2c M / h^2 would otherwise be huge
        # for small steps (1e8 at h = 1e-5 s), which stalls IPOPT's inertia correction
        self.c = min(1.0, (h_max / 1e-3) ** 2) / max(float(np.sum(m.masses)) * 9.81**2, 1e-12)
        # rows in metres are O(h): below 1 ms they are scaled up to the size they have at 1 ms,
        # or IPOPT sees their tiny gradients as rank deficiency (stuck primal infeasibility)
        self.rs = max(1.0, 1e-3 / h_max)


def _friction(
    kernel: StepKernel, T: _Terms, settings: Friction, f: ca.SX
) -> tuple[ca.SX, ca.SX, ca.SX]:
    """f plus each contact's Tresca term (its friction row's nlp_term, step/rows/base.py), the
    QP's h g |D v| scaled like the Gauss term; the friction forces (3, M), size g_j against the
    slip, and their generalised force (6N)."""
    m = kernel.model
    nc = m.n_gap
    qm, vm, v, h, c, normal = T.qm, T.vm, T.v, T.h, T.c, T.normal
    force, generalised = ca.SX(3, nc), ca.SX.zeros(m.n_v, 1)
    slip = m.slip(qm)
    D = [slip[3 * j : 3 * j + 3, :] for j in range(nc)]
    slip_m = ca.vertcat(*(ca.norm_2(Dj @ vm) for Dj in D))
    mu = kernel.friction_coefficient(slip_m, settings.stick_speed)
    for j, (Dj, row) in enumerate(zip(D, kernel.rows.friction, strict=True)):
        cost, beta = row.nlp_term(c, h, mu[j] * normal[j], Dj @ v, settings.creep)
        f = f + cost
        force[:, j] = -beta
        generalised = generalised + Dj.T @ beta
    return f, force, generalised


def _rows(T: _Terms, m: Any, mpcc: bool, sigma: float) -> tuple[ca.SX, np.ndarray, np.ndarray]:
    """g with its bounds, in the order of layout g."""
    N, nc, ne = m.n_bodies, m.n_gap, m.n_eq
    rs = T.rs
    g_parts = [rs * ca.vertcat(*T.norm_rows), rs * T.eq_lin, rs * T.Phi_lin]
    lbg = [np.zeros(N), np.zeros(ne), np.full(nc, -np.inf)]
    ubg = [np.zeros(N), np.zeros(ne), np.zeros(nc)]
    if m.has_restitution:  # Newton restitution rows Phi_v v <= -e Phi_v vm, opened per step
        g_parts.append(T.rest)
        lbg.append(np.full(nc, -np.inf))
        ubg.append(np.full(nc, np.inf))
    if T.z.shape[0]:
        _, elastic_rows, _ = elastic(m, T.K, T.z, T.h, T.h_max)
        g_parts.append(elastic_rows)
        lbg.append(np.zeros(T.z.shape[0]))
        ubg.append(np.zeros(T.z.shape[0]))
    if mpcc:
        eom = T.K + T.G.T @ T.lam + T.Phi_eq_v.T @ T.lam_eq  # equations of motion [eq. 25]
        g_parts += [eom, -T.lam * T.Phi_lin]  # Scholtes: lam_j (-Phi_lin_j) <= sigma
        lbg += [np.zeros(m.n_v), np.full(nc, -np.inf)]
        ubg += [np.zeros(m.n_v), np.full(nc, sigma)]
    return ca.vertcat(*g_parts), np.concatenate(lbg), np.concatenate(ubg)


def _post(kernel: StepKernel, T: _Terms, mpcc: bool, fr_gen: ca.SX, fr_force: ca.SX) -> ca.Function:
    """(P, x, y, y_eq) -> update [eq. 22], forces, residuals, from the same graph."""
    m = kernel.model
    nc, ne = m.n_gap, m.n_eq
    nr = nc if m.has_restitution else 0
    h, c, rs = T.h, T.c, T.rs
    lam_out, lam_eq_out = T.lam, T.lam_eq
    lam_gap_out = T.lam
    comp_parts = [T.lam * T.Phi_lin] if (nc and mpcc) else []
    if not mpcc:
        # KKT of the implicit form in v: (2c/h) K + h Phi_v^T y + h Phi_eq_v^T y_eq = 0 with y
        # the rows' multipliers, so the forces are lambda = h^2 y / (2c) (docs/FORMULATION.md 8)
        y = ca.SX.sym("y", nc + nr)
        y_eq = ca.SX.sym("y_eq", ne)
        rows = Layout([("gap", nc), ("restitution", nr)]).split(y)  # as in `multipliers`
        lam_gap = rs * h**2 * rows["gap"] / (2 * c)
        lam_out, lam_eq_out = lam_gap, rs * h**2 * y_eq / (2 * c)
        lam_gap_out = lam_gap
        comp_parts = [lam_gap * T.Phi_lin]
        if nr:  # a restitution row's force adds to its contact's normal force
            lam_rest = h * rows["restitution"] / (2 * c)  # in m/s: gradient Phi_v, not h Phi_v
            lam_out = lam_gap + lam_rest
            comp_parts.append(lam_rest * T.rest)
        mult_in = {"y": y, "y_eq": y_eq}
    else:
        mult_in = {"y": ca.SX.sym("unused_y", nc), "y_eq": ca.SX.sym("unused_y_eq", ne)}
    eom_res = T.K + T.Phi_v.T @ lam_out + T.Phi_eq_v.T @ lam_eq_out + fr_gen
    if kernel.vector:  # the gap rows' forces act along G, a restitution row's along Phi_v
        eom_res = eom_res + (T.G - T.Phi_v).T @ lam_gap_out
    eom_scale = kernel.eom_scale(T.M @ (T.v - T.vm) / h, T.K)
    q_new, drift = kernel.normalized(T.qm + h * T.qd)
    comp = ca.mmax(ca.fabs(ca.vertcat(*comp_parts))) if nc else ca.SX(0)
    outputs = {"q": q_new, "v": T.v, "lam": lam_out, "lam_eq": lam_eq_out}
    outputs.update(eom=ca.norm_2(eom_res), comp=comp, drift=drift, friction=fr_force)
    outputs["eom_scale"] = eom_scale
    return named_function("post", {"P": T.P, "x": T.x, **mult_in}, outputs)


def build_graph(
    kernel: StepKernel,
    h_max: float,
    formulation: Formulation,
    h_preference: float,
    sigma: float,
    friction: Friction,
) -> NLPGraph:
    m = kernel.model
    mpcc = formulation is Formulation.MPCC
    T = _Terms(kernel, h_max, mpcc)
    f = gauss(m, T.K, T.z, T.h, T.c, h_max) - h_preference * T.s
    if T.sigma.shape[0]:  # sigma = k lambda at the optimum (rows/compliant.py)
        f = f + compliant.nlp_cost(kernel, T.c, T.h, T.sigma)
    if T.give.shape[0]:  # give = k lambda / h at the optimum: c give^2 / k, k = rho h^2
        f = f + T.c * ca.sumsqr(T.give) / (kernel.eq_rho * T.h**2)
    fr_force, fr_gen = ca.SX(3, m.n_gap), ca.SX.zeros(m.n_v, 1)
    if m.has_friction:
        f, fr_force, fr_gen = _friction(kernel, T, friction, f)
    if m.joint_friction.n:  # friction inside joints (step/rows/joint_friction.py)
        part = joint_friction.share(kernel.kick, T.use_curv)
        cost, resisting = joint_friction.nlp_terms(m, T.qm, T.v, T.c, T.h, friction.creep, part)
        f, fr_gen = f + cost, fr_gen + resisting
    g, lbg, ubg = _rows(T, m, mpcc, sigma)
    lam_g = ca.SX.sym("lam_g", g.shape[0])
    h = ca.SX.sym("h")
    lam, hit, released = (ca.SX.sym(k, m.n_gap) for k in ("lam", "hit", "released"))
    rest = m.has_restitution  # else no rows to switch: empty outputs
    applied = T.applied if m.n_compliant else None
    impacts = impact_set(kernel, T.t, T.qm, T.vm, h, applied) if rest else 0
    more = {"induced": induced(lam, hit, released, m.restitution) if rest else 0}
    px, grad = {"P": T.P, "x": T.x}, ca.gradient(f + ca.dot(lam_g, g), T.x)
    return NLPGraph(
        x=T.x,
        p=T.P,
        f=f,
        g=g,
        lbg=lbg,
        ubg=ubg,
        layout_p=T.lay_p,
        layout_x=T.lay_x,
        layout_g=T.lay_g,
        objective_scale=T.c,
        eq_rho=kernel.eq_rho,
        row_scale=T.rs,
        rows=named_function("g", px, {"g": g}),
        post=_post(kernel, T, mpcc, fr_gen, fr_force),
        lagrangian_gradient=named_function("grad_L", {**px, "lam_g": lam_g}, {"grad": grad}),
        impacts=named_function("impact_set", {"P": T.P, "h": h}, {"hit": impacts}),
        induced=named_function("induced", {"lam": lam, "hit": hit, "released": released}, more),
        n_bodies=m.n_bodies,
        n_v=m.n_v,
    )
