"""Independent reference for the IFToMM spatial rigid slider-crank (issue 15), in its one minimal
coordinate, the crank angle. CasADi serves only as a calculator for derivatives; nothing of
nlpmbd is imported.

The mechanism (IFToMM multibody benchmark "Spatial rigid slider-crank mechanism"; the numbers
of Exudyn's sliderCrank3Dbenchmark model): gravity 9.81 m/s^2 along -Z. Crank AB, 0.08 m,
0.12 kg, centre of mass at its middle, inertia about it diag(1e-4, 1e-4, 1e-5) kg m^2 (its axis
last), on a revolute joint about global X at A = (0, 0.1, 0.12) m, starting along +Z. Rod BC,
0.3 m, 0.5 kg, centre of mass at its middle, inertia diag(4e-4, 4e-3, 4e-3) about its axis and
two normals, the second normal in the plane of the rod and A at the start; a spherical joint to
the crank at B, a universal joint to the slider at C whose cross keeps the rod's pin (normal to
the rod and to X at the start) perpendicular to the slider's pin along X, the slide's
direction. Slider 2 kg on a prismatic joint along global X through the origin, starting at
x = 0.2 m (where |BC| = 0.3 m).

Minimal coordinate theta, the crank's rotation about +X from +Z:
B = A + 0.08 (0, -sin theta, cos theta), C = (x, 0, 0), x = sqrt(0.3^2 - B_y^2 - B_z^2).
The rod's axis is e = (C - B) / 0.3; its rotation about e is fixed by the universal joint: with
u = X the slider's pin, p = e x u / |e x u| and q = e x p, the rod's second axis is
y = cos(phi) p + sin(phi) q and the cross condition w . u = 0 is
b sin(phi) + c cos(phi) = -a (e . u) / (q . u), (a, b, c) the rod's pin in rod axes; solved in
closed form on the branch of the start. Kinetic energy T = m_eff(theta)
theta'^2 / 2 (each body's centre-of-mass velocity and angular velocity are theta' times their
theta-derivatives), potential V(theta); Lagrange: m_eff theta'' = -m_eff' theta'^2 / 2 - V'.
"""

from __future__ import annotations

import casadi as ca
import numpy as np
from scipy.integrate import solve_ivp

G = 9.81
A = np.array([0.0, 0.1, 0.12])
L1, L2 = 0.08, 0.3
M1, M2, M3 = 0.12, 0.5, 2.0
I1 = np.diag([1e-4, 1e-4, 1e-5])
I2 = np.diag([4e-4, 4e-3, 4e-3])
OMEGA0 = 6.0  # rad/s about +X
U = np.array([1.0, 0.0, 0.0])  # the slider's pin


def initial_rod_frame() -> np.ndarray:
    """The rod's axes at the start (columns): x along C - B, z the part of B (from the origin)
    normal to x, y = z x x (Exudyn's construction)."""
    B, C = A + np.array([0.0, 0.0, L1]), np.array([0.2, 0.0, 0.0])
    x = (C - B) / np.linalg.norm(C - B)
    z = B - np.dot(B, x) * x
    z /= np.linalg.norm(z)
    return np.column_stack([x, np.cross(z, x), z])


def rod_pin() -> np.ndarray:
    """The rod's pin at the start (global): normal to the rod and to the slider's pin."""
    B, C = A + np.array([0.0, 0.0, L1]), np.array([0.2, 0.0, 0.0])
    n = np.cross(C - B, U)
    return n / np.linalg.norm(n)


def _terms() -> ca.Function:
    th = ca.SX.sym("theta")
    B = ca.DM(A) + L1 * ca.vertcat(0, -ca.sin(th), ca.cos(th))
    x = ca.sqrt(L2**2 - B[1] ** 2 - B[2] ** 2)
    C = ca.vertcat(x, 0, 0)
    e = (C - B) / L2
    u = ca.DM(U)
    p = ca.cross(e, u)
    p = p / ca.norm_2(p)
    q = ca.cross(e, p)
    a, b, c = (initial_rod_frame().T @ rod_pin()).tolist()
    rho, psi = np.hypot(b, c), np.arctan2(c, b)
    s = -a * ca.dot(e, u) / ca.dot(q, u) / rho
    phi = ca.asin(s) - psi  # branch of the start (checked below)
    yr = ca.cos(phi) * p + ca.sin(phi) * q
    R = ca.horzcat(e, yr, ca.cross(e, yr))
    dR = ca.jacobian(ca.vec(R), th).reshape((3, 3))
    W = dR @ R.T  # skew: angular velocity per unit theta'
    w2 = R.T @ ca.vertcat(W[2, 1], W[0, 2], W[1, 0])  # rod, body axes
    r1, r2 = ca.DM(A) + L1 / 2 * ca.vertcat(0, -ca.sin(th), ca.cos(th)), (B + C) / 2
    d1, d2, d3 = (ca.jacobian(r, th) for r in (r1, r2, C))
    m_eff = M1 * ca.dot(d1, d1) + I1[0, 0] + M2 * ca.dot(d2, d2)
    m_eff += ca.dot(w2, ca.DM(I2) @ w2) + M3 * ca.dot(d3, d3)
    V = G * (M1 * r1[2] + M2 * r2[2])
    acc = -(0.5 * ca.jacobian(m_eff, th) + 0) / m_eff  # times theta'^2
    grav = -ca.jacobian(V, th) / m_eff
    return ca.Function("terms", [th], [acc, grav, x, R])


def rod_frame(theta: float) -> np.ndarray:
    return np.asarray(_terms()(theta)[3])


def simulate_reference(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(crank angle theta (rad), slider position x (m)) at the times t, from the benchmark's
    start (theta = 0, theta' = 6 rad/s)."""
    f = _terms()
    if np.abs(rod_frame(0.0) - initial_rod_frame()).max() > 1e-12:
        raise RuntimeError("the closed-form branch does not pass through the start")

    def rhs(_, y):
        acc, grav, *_ = f(y[0])
        return [y[1], float(acc) * y[1] ** 2 + float(grav)]

    sol = solve_ivp(rhs, (t[0], t[-1]), [0.0, OMEGA0], t_eval=t, rtol=1e-12, atol=1e-12,
                    method="DOP853")  # fmt: skip
    theta = sol.y[0]
    x = np.array([float(f(th)[2]) for th in theta])
    return theta, x
