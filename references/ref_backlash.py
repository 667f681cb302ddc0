"""An event-driven reference for stops on minimal coordinates x (n,) with a constant diagonal
inertia J: J x'' = Q(t, x, x') while the gap coordinate s = c . x is inside [lower, upper].

Modes: free flight; contact (s held at a stop by a force f along c, x'' = J^-1 (Q + c f)).
Events located by solve_ivp (rtol, atol 1e-12): a stop reached in flight is an impact with
Newton's law s'+ = -e s'- (impulse P along c: x'+ = x'- - J^-1 c P, P = (1 + e) s'- / m,
m = c J^-1 c); an impact slower than `v_rest` (the end of an accumulation of impacts)
starts contact instead; contact ends where f changes sign (the stop would pull).
numpy and scipy only: independent of nlpmbd.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

Forces = Callable[[float, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class Stops:
    inertia: np.ndarray  # (n,) diagonal of J
    forces: Forces  # Q(t, x, x') (n,)
    c: np.ndarray  # (n,) s = c . x
    lower: float
    upper: float
    restitution: float
    v_rest: float = 1e-6  # impacts slower than this start contact (rad/s or m/s of s)


@dataclass
class Motion:
    impacts: list[tuple[float, str, float]] = field(default_factory=list)  # (t, stop, s'-)
    pieces: list = field(default_factory=list)  # (t0, t1, dense solution of (x, x'))
    contacts: list[tuple[float, float, str]] = field(default_factory=list)  # (t0, t1, stop)

    def state(self, t: np.ndarray) -> np.ndarray:
        """(len(t), 2n) of (x, x') at the times t."""
        t = np.atleast_1d(t)
        out = []
        for ti in t:
            piece = next(p for p in self.pieces if p[0] <= ti <= p[1])
            out.append(piece[2](ti))
        return np.array(out)


def _accel(m: Stops, t: float, y: np.ndarray, stop: str | None) -> tuple[np.ndarray, float]:
    n = len(m.c)
    x, xd = y[:n], y[n:]
    Q = m.forces(t, x, xd)
    a = Q / m.inertia
    if stop is None:
        return a, 0.0
    f = -float(m.c @ a) / float(m.c @ (m.c / m.inertia))  # keeps s'' = 0
    return a + m.c * f / m.inertia, f


def _check_inside(m: Stops, sol, n: int) -> None:
    """A missed event would let s pass a stop: refuse such a piece."""
    tt = np.linspace(sol.t[0], sol.t[-1], 200)
    s = m.c @ sol.sol(tt)[:n]
    slack = 1e-9 * (m.upper - m.lower)
    if s.max() > m.upper + slack or s.min() < m.lower - slack:
        raise RuntimeError(f"reference: an impact was missed near t = {sol.t[0]}")


def simulate(m: Stops, x0: np.ndarray, v0: np.ndarray, t_end: float) -> Motion:
    """The motion on [0, t_end] from x0, v0 with s(x0) inside the stops."""
    n, out = len(m.c), Motion()
    y, t, stop = np.concatenate([x0, v0]).astype(float), 0.0, None
    meff = float(m.c @ (m.c / m.inertia))
    max_step = np.inf
    while t < t_end:
        mode = stop

        def rhs(tt, yy, mode=mode):
            return np.concatenate([yy[n:], _accel(m, tt, yy, mode)[0]])

        def hit_upper(tt, yy):
            return float(m.c @ yy[:n]) - m.upper

        def hit_lower(tt, yy):
            return m.lower - float(m.c @ yy[:n])

        def release(tt, yy, mode=mode):
            f = _accel(m, tt, yy, mode)[1]
            return f if mode == "upper" else -f  # the stop's force f <= 0 upper, >= 0 lower

        events = [release] if stop else [hit_upper, hit_lower]
        for ev in events:
            ev.terminal, ev.direction = True, 1.0
        sol = solve_ivp(
            rhs,
            (t, t_end),
            y,
            events=events,
            rtol=1e-12,
            atol=1e-12,
            dense_output=True,
            max_step=max_step,
        )
        _check_inside(m, sol, n)
        out.pieces.append((t, float(sol.t[-1]), sol.sol))
        if stop:
            out.contacts.append((t, float(sol.t[-1]), stop))
        t, y = float(sol.t[-1]), sol.y[:, -1].copy()
        if sol.status != 1:
            break
        max_step = np.inf
        if stop:  # released
            stop = None
            continue
        which = "upper" if len(sol.t_events[0]) else "lower"
        sd = float(m.c @ y[n:])
        out.impacts.append((t, which, sd))
        if m.restitution * abs(sd) < m.v_rest:
            stop = which
            y[n:] -= m.c * sd / meff / m.inertia  # the last, tiny impact: plastic
        else:
            y[n:] -= m.c * (1 + m.restitution) * sd / meff / m.inertia
            # a flight of 2 e |s'| / |s''|: steps short enough not to jump over it
            sdd = abs(float(m.c @ _accel(m, t, y, None)[0]))
            max_step = 0.1 * m.restitution * abs(sd) / max(sdd, 1e-300)
    return out


def pendulum(mass: float, L: float, I_O: float, g: float, backlash: float, e: float) -> Stops:
    """A body on a pin along Z, its centre of mass L from it along +X at x = 0 (x from +X
    towards +Y), gravity -Y, in a dead band +-backlash about the start."""
    return Stops(
        np.array([I_O]),
        lambda t, x, xd: np.array([-mass * g * L * np.cos(x[0])]),
        np.array([1.0]),
        -backlash,
        backlash,
        e,
    )


def gears(
    r1: float, r2: float, J1: float, J2: float, b: float, e: float, T0: float, f: float
) -> Stops:
    """Two gears on fixed parallel axes, s = r1 phi1 + r2 phi2 in [-b/2, b/2], gear 1 driven by
    T0 cos(2 pi f t)."""
    w = 2 * np.pi * f
    return Stops(
        np.array([J1, J2]),
        lambda t, x, xd: np.array([T0 * np.cos(w * t), 0.0]),
        np.array([r1, r2]),
        -b / 2,
        b / 2,
        e,
    )
