"""The impact of a planar rod's end on a rough ground, by Stronge's process in the normal impulse
p (W. J. Stronge, Impact Mechanics, Cambridge 2000, ch. 5), on the minimal coordinates
(x, y, theta) of the rod: centre of mass (x, y), angle theta from the ground, the lower end at
(x - L/2 cos theta, y - L/2 sin theta) touching y = 0.

In p the velocities u = (x', y', theta') obey du/dp = M^-1 (J_y + f J_x), M = diag(m, m, I),
J_x, J_y the rows of the contact point's velocity, f the friction ratio: -mu sign(slip) while it
slides, the ratio that holds the slip at 0 while it sticks (where |f| <= mu), else the slip
reverses. solve_ivp integrates u and the work W(p) = int_0^p c dp the normal impulse absorbs
(c = -y'_contact, the approach speed), with events at the slip's stop and at the law's end:

- Newton (kinematic): c(p_f) = -e c(0);
- Poisson (kinetic): p_f = (1 + e) p_c, p_c where c = 0;
- energetic (Stronge): W(p_f) = (1 - e^2) W(p_c).

numpy and scipy only: independent of nlpmbd.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

LAWS = ("newton", "poisson", "energetic")


@dataclass(frozen=True)
class Rod:
    mass: float  # kg
    length: float  # m
    theta: float  # rad, from the ground; the lower end is the contact
    mu: float

    @property
    def inertia(self) -> float:
        return self.mass * self.length**2 / 12

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """J_x, J_y: the contact point's velocity (x, y components) from u."""
        a = self.length / 2
        s, c = np.sin(self.theta), np.cos(self.theta)
        return np.array([1.0, 0.0, a * s]), np.array([0.0, 1.0, -a * c])

    def energy(self, u: np.ndarray) -> float:
        return 0.5 * (self.mass * (u[0] ** 2 + u[1] ** 2) + self.inertia * u[2] ** 2)


def _piece(rod: Rod, u: np.ndarray, sliding: bool) -> tuple[bool, float]:
    """(sliding, f) of the piece of the process that starts at u: f the friction impulse per unit
    normal impulse. Sliding: -mu sign(slip). At the slip's stop: sticking (f holds the slip at 0)
    where |f| <= mu, else sliding again the way the normal impulse drives the slip."""
    Jx, Jy = rod.rows()
    Minv = np.diag([1 / rod.mass, 1 / rod.mass, 1 / rod.inertia])
    if rod.mu == 0:  # no friction: the slip does not matter
        return False, 0.0
    if sliding:
        return True, -rod.mu * float(np.sign(Jx @ u))
    Wxx, Wxy = Jx @ Minv @ Jx, Jx @ Minv @ Jy
    if abs(Wxy / Wxx) <= rod.mu:
        return False, -Wxy / Wxx
    return True, -rod.mu * float(np.sign(Wxy))


def impact(rod: Rod, u0: np.ndarray, e: float, law: str) -> np.ndarray:
    """The velocities u (3,) after the impact from u0 (the end approaching: J_y u0 < 0)."""
    if law not in LAWS:
        raise ValueError(f"law must be one of {LAWS}")
    Jx, Jy = rod.rows()
    Minv = np.diag([1 / rod.mass, 1 / rod.mass, 1 / rod.inertia])
    c0 = -Jy @ u0
    assert c0 > 0, "the end must approach the ground"
    y, p = np.concatenate([u0, [0.0]]), 0.0  # (u, W), p
    compression: tuple[float, float] | None = None  # (p_c, W(p_c)) once passed
    sliding, f = _piece(rod, u0, abs(Jx @ u0) > 1e-12 * c0)
    for _ in range(4):  # a slide, then sticking or sliding back; p_c within either

        def rhs(_p: float, z: np.ndarray, f: float = f) -> np.ndarray:
            return np.concatenate([Minv @ (Jy + f * Jx), [-Jy @ z[:3]]])

        def slip_stops(_p: float, z: np.ndarray, sliding: bool = sliding) -> float:
            return Jx @ z[:3] if sliding else 1.0  # sticking: round-off, no event

        def compressed(_p: float, z: np.ndarray, pc: tuple | None = compression) -> float:
            return -Jy @ z[:3] if pc is None else 1.0

        def ends(p_: float, z: np.ndarray, pc: tuple | None = compression) -> float:
            if law == "newton":
                return -Jy @ z[:3] + e * c0
            if pc is None:
                return 1.0
            if law == "poisson":
                return (1 + e) * pc[0] - p_
            return z[3] - (1 - e**2) * pc[1]

        events = (slip_stops, compressed, ends)
        for event in events:
            event.terminal = True  # type: ignore[attr-defined]
        # the slip sign(-f) comes down to 0 (not a round-off crossing where a piece starts at 0)
        slip_stops.direction = np.sign(f)  # type: ignore[attr-defined]
        span = 100 * c0 * rod.mass  # far beyond any end
        sol = solve_ivp(rhs, (p, p + span), y, events=events, rtol=1e-12, atol=1e-14)
        p, k = min((sol.t_events[k][0], k) for k in range(3) if sol.t_events[k].size)
        y = sol.y_events[k][0]
        if k == 2:
            return y[:3]
        if k == 1:
            compression = (p, y[3])
            if e == 0:  # every law ends there
                return y[:3]
        else:
            sliding, f = _piece(rod, y[:3], False)
    raise RuntimeError("the impact did not end")


def energy_change(rod: Rod, u0: np.ndarray, e: float, law: str) -> float:
    """T after - T before (J)."""
    return rod.energy(impact(rod, u0, e, law)) - rod.energy(u0)


def newton_at_end(rod: Rod, u0: np.ndarray, e: float) -> np.ndarray:
    """The velocities after Newton's law as one impulse with Coulomb's law at its end (the
    velocity-level law of a Moreau-Jean time step, nlpmbd's `newton`): the end's approach speed
    is -e c(0), and the friction impulse holds the end's slip at 0 within mu times the normal
    impulse, else is mu times it against the end's slip. Closed form: the 2x2 cases."""
    Jx, Jy = rod.rows()
    Minv = np.diag([1 / rod.mass, 1 / rod.mass, 1 / rod.inertia])
    J = np.vstack([Jy, Jx])  # (normal impulse along +y, friction impulse along +x)
    W = J @ Minv @ J.T
    target = np.array([-e * (Jy @ u0) - Jy @ u0, -(Jx @ u0)])  # velocity changes: y', slip
    P = np.linalg.solve(W, target)  # sticks
    if abs(P[1]) > rod.mu * P[0]:
        for sigma in (1.0, -1.0):  # slides: the friction impulse is -sigma mu P_n
            Pn = target[0] / (W[0, 0] - sigma * rod.mu * W[0, 1])
            slip = Jx @ u0 + (W[1, 0] - sigma * rod.mu * W[1, 1]) * Pn
            if Pn > 0 and np.sign(slip) == sigma:
                P = np.array([Pn, -sigma * rod.mu * Pn])
                break
    return u0 + Minv @ J.T @ P
