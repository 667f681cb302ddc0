"""Euler-parameter kinematics (docs/FORMULATION.md section 1, Haug / Nikravesh conventions).

p = [e0, e1, e2, e3]; A(p) maps body-frame vectors to the global frame; the body-frame angular
velocity is w' = 2 G(p) p_dot and p_dot = 1/2 G(p)^T w' when p^T p = 1.  The functions work on
CasADi SX/MX/DM and on NumPy arrays alike (they only use indexing, products and sums).
"""

from __future__ import annotations

import casadi as ca
import numpy as np


def skew(a):
    """Skew matrix a~ with a~ b = a x b."""
    if isinstance(a, np.ndarray):
        return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return ca.vertcat(
        ca.horzcat(0, -a[2], a[1]), ca.horzcat(a[2], 0, -a[0]), ca.horzcat(-a[1], a[0], 0)
    )


def rotation_matrix(p):
    """A(p) = (2 e0^2 - 1) I + 2 (e e^T + e0 e~)."""
    e0, e = p[0], p[1:4]
    if isinstance(p, np.ndarray):
        return (2 * e0**2 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * skew(e))
    return (2 * e0**2 - 1) * ca.DM.eye(3) + 2 * (e @ e.T + e0 * skew(e))


def g_matrix(p):
    """G(p) = [-e, -e~ + e0 I] (3 x 4); G p = 0 and G G^T = (p^T p) I."""
    e0, e = p[0], p[1:4]
    if isinstance(p, np.ndarray):
        return np.hstack([-e.reshape(3, 1), -skew(e) + e0 * np.eye(3)])
    return ca.horzcat(-e, -skew(e) + e0 * ca.DM.eye(3))


def perpendicular_pair(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors a, b with (a, b, u) right-handed and orthonormal."""
    helper = np.eye(3)[int(np.argmin(np.abs(u)))]
    a = np.cross(u, helper)
    a /= np.linalg.norm(a)
    return a, np.cross(u, a)
