"""The QP step's objective (step/qp_graph.py) in scaled unknowns u, v = T u.

Rigid bodies: 1/2 (v - v_free)^T M (v - v_free), v_free = vm + h M^-1 (Q - S), in u = R v
(M = R^T R, model/mass.py): the Hessian is I, whose factorisation by the solver is trivial.
Flexible bodies' nodes (docs/FORMULATION.md section 17): their internal forces are implicit in
v, so their block is 1/2 v^T A v + b^T v with A = M + h C + h^2 K_s and
b = -(M vm + h (Q - K_s (xm - X))): its stationarity is the nodes' equations of motion times h.
Friction's split variables follow with the small curvature W_REG m_min (step/qp_friction.py),
then the compliant rows' slacks (step/rows/compliant.py).
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
