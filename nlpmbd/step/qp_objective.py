"""The QP step's objective (step/qp_graph.py) in scaled unknowns u, v = T u.

Rigid bodies: 1/2 (v - v_free)^T M (v - v_free), v_free = vm + h M^-1 (Q - S), in u = R v
(M = R^T R, model/mass.py): the Hessian is I, whose factorisation by the solver is trivial.
Flexible bodies' nodes (docs/FORMULATION.md section 17): their internal forces are implicit in
v, so their block is 1/2 v^T A v + b^T v with A = M + h C + h^2 K_s and
b = -(M vm + h (Q - K_s (xm - X))): its stationarity is the nodes' equations of motion times h.
Friction's split variables follow with the small curvature W_REG m_min (step/qp_friction.py).
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from ..model.mass import mass_factor
from .qp_friction import W_REG


class Objective:
    """H, g and T (v = T u) of one QP, and the EoM residual K of its solution."""

    def __init__(self, kernel: Any, args: dict) -> None:
        """`args`: the step's t, q, v, h and applied force by name (step/qp_graph.py)."""
        t, q, v, h, applied = (args[k] for k in ("t", "q", "v", "h", "applied"))
        m = self.m = kernel.model
        nr = 6 * m.n_bodies
        force = m.Q(t, q, v) + applied - m.S(q, v)
        if m.flexible:  # explicit only in the free velocity, which orients friction tangents
            force_free = force - m.internal(q, v, 0)
        else:
            force_free = force
        #: the free motion (no contact, joint or friction forces), explicit in the nodes
        self.v_free = v + kernel.kick * h * m.M_inv @ force_free
        R, R_inv = mass_factor(m.M[:nr, :nr])
        self.h = h
        g = [-R @ (self.v_free[:nr] if m.flexible else self.v_free)]
        blocks = [ca.DM.eye(nr)]
        self.T = [R_inv]
        if m.flexible:
            M, C, K = (ca.DM(a)[nr:, nr:] for a in (m.M, m.damping, m.stiffness))
            self.A = M + h * C + h**2 * K
            self.b = -(M @ v[nr:] + h * (force[nr:] - K @ m.deformation(q)[nr:]))
            blocks.append(self.A)
            g.append(self.b)
            self.T.append(ca.DM.eye(2 * m.n_nodes))
        self.blocks = blocks
        self.g = ca.vertcat(*g)
        self.nr = nr

    def hessian(self, nw: int) -> Any:
        """H, with nw friction split variables after the velocities."""
        return ca.diagcat(*self.blocks, W_REG * float(np.min(self.m.masses)) * ca.DM.eye(nw))

    def unscale(self, A: Any, nw: int) -> Any:
        """Rows A (in v and the split variables) in u."""
        return A @ ca.diagcat(*self.T, ca.DM.eye(nw))

    def velocities(self, u: Any) -> Any:
        """v from the solution's u."""
        return (self.T[0] if len(self.T) == 1 else ca.diagcat(*self.T)) @ u

    def residual(self, v_new: Any) -> Any:
        """K of the EoM (N): M (v - v_free) / h, and the nodes' (A v + b) / h."""
        nr, h = self.nr, self.h
        M = ca.sparsify(ca.DM(self.m.M[:nr, :nr]))
        if not self.m.flexible:
            return M @ (v_new - self.v_free) / h
        K = M @ (v_new[:nr] - self.v_free[:nr]) / h
        return ca.vertcat(K, (self.A @ v_new[nr:] + self.b) / h)


class SoftSlacks:
    """The slack variables s of the QP's compliant rows, after the velocities and the friction
    split variables. The compliant gap rows (step/rows/base.py; SpringDamperContacts') first:
    row j reads Phi_v v - s_j <= -a Phi / h (m/s), s_j costs w s_j^2 / 2 (GapRow.slack_weight),
    so that at the optimum h s_j = k lambda_j (the row's multiplier is h lambda_j). Then, in a
    system whose equalities are dependent (kernel.eq_rho > 0, step/dependent.py), one per
    equality row, costing s^2 / (2 rho): the rows' dual regularisation."""

    def __init__(self, kernel: Any, h: Any, n_rows: int, gap_start: int) -> None:
        m = kernel.model
        self.index = np.flatnonzero(kernel.soft) if kernel.has_soft else np.zeros(0, dtype=int)
        ns = int(self.index.size)
        ne = m.n_eq if kernel.eq_rho > 0 else 0
        self.n = ns + ne
        cols = np.zeros((n_rows, self.n))
        cols[gap_start + self.index, np.arange(ns)] = -1.0
        cols[np.arange(ne), ns + np.arange(ne)] = -1.0  # the equality rows come first
        self.columns = ca.sparsify(ca.DM(cols))
        weights = [ca.diag(kernel.rows.slack_weights(h))] if ns else []
        if ne:
            weights.append(ca.DM.eye(ne) / kernel.eq_rho)
        self.weight = ca.diagcat(*weights) if weights else ca.DM(0, 0)

    def extend(self, qp: dict) -> dict:
        """The QP's H, g, A, lbx, ubx (by name) with the slacks' block (unbounded, cost
        weight); lba, uba as they are."""
        if not self.n:
            return qp
        free = ca.inf * ca.DM.ones(self.n)
        return {
            **qp,
            "H": ca.diagcat(qp["H"], self.weight),
            "g": ca.vertcat(qp["g"], ca.DM.zeros(self.n)),
            "A": ca.horzcat(qp["A"], self.columns),
            "lbx": ca.vertcat(qp["lbx"], -free),
            "ubx": ca.vertcat(qp["ubx"], free),
        }
