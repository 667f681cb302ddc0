"""The position update of the rA coordinates (docs/FORMULATION.md sections 1 and 4), in one place.

Per body, q = (r, p) with p the Euler parameters, and a velocity-space increment dx = (dr, dw')
(translation, body-frame rotation vector). `advance` moves r by h dr and p by h/2 G(p)^T dw',
then (optionally) projects p back to unit length; the step's update is advance(q, v, h), the gap
projection's is advance(q, dx), the second-order gap term differentiates advance(q, s v) twice in
s. `normalized` is the projection alone, for a step whose unknowns are q_dot itself (the NLP).
The nodal coordinates of flexible bodies follow the N rigid bodies' (model/coordinates.py): they
move linearly, x + h dx. Works on CasADi SX and MX alike.
"""

from __future__ import annotations

import functools
from typing import Any

import casadi as ca

from .rotation import g_matrix

#: A CasADi expression (SX or MX).
Sym = Any


def normalized(q: Sym, renormalize: bool = True, n_rigid: int | None = None) -> tuple[Sym, Sym]:
    """(q with every p scaled to unit length if `renormalize`, max_k |p_k^T p_k - 1| of q);
    `n_rigid` rigid bodies first (None: q is all rigid bodies), then nodal coordinates."""
    N = q.shape[0] // 7 if n_rigid is None else n_rigid
    parts, drift = [], [ca.DM(0)] if N == 0 else []
    for k in range(N):
        r, p = q[7 * k : 7 * k + 3], q[7 * k + 3 : 7 * k + 7]
        drift.append(ca.fabs(ca.sumsqr(p) - 1))
        parts += [r, p / ca.norm_2(p) if renormalize else p]
    if q.shape[0] > 7 * N:
        parts.append(q[7 * N :])
    return ca.vertcat(*parts), ca.mmax(ca.vertcat(*drift))


def advance(
    q: Sym, dx: Sym, h: float | Sym = 1.0, renormalize: bool = True, n_rigid: int | None = None
) -> tuple[Sym, Sym]:
    """(q moved by h dx, the Euler-parameter drift before renormalisation); see the module
    docstring. To first order in h this is q + h T(q) dx. On MX, one call of a Function traced
    once per size (a graph that moves q several times, the QP step's, then holds one node per
    move, not a few per body)."""
    N = q.shape[0] // 7 if n_rigid is None else n_rigid
    if isinstance(q, ca.MX):
        f = _advance_function(q.shape[0], dx.shape[0], N, renormalize)
        q_new, drift = f(q, dx, h)
        return q_new, drift
    return _advance(q, dx, h, renormalize, N)


@functools.cache
def _advance_function(nq: int, nv: int, n_rigid: int, renormalize: bool) -> ca.Function:
    q, dx, h = ca.SX.sym("q", nq), ca.SX.sym("dx", nv), ca.SX.sym("h")
    return ca.Function("advance", [q, dx, h], list(_advance(q, dx, h, renormalize, n_rigid)))


def _advance(q: Sym, dx: Sym, h: float | Sym, renormalize: bool, N: int) -> tuple[Sym, Sym]:
    parts = []
    for k in range(N):
        r, p = q[7 * k : 7 * k + 3], q[7 * k + 3 : 7 * k + 7]
        parts += [
            r + h * dx[6 * k : 6 * k + 3],
            p + 0.5 * h * g_matrix(p).T @ dx[6 * k + 3 : 6 * k + 6],
        ]
    if q.shape[0] > 7 * N:
        parts.append(q[7 * N :] + h * dx[6 * N :])
    return normalized(ca.vertcat(*parts), renormalize, N)
