"""Penetration correction by position projection (no velocity feedback).

The step enforces the linearised gap Phi(qm) + h Phi_v v <= 0 [eq. 24]; the true gap after the
update is then violated by O(h^2 w^2 l) (curvature of the joint geometry). Pushing the bodies
back out through the velocity would add energy, so instead the positions alone are moved by the
smallest mass-weighted displacement dx (6 per body: translation, body-frame rotation vector):

    minimise 1/2 dx^T M dx   subject to   Phi(q (+) dx) <= 0,   Phi_eq,v(q, t) dx = 0,

where q (+) dx moves r by dx and p by 1/2 G(p)^T dx_rot, then renormalises p. The velocities are
not touched, the ideal constraints do not change to first order, and the kinetic energy is
unchanged; only the potential energy moves, by m g times a displacement of the size of the
penetration. The target is max Phi <= 1e-4 of the smallest clearance.

Fast path: Gauss-Newton on the linearised constraints, one QP per iteration (DAQP, a dual
active-set method that copes with the rank-deficient active sets of redundant contacts; the
constraint Jacobians keep their own sparsity); it converges in one to three
iterations in sustained contact. Where many gaps are violated at once it zigzags (a radial gap
is curved with radius c, and the mass-weighted displacement can be a rotation about a
low-inertia axis): a 32-link chain with 27 violated pins needs up to 13 iterations, so it is
given 12 (with 5, 10% of its steps went on to IPOPT at ~1 s each). When it does not converge,
the exact problem is solved by IPOPT from the original q, scaled by the clearance (dx = c y)
so its numbers are O(1).
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from ..model.kinematics import advance
from ..model.mass import mass_factor
from ..model.symbolic import SymbolicModel
from .ipopt_options import NO_OPTIONS_FILE

#: DAQP (a dual active-set method, compiled with the chunks): its cost grows like that of the
#: step QP's (step/qp_graph.py), where qrqp's sparse QR grows as N^3 (issue 15's chain)
_QP = {"error_on_fail": False, "daqp": {"primal_tol": 1e-12, "dual_tol": 1e-12}}
_QUIET_NLP = {
    "print_time": False,
    "error_on_fail": False,
    "ipopt.print_level": 0,
    "ipopt.sb": "yes",
    "ipopt.tol": 1e-10,
    "ipopt.bound_relax_factor": 0.0,
    "ipopt.max_iter": 100,
    **NO_OPTIONS_FILE,
}


#: Gauss-Newton iterations before IPOPT (module docstring: a 32-link chain needs up to 13)
MAX_ITER = 12


def _rows(f: ca.Function, nq: int, rows: np.ndarray | None) -> ca.Function:
    """f (gaps, or their Jacobian) restricted to `rows` (None: f itself)."""
    if rows is None:
        return f
    q = ca.SX.sym("q", nq)
    return ca.Function(f.name(), [q], [f(q)[rows.tolist(), :]])


def _moved(q: Any, dx: Any, n_rigid: int) -> Any:
    """q moved by dx (model/kinematics.py, advance; its drift is not needed here)."""
    q_new, _ = advance(q, dx, n_rigid=n_rigid)
    return q_new


class GapProjection:
    """Built once per simulation (by the StepKernel); `apply` corrects one configuration.
    `gauss_newton` is the fast path as one CasADi Function (the QP fast path evaluates it inside
    its chunks)."""

    def __init__(self, model: SymbolicModel, clearance: float, rows: Any = None) -> None:
        """`clearance`: the smallest clearance of the system (m); `rows`: the gaps to project
        (None: all; compliant gaps penetrate by design)."""
        self.model, self.max_iter = model, MAX_ITER
        self._phi = phi = _rows(model.Phi, model.n_q, rows)
        phi_v = _rows(model.Phi_v, model.n_q, rows)
        self.tol, self.nlp_solves = 1e-4 * clearance, 0
        N, nc, ne, nv = model.n_bodies, phi.numel_out(0), model.n_eq, model.n_v
        q, t = ca.MX.sym("q", model.n_q), ca.MX.sym("t")
        dx = ca.MX.sym("dx", nv)
        self._move = ca.Function("move", [q, dx], [_moved(q, dx, N)])
        lba = ca.vertcat(-ca.inf * ca.DM.ones(nc), ca.DM.zeros(ne))
        # in u = R dx (M = R^T R): H = I, whose factorisation by DAQP is trivial
        _, R_inv = mass_factor(model.M, 6 * N)
        A = ca.vertcat(phi_v(q), model.Phi_eq_v(q, t)) @ R_inv
        qp = ca.conic(
            "gap_projection", "daqp", {"h": ca.DM.eye(nv).sparsity(), "a": A.sparsity()}, _QP
        )
        # in units of the clearance (dx = c R^-1 y): the target here is 1e-4 c, and the
        # solver's tolerances are absolute
        sol = qp(
            h=ca.DM.eye(nv),
            g=ca.DM.zeros(nv),
            a=A,
            lba=lba,
            uba=ca.vertcat(-phi(q) / clearance, ca.DM.zeros(ne)),
        )
        # CasADi's Function.if_else (a switch) evaluates only the branch taken: an iteration
        # costs nothing once the gaps are within tolerance
        iterate = ca.Function.if_else(
            "gauss_newton_iteration",
            ca.Function("gn", [q, t], [_moved(q, clearance * R_inv @ sol["x"], N)]),
            ca.Function("keep", [q, t], [q]),
        )
        qk, n_qp = q, ca.MX(0)
        for _ in range(MAX_ITER):
            violated = ca.mmax(phi(qk)) > self.tol
            qk = iterate(violated, qk, t)
            n_qp = n_qp + violated
        ok = ca.mmax(phi(qk)) <= self.tol
        self.gauss_newton = ca.Function(
            "gauss_newton", [q, t], [qk, ok, n_qp], ["q", "t"], ["q_new", "ok", "n_qp"]
        )
        # the exact problem in units of the clearance; aim at Phi <= -tol/2 to pass the check
        self._c = clearance
        qs, ts, dxs = ca.SX.sym("q", model.n_q), ca.SX.sym("t"), ca.SX.sym("dx", nv)
        nlp = {
            "x": dxs,
            "p": ca.vertcat(qs, ts),
            "f": 0.5 * ca.dot(dxs, model.M_sparse @ dxs),
            "g": ca.vertcat(
                phi(_moved(qs, clearance * dxs, N)) / clearance,
                model.Phi_eq_v(qs, ts) @ dxs,
            ),
        }
        self._nlp = ca.nlpsol("gap_projection_nlp", "ipopt", nlp, _QUIET_NLP)
        self._lbg = np.concatenate([np.full(nc, -np.inf), np.zeros(ne)])
        self._ubg = np.concatenate([np.full(nc, -0.5e-4), np.zeros(ne)])

    def counters(self) -> dict[str, int]:
        return {"projection_nlp_solves": self.nlp_solves}

    def apply(self, q: np.ndarray, t: float) -> tuple[np.ndarray, bool]:
        """Return (corrected q, success). Does nothing when no gap is violated."""
        gn = self.gauss_newton(q=q, t=t)
        q1, ok = gn["q_new"], gn["ok"]
        if float(ok):
            return np.asarray(q1).ravel(), True
        self.nlp_solves += 1
        sol = self._nlp(
            x0=np.zeros(self.model.M.shape[0]), p=np.r_[q, t], lbg=self._lbg, ubg=self._ubg
        )
        q2 = np.asarray(self._move(q, self._c * sol["x"])).ravel()
        if np.asarray(self._phi(q2)).max(initial=-np.inf) <= self.tol:
            return q2, True
        return np.asarray(q1).ravel(), False
