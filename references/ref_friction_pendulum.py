"""Independent reference for a pendulum on a pin with Coulomb friction (issue 14, finding 3),
and the wedge analysis of a pin with two contact ends. numpy and scipy only (no nlpmbd import).

The system (nlpmbd_cases/pendulum.py with joint=clearance and HardContact(mu=...)): a rigid
pendulum of mass m, centre of mass at distance L from the pin axis (global Z through the
origin), inertia J about its centre of mass (axis Z), released at rest with its centre of mass
on +X; gravity g along -Y. The pin (ground) has radius R; the hole is R + c with c << R.

Planar friction-circle model (the limit c -> 0 of one contact; the reference)
-----------------------------------------------------------------------------
The hole slides on the pin at one contact point. The force F on the pendulum there is the
normal force N (radial) plus Coulomb friction mu N (tangential, against the slip), so
|F| = N sqrt(1 + mu^2) and its moment about the pin axis is mu N R = mu_e R |F| against the
rotation, mu_e = mu / sqrt(1 + mu^2) (F is tangent to the "friction circle" of radius mu_e R).
Rolling without slip is impossible: with c << R the contact point would have to run round
the pin (R + c)/c times faster than the pendulum turns, which gravity cannot drive. With theta
the angle of the centre of mass from +X and I_O = J + m L^2,

    I_O theta'' = -m g L cos(theta) - sign(theta') mu_e R |F|,
    F = m L (theta'' e_t - theta'^2 e_r) + m g e_y,   e_r = (cos, sin), e_t = (-sin, cos),

implicit in theta'' through |F|; solved per evaluation by a few fixed-point sweeps (the map is
a contraction with factor mu_e R m L / I_O ~ 1e-2). At theta' = 0 the pendulum sticks when
m g L |cos theta| <= mu_e R m g, else it slips towards the gravity torque (event-driven, scipy
solve_ivp with events at theta' = 0). Energy E = 1/2 I_O theta'^2 + m g L sin(theta) (E(0) = 0).

A clearance joint of finite c adds a free fall of c (about sqrt(2 c / g) = 4.5 ms at 1e-4 m)
and an inelastic impact, m g c ~ 1e-3 J: negligible next to the friction work for c = 1e-4 m.

Two contact ends: when can a pin wedge? (`wedge_mu`)
----------------------------------------------------
The hole touches the pin at two ends, z = -/+ l/2 (l the engaged pin length). A wedge is the two
ends pressed on OPPOSITE sides, normal forces lambda_1 n and -lambda_2 n. Force balance along
n with no load across the pin: lambda_1 = lambda_2 = Lambda. Their couple about the axis
t = z x n is Lambda l. The friction forces (a_j along t, b_j along z, sqrt(a_j^2 + b_j^2) <=
mu lambda_j) give about t only the couple of the axial components at the contact radius R,
R (b_2 - b_1) <= 2 mu R Lambda. Without an out-of-plane load (centre of mass on the joint's
mid-plane) a self-equilibrated wedge of any size exists only if

    mu >= l / (2 R)          (2.5 for l = 0.05 m, R = 0.01 m),

and then only with the axial components of friction; a contact that slides round the pin
(the pendulum swinging) has its friction along the slip, a = +-mu lambda, b = 0, so a swinging
pendulum cannot wedge at any mu. The tilt of the hole's axis (at most 2 c / l = 4e-3 rad)
changes this by O(2 c / l). Below l / (2 R) the two ends carry, in the planar motion, the
friction-circle forces: lambda_1 + lambda_2 = N of the reference above.

Run ``python references/ref_friction_pendulum.py`` for the reference at mu = 0.3 and 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

#: nlpmbd_cases/pendulum.py defaults (joint = clearance).
DEFAULTS = {
    "m": 1.0,
    "L": 0.5,
    "J": 0.085,
    "g": 9.81,
    "R": 0.01,
    "pin_length": 0.05,
}


def wedge_mu(pin_length: float, pin_radius: float) -> float:
    """Smallest mu at which two opposite contact ends can lock without load (docstring)."""
    return pin_length / (2.0 * pin_radius)


@dataclass(frozen=True)
class FrictionPendulum:
    """The reference sampled at `t`: angle, rate, energy (J, 0 at release), dissipated energy
    (J), the joint force |F| (N) and the normal force N = |F| / sqrt(1 + mu^2) (N)."""

    t: np.ndarray
    theta: np.ndarray
    omega: np.ndarray
    energy: np.ndarray
    dissipated: np.ndarray
    force: np.ndarray
    normal: np.ndarray


def _acceleration(theta: float, omega: float, s: float, mu: float, p: dict) -> tuple:
    """(theta'', |F|) with friction against the direction s (+1, -1)."""
    m, L, J, g, R = p["m"], p["L"], p["J"], p["g"], p["R"]
    I_O = J + m * L**2
    mu_e = mu / np.hypot(1.0, mu)
    er = np.array([np.cos(theta), np.sin(theta)])
    et = np.array([-np.sin(theta), np.cos(theta)])
    acc, force = -m * g * L * np.cos(theta) / I_O, 0.0
    for _ in range(60):
        F = m * L * (acc * et - omega**2 * er) + np.array([0.0, m * g])
        force = float(np.hypot(*F))
        new = (-m * g * L * np.cos(theta) - s * mu_e * R * force) / I_O
        if abs(new - acc) <= 1e-15 * max(1.0, abs(new)):
            acc = new
            break
        acc = new
    return acc, force


def friction_pendulum(
    mu: float, t_end: float, n: int = 801, params: dict | None = None, rtol: float = 1e-11
) -> FrictionPendulum:
    """Event-driven solution of the friction-circle pendulum (module docstring), sampled at n
    equally spaced times in [0, t_end]."""
    p = {**DEFAULTS, **(params or {})}
    m, L, J, g, R = p["m"], p["L"], p["J"], p["g"], p["R"]
    I_O = J + m * L**2
    mu_e = mu / np.hypot(1.0, mu)
    t_eval = np.linspace(0.0, t_end, n)
    theta, omega, t0 = 0.0, 0.0, 0.0
    ts, ths, oms = [], [], []
    while t0 < t_end:
        torque = -m * g * L * np.cos(theta)
        if omega == 0.0:
            if abs(torque) <= mu_e * R * m * g:  # sticks for good (nothing changes at rest)
                rest = t_eval[t_eval >= t0]
                ts.append(rest)
                ths.append(np.full(rest.size, theta))
                oms.append(np.zeros(rest.size))
                break
            s = float(np.sign(torque))
        else:
            s = float(np.sign(omega))

        def rhs(_t: float, y: np.ndarray, s: float = s) -> list:
            return [y[1], _acceleration(y[0], y[1], s, mu, p)[0]]

        def stop(_t: float, y: np.ndarray, s: float = s, t0: float = t0) -> float:
            return y[1] * s if _t > t0 else 1.0

        stop.terminal, stop.direction = True, -1  # type: ignore[attr-defined]
        sol = solve_ivp(
            rhs,
            (t0, t_end),
            [theta, omega],
            method="DOP853",
            rtol=rtol,
            atol=1e-13,
            events=stop,
            dense_output=True,
        )
        t1 = float(sol.t[-1])
        inside = t_eval[(t_eval >= t0) & (t_eval <= t1)]
        if inside.size:
            y = sol.sol(inside)
            ts.append(inside)
            ths.append(y[0])
            oms.append(y[1])
        theta, omega, t0 = float(sol.y[0, -1]), float(sol.y[1, -1]), t1
        if sol.status == 1:  # theta' = 0
            omega = 0.0
    t = np.concatenate(ts)
    t, keep = np.unique(t, return_index=True)
    theta_s, omega_s = np.concatenate(ths)[keep], np.concatenate(oms)[keep]
    energy = 0.5 * I_O * omega_s**2 + m * g * L * np.sin(theta_s)
    force = np.array(
        [
            _acceleration(a, w, float(np.sign(w)) if w else 0.0, mu, p)[1]
            for a, w in zip(theta_s, omega_s, strict=True)
        ]
    )
    return FrictionPendulum(t, theta_s, omega_s, energy, -energy, force, force / np.hypot(1, mu))


if __name__ == "__main__":
    p = DEFAULTS
    print(f"wedge (self-locking) needs mu >= l / (2 R) = {wedge_mu(p['pin_length'], p['R']):g}")
    for mu in (0.0, 0.3, 1.0):
        ref = friction_pendulum(mu, 2.0, 2001)
        for tq in (0.2, 0.45, 0.5, 0.8, 1.0, 2.0):
            k = int(np.argmin(np.abs(ref.t - tq)))
            print(
                f"mu={mu:g} t={ref.t[k]:.2f} theta={np.degrees(ref.theta[k]):8.3f} deg "
                f"omega={ref.omega[k]:8.4f} dissipated={ref.dissipated[k]:.5f} J "
                f"|F|={ref.force[k]:7.3f} N N={ref.normal[k]:7.3f} N"
            )
        print(f"mu={mu:g} max |F| {ref.force.max():.3f} N")
