"""Closed forms for friction inside ideal joints with a constant bound (a breakaway torque or
force, `frictionloss`). numpy and scipy only: independent of nlpmbd.

A block of mass m on a straight guide, pushed along it by F(t): it sticks while |F| <= g and
slides with m x'' = F - g sign(x') otherwise. For a ramp F = k t from rest it breaks away at
t0 = g / k and then x(t) = k (t - t0)^3 / (6 m).

A pendulum (mass m, centre of mass at distance L from the pin, any inertia) on a pin with a
constant friction torque T, released at rest at the angle phi_0 from the lowest position:
between two rests phi_a -> phi_b the kinetic energy is 0 at both ends, so the potential energy
lost equals the friction work, m g L (cos phi_b - cos phi_a) = T |phi_a - phi_b|, phi_b the
first zero of the kinetic energy m g L (cos phi - cos phi_a) - T |phi_a - phi| on the way from
phi_a towards the bottom and beyond. At a rest it stays where the gravity torque m g L |sin phi|
is at most T. The rests do not depend on the inertia.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq


def ramp_slide(k: float, g: float, m: float, t: np.ndarray) -> np.ndarray:
    """x(t) of the block pushed by F = k t from rest at x = 0 (see the module docstring)."""
    t0 = g / k
    return np.where(t > t0, k * np.clip(t - t0, 0, None) ** 3 / (6 * m), 0.0)


def pendulum_rests(phi0: float, m: float, g: float, L: float, T: float) -> list[float]:
    """The angles (rad, from the lowest position) of the pendulum's successive rests, the last
    one where it sticks."""
    W = m * g * L
    rests = [phi0]
    for _ in range(10000):
        a = rests[-1]
        if W * abs(np.sin(a)) <= T:
            return rests
        s = np.sign(a)  # it swings from a towards -s

        def kinetic(phi: float, a: float = a) -> float:
            return W * (np.cos(phi) - np.cos(a)) - T * abs(a - phi)

        # the first zero of the kinetic energy on the way from a to -s pi
        grid = a - s * np.linspace(1e-9, abs(a) + np.pi, 200001)
        values = np.array([kinetic(p) for p in grid[::100]])
        k = int(np.argmax(values <= 0))
        lo, hi = grid[max(100 * k - 100, 0)], grid[100 * k]
        rests.append(brentq(kinetic, lo, hi, xtol=1e-15, rtol=1e-15))
    raise RuntimeError("the pendulum did not come to rest")
