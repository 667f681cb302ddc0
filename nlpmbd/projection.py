"""Penetration correction by position projection (no velocity feedback).

The step enforces the linearised gap Phi(qm) + h Phi_v v <= 0 [eq. 24]; the true gap after the
update is then violated by O(h^2 w^2 l) (curvature of the joint geometry). Pushing the bodies
back out through the velocity would add energy, so instead the positions alone are moved by the
smallest mass-weighted displacement dx (6 per body: translation, body-frame rotation vector):

    minimise 1/2 dx^T M dx   subject to   Phi(q) + Phi_v(q) dx <= 0,   Phi_eq,v(q, t) dx = 0,

then q <- q + T(q) dx with the Euler parameters renormalised, repeated (Gauss-Newton) until the
largest true gap is below `tol` (1e-4 of the smallest clearance). Several iterations can be
needed: a radial clearance gap is curved with radius c, and one step can penetrate by several c.
The velocities are not touched, the ideal constraints do not change to first order, and the
kinetic energy is unchanged; only the potential energy moves, by m g times a displacement of
the size of the penetration.
"""

from __future__ import annotations

import casadi as ca
import numpy as np

from .model import SymbolicModel
from .rotation import g_matrix


class GapProjection:
    """Built once per simulation (from `StepProblem`); `apply` corrects one configuration."""

    def __init__(self, model: SymbolicModel, tol: float = 1e-12, max_iter: int = 10) -> None:
        self.model, self.tol, self.max_iter = model, tol, max_iter
        N, nc, ne = model.n_bodies, model.n_gap, model.n_eq
        q = ca.SX.sym("q", 7 * N)
        dx = ca.SX.sym("dx", 6 * N)
        parts = []
        for k in range(N):
            r, p = q[7 * k : 7 * k + 3], q[7 * k + 3 : 7 * k + 7]
            p_new = p + 0.5 * g_matrix(p).T @ dx[6 * k + 3 : 6 * k + 6]
            parts += [r + dx[6 * k : 6 * k + 3], p_new / ca.norm_2(p_new)]
        self._move = ca.Function("move", [q, dx], [ca.vertcat(*parts)])
        sp = {"h": ca.Sparsity.dense(6 * N, 6 * N), "a": ca.Sparsity.dense(nc + ne, 6 * N)}
        # qrqp (CasADi's own active-set QP) copes with the rank-deficient active sets of
        # redundant contacts (e.g. several slider vertices on one face)
        self._qp = ca.conic(
            "gap_projection",
            "qrqp",
            sp,
            {
                "print_iter": False,
                "print_header": False,
                "print_info": False,
                "error_on_fail": False,
            },
        )
        self._H = model.M
        self._lba = np.concatenate([np.full(nc, -np.inf), np.zeros(ne)])

    def apply(self, q: np.ndarray, t: float) -> tuple[np.ndarray, bool]:
        """Return (corrected q, success). Does nothing when no gap is violated."""
        m = self.model
        for _ in range(self.max_iter):
            phi = np.asarray(m.Phi(q)).ravel()
            if phi.size == 0 or phi.max() <= self.tol:
                return q, True
            A = np.vstack([np.asarray(m.Phi_v(q)), np.asarray(m.Phi_eq_v(q, t))])
            uba = np.concatenate([-phi, np.zeros(m.n_eq)])
            sol = self._qp(h=self._H, g=np.zeros(self._H.shape[0]), a=A, lba=self._lba, uba=uba)
            if not self._qp.stats().get("success", False):
                return q, False
            q = np.asarray(self._move(q, sol["x"])).ravel()
        phi = np.asarray(m.Phi(q)).ravel()
        return q, bool(phi.max() <= self.tol)
