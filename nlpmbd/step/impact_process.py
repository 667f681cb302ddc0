"""Stronge's impact process of a planar contact, in closed form, and the impulses the QP step
applies for the contacts whose impact law runs it (step/rows/impact.py: Poisson, energetic).

A contact j of the impact set has the normal approach speed c = Phi_v,j v (> 0 approaching) and
the slip s = t_j v along the tangent of its slip plane (step/qp_friction.py). Impulses P =
(p, P_t) act on the bodies as -J^T P, J = [Phi_v,j; t_j], and change (c, s) by -W P with W =
J A J^T its Delassus block (A: the inverse mass, the ideal joints' equalities eliminated). In
the normal impulse p, Coulomb's law makes dP_t = mu sigma dp while the contact slides (sigma =
sign s): c and s fall linearly until the slip stops at p_s; the contact then sticks (dP_t =
r dp, r = -W_nt / W_tt) where |r| <= mu, else slides back (sigma' = -sign W_nt); either lasts to
the end. c(p), P_t(p) are two linear pieces, the work absorbed by the normal force F(p) = int_0^p
c dp two quadratic ones, and every law's end is a root of one of them (`Process`).

Each contact runs its own process from the step's start velocity, on its Delassus block with
the resting contacts that the step's inelastic impact holds as bilateral rows, contacts that
impact together sharing it (step/impact_coupling.py); the gap rows then stop whatever still
closes.
The step QP applies the impulses as a generalised force held over the step, its friction acting
beyond them with the rows' forces (step/qp_graph.py). A process that jams (Painleve: sliding
makes c grow, W_nn + mu sigma W_nt <= 0, and the slip never stops) applies nothing: the QP's
rows take the contact.
"""

from __future__ import annotations

from typing import Any

import casadi as ca

from .impact_coupling import inelastic
from .rows.impact import ImpactLaws

__all__ = ["ImpactLaws", "Impulses", "Process", "delassus"]

#: A slip below this fraction of the approach speed starts the process at the slip's stop.
SLIP_REL = 1e-9


def _sign(x: Any) -> Any:
    return ca.if_else(x >= 0, 1, -1)


class Process:
    """c(p), P_t(p) and F(p) of one contact from c0 > 0, s0 and W = (W_nn, W_nt, W_tt) (module
    docstring); CasADi expressions or numbers."""

    def __init__(self, c0: Any, s0: Any, W: tuple[Any, Any, Any], mu: float) -> None:
        nn, nt, tt = W
        self.c0 = c0
        moving = ca.fabs(s0) > SLIP_REL * c0
        sigma = _sign(s0)
        self.a1, self.rho1 = nn + mu * sigma * nt, mu * sigma
        b1 = nt + mu * sigma * tt  # -ds/dp while sliding
        stops = sigma * b1 > 0
        r = -nt / ca.fmax(tt, 1e-300)
        sticks = ca.fabs(r) <= mu
        back = -_sign(nt)
        a2 = ca.if_else(sticks, nn + r * nt, nn + mu * back * nt)
        #: sticking does not move c (W of rank 1: one freedom, or ideal joints fixing the slip)
        self.locked = a2 <= 1e-9 * nn
        self.a2 = ca.fmax(a2, 1e-9 * nn)
        self.rho2 = ca.if_else(sticks, r, mu * back)
        #: Painleve's jam: the normal speed grows while the slip never stops
        self.jams = moving * (1 - stops) * (self.a1 <= 0)
        beyond = 4 * c0 / ca.fmax(self.a1, 1e-9 * nn)  # past any end: (1 + e) p_c <= 2 c0 / a1
        self.ps = ca.if_else(moving, ca.if_else(stops, s0 / b1, beyond), 0)
        self.cs = c0 - self.a1 * self.ps
        self.Fs = c0 * self.ps - self.a1 * self.ps**2 / 2

    def speed(self, p: Any) -> Any:
        """c(p) (m/s)."""
        return ca.if_else(p <= self.ps, self.c0 - self.a1 * p, self.cs - self.a2 * (p - self.ps))

    def work(self, p: Any) -> Any:
        """F(p) = int_0^p c dp (J): the work the normal impulse has absorbed up to p."""
        x = p - self.ps
        first = self.c0 * p - self.a1 * p**2 / 2
        return ca.if_else(p <= self.ps, first, self.Fs + self.cs * x - self.a2 * x**2 / 2)

    def tangential(self, p: Any) -> Any:
        """P_t(p) (N s): the friction impulse along t."""
        return self.rho1 * ca.fmin(p, self.ps) + self.rho2 * ca.fmax(p - self.ps, 0)

    def compression(self) -> Any:
        """p_c: where c = 0."""
        return self.at_speed(0)

    def at_speed(self, c: Any) -> Any:
        """The p where c(p) falls to c (<= c0)."""
        first = (self.c0 - c) / ca.fmax(self.a1, 1e-300)
        return ca.if_else(self.cs <= c, first, self.ps + (self.cs - c) / self.a2)

    def at_work(self, F: Any) -> Any:
        """The p after p_c where F(p) comes down to F (0 <= F <= F(p_c))."""
        first = (self.c0 + ca.sqrt(ca.fmax(self.c0**2 - 2 * self.a1 * F, 0))) / self.a1
        second = self.cs + ca.sqrt(ca.fmax(self.cs**2 + 2 * self.a2 * (self.Fs - F), 0))
        in_first = ca.logic_and(self.cs <= 0, self.Fs <= F)
        return ca.if_else(in_first, first, self.ps + second / self.a2)


def delassus(M_inv: Any, J: Any, G: Any) -> Any:
    """W = J A J^T with A the inverse mass M_inv restricted to the velocities the equalities'
    Jacobian G leaves free (dependent rows: a 1e-12 relative regularisation); SX (ldl)."""
    AJ = M_inv @ J.T
    if G.shape[0]:
        S = G @ M_inv @ G.T
        eps = 1e-12 * ca.fmax(ca.mmax(ca.fabs(ca.diag(S))), 1e-300)
        D, Lt, perm = ca.ldl(S + eps * ca.DM.eye(G.shape[0]))  # as step/qp_warm.py: codegen
        AJ = AJ - M_inv @ G.T @ ca.ldl_solve(G @ AJ, D, Lt, perm)
    return J @ AJ


def contact_blocks(m: Any, process: list[int]) -> ca.Function:
    """(q, t, v, held) -> J (2K, 6N): the rows [Phi_v,j; t_j] of the K contacts `process`,
    W (2K, 2): their Delassus blocks, the other contacts `held` (M,) bilateral in each
    (step/impact_coupling.py), and T (3, K): the tangents t_j. A planar contact's tangent is its
    slip plane's (step/qp_friction.py); a spatial contact's its slip's at v, or where it does not
    slip the way its normal impulse drives the slip (the process then along that line); 0
    without friction."""
    q, t = ca.SX.sym("q", m.n_q), ca.SX.sym("t")
    v, hold = ca.SX.sym("v", m.n_v), ca.SX.sym("held", m.n_gap)
    Phi_v, D, planes, (d, _) = m.Phi_v(q), m.slip(q), m.slip_plane(q), m.contact(q)
    G, M_inv = m.Phi_eq_v(q, t), ca.DM(m.M_inv)
    rows, blocks, tangents = [], [], []
    for j in process:
        Dj = D[3 * j : 3 * j + 3, :]
        others = ca.vertcat(*[hold[k] * (k != j) for k in range(m.n_gap)])
        W = delassus(M_inv, ca.vertcat(Phi_v[j, :], Dj), ca.vertcat(G, ca.diag(others) @ Phi_v))
        T = ca.SX.zeros(3)
        if m.mu[j] > 0 and m.planar[j]:
            T = _unit(ca.cross(planes[:, j], d[:, j]))
        elif m.mu[j] > 0:
            slip, drive = Dj @ v, -W[1:4, 0]
            moving = ca.norm_2(slip) > SLIP_REL * ca.fabs(Phi_v[j, :] @ v)
            T = ca.if_else(moving, _unit(slip), _unit(drive))
        rows.append(ca.vertcat(Phi_v[j, :], T.T @ Dj))
        nt, tt = T.T @ W[1:4, 0], T.T @ W[1:4, 1:4] @ T
        blocks.append(ca.blockcat([[W[0, 0], nt], [nt, tt]]))
        tangents.append(T)
    out = [ca.vertcat(*rows), ca.vertcat(*blocks), ca.horzcat(*tangents)]
    names = ["q", "t", "v", "held"]
    return ca.Function("impact_blocks", [q, t, v, hold], out, names, ["J", "W", "T"])


def _unit(x: Any) -> Any:
    return x / ca.fmax(ca.norm_2(x), 1e-300)


class Impulses:
    """The process laws' impulses of a step (module docstring): `force` (6N) the generalised
    force that applies them over h (times the scheme's kick), `normal` (M,) and `friction`
    (3, M) their forces (N) on each contact's moving body, for the step's outputs; all 0
    without a process law (the graph then unchanged)."""

    def __init__(
        self, kernel: Any, laws: Any, args: dict, hit: Any, released: Any, plugin: str
    ) -> None:
        m = kernel.model
        self.force: Any = 0
        self.normal: Any = 0
        self.friction: Any = 0
        if not laws.process:
            return
        t, q, v, h = (args[k] for k in ("t", "q", "v", "h"))
        hold, shared = inelastic(kernel, plugin, args, hit * (1 - released))
        blocks = contact_blocks(m, laws.process)(q=q, t=t, v=v, held=hold)
        force = ca.MX.zeros(m.n_v)
        normal, friction = [ca.MX(0)] * m.n_gap, [ca.MX.zeros(3)] * m.n_gap
        for i, j in enumerate(laws.process):
            J, W = blocks["J"][2 * i : 2 * i + 2, :], blocks["W"][2 * i : 2 * i + 2, :]
            c0, s0 = J[0, :] @ v, J[1, :] @ v
            proc = Process(c0, s0, (W[0, 0], W[0, 1], W[1, 1]), float(m.mu[j]))
            on = hit[j] * (1 - released[j]) * (c0 > 0) * (1 - proc.jams)
            pf = ca.fmax(laws.laws[j].end(proc), 0)
            # locked at the slip's stop, restitution cannot go on: the impact ends there
            pf = ca.if_else(proc.locked, ca.fmin(pf, ca.fmax(proc.ps, proc.compression())), pf)
            # contacts impacting together share it (step/impact_coupling.py); 1 alone
            share = shared[j] * W[0, 0] / ca.fmax(c0, 1e-300)
            P = ca.if_else(on, share * ca.vertcat(pf, proc.tangential(pf)), 0)
            force = force - J.T @ P
            normal[j], friction[j] = P[0] / h, -blocks["T"][:, i] * P[1] / h
        self.force = force / (kernel.kick * h)
        self.normal = ca.vertcat(*normal) if m.n_gap else ca.MX(0, 1)
        self.friction = ca.horzcat(*friction) if m.n_gap else ca.MX(3, 0)
