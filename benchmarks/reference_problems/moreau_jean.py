"""The Flores-Leine-Glocker slider-crank in the minimal coordinates of Siconos' upstream
example (SliderCrankPlugin.cpp: mass matrix, gyroscopic and gravity terms), its energy, and
the Moreau-Jean theta step of Siconos (mass matrix and forces at the step's end, positions
q_k+1 = q_k + h (theta v_k+1 + (1 - theta) v_k)) for the smooth motion: enough to show where
the reference run's energy comes from. CasADi is only a calculator of derivatives here."""

from __future__ import annotations

from functools import cache

import casadi as ca
import numpy as np

L1, L2, M1, M2, M3 = 0.153, 0.306, 0.038, 0.038, 0.076
J1, J2, J3, G = 7.4e-5, 5.9e-4, 2.7e-6, 9.81
V0 = (150.0, -75.0, 0.0)  # rad/s: crank, rod, slider at t = 0 (all angles 0)


@cache
def _functions() -> tuple[ca.Function, ca.Function, ca.Function]:
    q, v = ca.SX.sym("q", 3), ca.SX.sym("v", 3)
    k = (0.5 * M2 + M3) * L1 * L2
    m = ca.SX.zeros(3, 3)
    m[0, 0], m[1, 1], m[2, 2] = (
        J1 + (0.25 * M1 + M2 + M3) * L1**2,
        J2 + (0.25 * M2 + M3) * L2**2,
        J3,
    )
    m[0, 1] = m[1, 0] = k * ca.cos(q[1] - q[0])
    s = k * ca.sin(q[0] - q[1])
    gyr = ca.vertcat(s * v[1] ** 2, -s * v[0] ** 2, 0)
    grav = ca.vertcat(
        (0.5 * M1 + M2 + M3) * G * L1 * ca.cos(q[0]), (0.5 * M2 + M3) * G * L2 * ca.cos(q[1]), 0
    )
    f = -gyr - grav
    y = L1 * ca.sin(q[0]), L2 * ca.sin(q[1])
    pot = G * (M1 * 0.5 * y[0] + M2 * (y[0] + 0.5 * y[1]) + M3 * (y[0] + y[1]))
    return (
        ca.Function("M", [q], [m]),
        ca.Function("F", [q, v], [f, ca.jacobian(f, q), ca.jacobian(f, v)]),
        ca.Function("E", [q, v], [0.5 * ca.dot(v, m @ v) + pot]),
    )  # fmt: skip


def energy(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Total energy (J) of each row of minimal coordinates q and velocities v (n x 3)."""
    e = _functions()[2]
    return np.array([float(e(a, b)) for a, b in zip(q, v, strict=True)])


def moreau_jean(h: float, t_end: float, theta: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(q, v) after the smooth motion from the start over t_end, Newton converged each step."""
    fm, ff, _ = _functions()
    q, v = np.zeros(3), np.array(V0)
    for _ in range(round(t_end / h)):
        f0 = np.asarray(ff(q, v)[0]).ravel()
        qn, vn = q.copy(), v.copy()
        for _ in range(20):
            fn, kq, cv = (np.asarray(a) for a in ff(qn, vn))
            m = np.asarray(fm(qn))
            r = m @ (vn - v) - h * (theta * fn.ravel() + (1 - theta) * f0)
            dv = np.linalg.solve(m - h * theta * cv - (h * theta) ** 2 * kq, r)
            vn, qn = vn - dv, q + h * (theta * (vn - dv) + (1 - theta) * v)
            if np.abs(dv).max() < 1e-12:
                break
        q, v = qn, vn
    return q, v
