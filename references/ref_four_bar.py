"""Independent reference for the ideal driven four-bar (nlpmbd_cases/four_bar.py), written in
minimal coordinates without nlpmbd.

Mechanism: ground A = (0, 0) -> D = (L0, 0), crank A -> B (L1), coupler B -> C (L2), rocker
D -> C (L3), planar in XY with gravity g along -Y; uniform links of linear density rho (centre
of mass mid-link, J = m L^2 / 12 about Z). The crank angle theta = omega t is prescribed, so the
linkage has no free degree of freedom: the rocker angle psi and coupler angle phi follow from
the loop closure alone, and the driving moment from the power balance.

Rocker angle (Freudenstein): |L0 x + L3 e(psi) - L1 e(theta)| = L2 gives
a cos(psi) + b sin(psi) = k with a = 2 L3 (L0 - L1 cos theta), b = -2 L1 L3 sin theta,
k = L2^2 - L0^2 - L1^2 - L3^2 + 2 L0 L1 cos theta; with t = tan(psi / 2),
(k + a) t^2 - 2 b t + (k - a) = 0, and the root whose psi lies in (0, pi) at theta = 0 (C above
the ground line) is followed (the assembly mode of a Grashof crank-rocker never changes).

Driving moment: the energy E(theta) = T + V of the three links with theta_dot = omega gives the
moment the driver applies to the crank, M = dE/dt / omega = dE/dtheta (counter-clockwise
positive). Velocities and dE/dtheta are 5-point central differences in theta (step 1e-4 rad,
truncation ~1e-14 relative).
"""

from __future__ import annotations

import numpy as np

DIFF_STEP = 1e-4  # rad


def rocker_angle(theta, L0=0.38, L1=0.10, L2=0.35, L3=0.30, sign=None):
    """psi(theta) (rad, from +X at D, counter-clockwise), upper assembly mode."""
    theta = np.asarray(theta, dtype=float)
    a = 2 * L3 * (L0 - L1 * np.cos(theta))
    b = -2 * L1 * L3 * np.sin(theta)
    k = L2**2 - L0**2 - L1**2 - L3**2 + 2 * L0 * L1 * np.cos(theta)
    root = np.sqrt(a**2 + b**2 - k**2)
    if sign is None:  # the mode with C above the ground line at theta = 0
        sign = next(s for s in (1.0, -1.0) if 0 < rocker_angle(0.0, L0, L1, L2, L3, s) < np.pi)
    return 2 * np.arctan((b + sign * root) / (k + a))


def _coordinates(theta, L0, L1, L2, L3):
    """Centres of mass (x, y) and angles of crank, coupler and rocker, shape (..., 3, 3)."""
    psi = rocker_angle(theta, L0, L1, L2, L3)
    B = L1 * np.stack([np.cos(theta), np.sin(theta)], axis=-1)
    C = np.stack([L0 + L3 * np.cos(psi), L3 * np.sin(psi)], axis=-1)
    phi = np.arctan2(C[..., 1] - B[..., 1], C[..., 0] - B[..., 0])
    return np.stack(
        [
            np.concatenate([B / 2, theta[..., None]], axis=-1),
            np.concatenate([(B + C) / 2, phi[..., None]], axis=-1),
            np.concatenate([(np.array([L0, 0.0]) + C) / 2, psi[..., None]], axis=-1),
        ],
        axis=-2,
    )


def _d_dtheta(f, theta):
    s = DIFF_STEP
    return (f(theta - 2 * s) - 8 * f(theta - s) + 8 * f(theta + s) - f(theta + 2 * s)) / (12 * s)


def drive_moment(theta, omega, L0=0.38, L1=0.10, L2=0.35, L3=0.30, rho=2.0, g=9.81):
    """Moment (N m, counter-clockwise on the crank) that keeps theta_dot = omega."""
    lengths = np.array([L1, L2, L3])
    m = rho * lengths
    J = m * lengths**2 / 12

    def energy(th):
        X = _coordinates(th, L0, L1, L2, L3)
        V = omega * _d_dtheta(lambda u: _coordinates(u, L0, L1, L2, L3), th)
        T = 0.5 * (m * (V[..., 0] ** 2 + V[..., 1] ** 2) + J * V[..., 2] ** 2).sum(axis=-1)
        return T + (m * g * X[..., 1]).sum(axis=-1)

    return _d_dtheta(energy, np.asarray(theta, dtype=float))
