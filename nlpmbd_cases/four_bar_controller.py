"""The crank's tracking controller of Siconos' FourBarLinkageWith3clearance example, for the
`four_bar_clearance` case: a passivity-based law (Akhadkar, Acary, Brogliato, Multibody Syst.
Dyn. 38:101, 2016) built on the ideal four-bar's one-degree-of-freedom model.

Ported term by term from `FourBarPluginClearance.cpp` (siconos-tutorials b6c9bfd1, FInt and
z[2]), including its PI = 3.14159265 and the J3 (not Jx3) in the velocity term, so that the
torque is the reference run's. With theta the crank angle, q_d = 6 sin(0.75 PI t):

    tau = M(theta) a_r + C(theta) w (w - lmd e) - Kp (w - q_d' + lmd e) + G(theta),

e = theta - q_d, a_r = q_d'' - lmd (w - q_d'), M, C, G the ideal linkage's reduced inertia,
velocity and gravity terms (rocker angle phi and coupler angle alpha in closed form).
Every function takes and returns CasADi expressions (or floats, through CasADi).
"""

from __future__ import annotations

from typing import Any

import casadi as ca

PI = 3.14159265  # the reference's constant, kept so that q_d is its q_d
L0, L1, L2, L3 = 3.0, 1.0, 4.0, 2.5  # m: ground, crank, coupler, rocker
M1 = M2 = M3 = 1.0  # kg
G = 9.81
KP, LMD = 200.0, 10.0
AMPLITUDE, FREQUENCY = 6.0, 0.75 * PI  # q_d = AMPLITUDE sin(FREQUENCY t)

IX2, IX3 = M2 * L2**2 / 12, M3 * L3**2 / 12
J3 = IX3
JX1 = 0.5 * (0.25 * M1 * L1**2 + M1 * L1**2 / 12 + M2 * L1**2)
JX2 = 0.5 * (0.25 * M2 * L2**2 + IX2)
JX3 = 0.5 * (0.25 * M3 * L3**2 + IX3)
P1 = 0.5 * M2 * L1 * L2


def desired(t: Any) -> tuple[Any, Any, Any]:
    """(q_d, q_d', q_d'') of the crank angle."""
    s, c = ca.sin(FREQUENCY * t), ca.cos(FREQUENCY * t)
    return AMPLITUDE * s, AMPLITUDE * FREQUENCY * c, -AMPLITUDE * FREQUENCY**2 * s


def angles(q: Any) -> tuple[Any, Any]:
    """(phi, alpha): the ideal linkage's rocker and coupler angles at crank angle q."""
    k1 = -2.0 * L1 * L3 * ca.sin(q)
    k2 = 2.0 * L3 * (L0 - L1 * ca.cos(q))
    k3 = L0**2 + L1**2 - L2**2 + L3**2 - 2 * L0 * L1 * ca.cos(q)
    phi = 2.0 * (PI + ca.atan2(-k1 - ca.sqrt(k1**2 + k2**2 - k3**2), k3 - k2))
    alpha = ca.atan2(-L1 * ca.sin(q) + L3 * ca.sin(phi), L0 - L1 * ca.cos(q) + L3 * ca.cos(phi))
    return phi, alpha


def _reduced(q: Any) -> tuple[Any, Any, Any, Any]:
    """(M, C, G, ...) of the plugin: the reduced inertia, the factor of w^2-like terms (per w)
    and the gravity compensation, at crank angle q."""
    v, v1 = angles(q)
    sd = ca.sin(v1 - v)
    s11 = L1 * ca.sin(v - q) / (L2 * sd)
    s21 = L1 * ca.sin(v1 - q) / (L3 * sd)
    c11, t7, t8 = ca.cos(q - v1), ca.sin(v1 - q), -ca.sin(v1 - q)
    c2 = ca.cos(2.0 * v1 - 2.0 * v)
    t1 = -L1 * ca.cos(v - q) / (L2 * sd)
    t2 = -L1 * ca.sin(v - q) * ca.cos(v1 - v) / (L2 * sd**2)
    t3 = -2.0 * L1 * ca.sin(v1 - q) / (L2 * c2 - L2)
    t4 = -L1 * ca.cos(v1 - q) / (L3 * sd)
    t5 = 2.0 * L1 * ca.sin(v - q) / (L3 * c2 - L3)
    t6 = L1 * ca.sin(v1 - q) * ca.cos(v1 - v) / (L3 * sd**2)
    t11, t13 = t1 + t2 * s11 + t3 * s21, t4 + t5 * s11 + t6 * s21
    mass = 2 * (JX1 + JX2 * s11**2 + JX3 * s21**2 + P1 * c11 * s11)
    coriolis = 2 * JX2 * s11 * t11 + 2 * J3 * s21 * t13 + P1 * (c11 * t11 + s11 * (t7 + s11 * t8))
    gt = -(0.5 * M1 * L1 + M2 * L1) * G * ca.cos(q)
    ga, gp = -0.5 * M2 * L2 * G * ca.cos(v1), -0.5 * M3 * L3 * G * ca.cos(v)
    return mass, coriolis, -gt - s11 * ga - s21 * gp, s11


def torque(t: Any, q: Any, w: Any) -> Any:
    """The crank torque (N m, about +Z) at time t, crank angle q and crank speed w."""
    qd, qd_dot, qd_ddot = desired(t)
    mass, coriolis, gravity, _ = _reduced(q)
    e = q - qd
    a_r = qd_ddot - LMD * (w - qd_dot)
    return mass * a_r + coriolis * w * (w - LMD * e) - KP * (w - qd_dot) - KP * LMD * e + gravity
