"""Independent reference for the planar compound double pendulum (the `chain` case with
links=2, layout=planar, joint=ideal), in minimal coordinates; nothing of nlpmbd is imported.

Two identical uniform links of mass m, length L and moment of inertia J about their centre of
mass (about the pin axis Z); link 1 pinned to the ground at the origin, link 2 pinned to link
1's tip; gravity g along -Y. Coordinates: the absolute angles theta_1, theta_2 of the links
from +X, counter-clockwise about +Z. Centres of mass c_1 = (L/2) u(theta_1),
c_2 = L u(theta_1) + (L/2) u(theta_2), u(a) = (cos a, sin a). Lagrange's equations, with
a = m L^2 / 2 and s, k = sin, cos(theta_1 - theta_2):

    (J + 5 m L^2 / 4) theta_1'' + a k theta_2'' = -a s theta_2'^2 - (3/2) m g L cos theta_1
    a k theta_1'' + (J + m L^2 / 4) theta_2'' =  a s theta_1'^2 - (1/2) m g L cos theta_2

integrated by scipy's DOP853 with rtol = atol = 1e-12.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp


def accelerations(y: np.ndarray, m: float, L: float, J: float, g: float) -> np.ndarray:
    """(theta_1'', theta_2'') at the state y = (theta_1, theta_2, theta_1', theta_2')."""
    t1, t2, w1, w2 = y
    a = 0.5 * m * L**2
    s, k = np.sin(t1 - t2), np.cos(t1 - t2)
    M = np.array([[J + 1.25 * m * L**2, a * k], [a * k, J + 0.25 * m * L**2]])
    f = np.array(
        [
            -a * s * w2**2 - 1.5 * m * g * L * np.cos(t1),
            a * s * w1**2 - 0.5 * m * g * L * np.cos(t2),
        ]
    )
    return np.linalg.solve(M, f)


def energy(y: np.ndarray, m: float, L: float, J: float, g: float) -> float:
    """Total energy T + V of the state y (J), V = 0 with both links horizontal."""
    t1, t2, w1, w2 = y
    v1 = 0.5 * L * w1 * np.array([-np.sin(t1), np.cos(t1)])
    v2 = L * w1 * np.array([-np.sin(t1), np.cos(t1)]) + 0.5 * L * w2 * np.array(
        [-np.sin(t2), np.cos(t2)]
    )
    T = 0.5 * m * (v1 @ v1 + v2 @ v2) + 0.5 * J * (w1**2 + w2**2)
    V = m * g * (0.5 * L * np.sin(t1) + L * np.sin(t1) + 0.5 * L * np.sin(t2))
    return float(T + V)


def simulate_reference(
    t: np.ndarray,
    y0: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
    m: float = 1.0,
    L: float = 0.2,
    J: float = 0.2**2 / 12,
    g: float = 9.81,
) -> np.ndarray:
    """The states (theta_1, theta_2, theta_1', theta_2') at the increasing times t (t[0] is the
    start, where the state is y0; default: at rest, horizontal); shape (len(t), 4)."""

    def rhs(_: float, y: np.ndarray) -> np.ndarray:
        return np.concatenate([y[2:], accelerations(y, m, L, J, g)])

    sol = solve_ivp(rhs, (t[0], t[-1]), y0, method="DOP853", t_eval=t, rtol=1e-12, atol=1e-12)
    if not sol.success:
        raise RuntimeError(sol.message)
    return sol.y.T
