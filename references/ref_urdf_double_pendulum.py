"""Independent reference for the double pendulum of example-robot-data's
`double_pendulum_continuous.urdf` (tests/model_files/urdf/), in minimal coordinates; nothing of
nlpmbd is imported and the numbers are typed in from the URDF.

Both joints turn about the x axis of their links, and at the zero pose all link frames are the
global frame, so the motion is planar in (y, z): with the joint angles q = (q1, q2) (q2 of link2
relative to link1) and R(a) the rotation by a about x,

    c_1 = J_1 + R(q1) s_1,    c_2 = J_1 + R(q1) d + R(q1 + q2) s_2

(J_1 joint1's origin, d joint2's origin in link1, s_k the centres of mass in their links; only
their y, z parts matter). The angular velocities are q1' and q1' + q2' along x, so the kinetic
energy sees only each link's Ixx (the products of inertia are carried by the joints). Each
joint's <dynamics> damping b gives the generalised force -b q_k'. With a term R(a . q) v of a
centre of mass, its Jacobian is R S v a^T (S the quarter turn) and its velocity-product
acceleration -(a . q')^2 R v, so Newton-Euler in minimal coordinates reads

    sum_k [m_k J_k^T J_k + I_k a_k a_k^T] q'' = sum_k m_k J_k^T (g - b_k(q, q')) - b q',

integrated by scipy's DOP853 with rtol = atol = 1e-12. Gravity g = (0, -9.81) in (y, z).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

#: From the URDF: (y, z) parts of the origins and inertial origins, masses, Ixx, damping.
J1 = np.array([0.0, 0.035])
D = np.array([0.0, 0.1])
S1 = np.array([2.1727e-06, 0.036012])
S2 = np.array([1.9371e-10, 0.10088])
MASS = (0.26703, 0.33238)
IXX = (0.00040827, 0.0011753)
DAMPING = 0.05
G = np.array([0.0, -9.81])
#: Which joint angles each rotated vector turns with.
A1, A2 = np.array([1.0, 0.0]), np.array([1.0, 1.0])


def _rot(a: float) -> np.ndarray:
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


_S = np.array([[0.0, -1.0], [1.0, 0.0]])


def _terms(q: np.ndarray) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """Per link: its centre of mass as rotated vectors (R(a . q) v, a)."""
    return [
        [(_rot(A1 @ q) @ S1, A1)],
        [(_rot(A1 @ q) @ D, A1), (_rot(A2 @ q) @ S2, A2)],
    ]


def centres(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(y, z) of the two centres of mass at the joint angles q."""
    c1, c2 = (J1 + sum(rv for rv, _ in link) for link in _terms(q))
    return c1, c2


def rhs(t: float, y: np.ndarray) -> np.ndarray:
    q, w = y[:2], y[2:]
    M = np.zeros((2, 2))
    f = -DAMPING * w
    for mass, ixx, a_omega, link in zip(MASS, IXX, (A1, A2), _terms(q), strict=True):
        J = sum(np.outer(_S @ rv, a) for rv, a in link)
        bias = sum(-((a @ w) ** 2) * rv for rv, a in link)
        M += mass * J.T @ J + ixx * np.outer(a_omega, a_omega)
        f += mass * J.T @ (G - bias)
    return np.concatenate([w, np.linalg.solve(M, f)])


def simulate_reference(q0: tuple[float, float], t: np.ndarray) -> np.ndarray:
    """Joint angles (len(t), 2) from rest at q0."""
    y0 = np.array([q0[0], q0[1], 0.0, 0.0])
    sol = solve_ivp(rhs, (0.0, float(t[-1])), y0, t_eval=t, method="DOP853", rtol=1e-12, atol=1e-12)
    return sol.y[:2].T
