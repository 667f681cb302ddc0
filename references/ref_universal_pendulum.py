"""Independent reference for a rigid body hanging from the ground on a universal joint (the
joint of issue 15's spatial slider-crank), in minimal coordinates. CasADi is used only as a
calculator for the Lagrangian's derivatives; nothing of nlpmbd is imported.

The system: the joint centre at the origin; the ground's pin axis is global X, the body's pin
axis is its own Y (global Y in the reference pose). Cardan angles (alpha, beta): the body's
rotation R = Rx(alpha) Ry(beta), so its angular velocity in body axes is
w' = (alpha' cos beta, beta', alpha' sin beta). The centre of mass sits at (0, 0, -L) in body
axes (below the joint in the reference pose); mass m, principal inertia (Ixx, Iyy, Izz) about
it; gravity g along -Z. With T = m |r'|^2 / 2 + w'^T I w' / 2 and V = m g r_z, Lagrange's
equations M(q) q'' = dL/dq - (d^2 L / dq' dq) q' are integrated by scipy (rtol 1e-12).
"""

from __future__ import annotations

import casadi as ca
import numpy as np
from scipy.integrate import solve_ivp


def rotation(alpha: float, beta: float) -> np.ndarray:
    ca_, sa, cb, sb = np.cos(alpha), np.sin(alpha), np.cos(beta), np.sin(beta)
    rx = np.array([[1, 0, 0], [0, ca_, -sa], [0, sa, ca_]])
    ry = np.array([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    return rx @ ry


def angles(R: np.ndarray) -> tuple[float, float]:
    """(alpha, beta) of R = Rx(alpha) Ry(beta): R e_y = (0, cos a, sin a), R[0] = (cb, 0, sb)."""
    return float(np.arctan2(R[2, 1], R[1, 1])), float(np.arctan2(R[0, 2], R[0, 0]))


def _rhs(m: float, L: float, inertia: tuple, g: float) -> ca.Function:
    q, qd = ca.SX.sym("q", 2), ca.SX.sym("qd", 2)
    a, b = q[0], q[1]
    rx = ca.vertcat(ca.horzcat(1, 0, 0), ca.horzcat(0, ca.cos(a), -ca.sin(a)),
                    ca.horzcat(0, ca.sin(a), ca.cos(a)))  # fmt: skip
    ry = ca.vertcat(ca.horzcat(ca.cos(b), 0, ca.sin(b)), ca.horzcat(0, 1, 0),
                    ca.horzcat(-ca.sin(b), 0, ca.cos(b)))  # fmt: skip
    r = rx @ ry @ ca.DM([0, 0, -L])
    rd = ca.jtimes(r, q, qd)
    w = ca.vertcat(qd[0] * ca.cos(b), qd[1], qd[0] * ca.sin(b))
    T = 0.5 * m * ca.dot(rd, rd) + 0.5 * ca.dot(w, ca.diag(ca.DM(inertia)) @ w)
    Lag = T - m * g * r[2]
    M = ca.hessian(Lag, qd)[0]
    dLdq = ca.gradient(Lag, q)
    mixed = ca.jacobian(ca.gradient(Lag, qd), q)
    qdd = ca.solve(M, dLdq - mixed @ qd)
    return ca.Function("rhs", [q, qd], [qdd])


def simulate_reference(
    m: float, L: float, inertia: tuple, g: float, q0: tuple, t: np.ndarray
) -> np.ndarray:
    """(alpha, beta) at the times t, from rest at q0 = (alpha0, beta0); shape (len(t), 2)."""
    f = _rhs(m, L, inertia, g)

    def rhs(_, y):
        return np.concatenate([y[2:], np.asarray(f(y[:2], y[2:])).ravel()])

    y0 = np.array([q0[0], q0[1], 0.0, 0.0])
    sol = solve_ivp(rhs, (t[0], t[-1]), y0, t_eval=t, rtol=1e-12, atol=1e-12, method="DOP853")
    return sol.y[:2].T
