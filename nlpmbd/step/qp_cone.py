"""The friction cone of the spatial contacts in the step QP (step/qp_friction.py): a polygon
under the Tresca term whose forces never leave the cone, refined round by round.

A spatial contact j slips in its tangent plane with u_j = D_j v, and the step's Tresca term
h g_j |u_j| (docs/FORMULATION.md section 10) is not quadratic. The QP bounds it from below by
one variable s_j >= 0 of cost h g_j s_j and a row c . u_j - s_j <= 0 for each of a set of unit
directions c in the tangent plane, so that s_j = max_c c . u_j <= |u_j|. The rows' multipliers
y_c >= 0 (over h) give the friction force -sum_c y_c c with sum_c y_c <= g_j: a convex
combination of points of the disc |f| <= g_j, never outside the cone; and a contact that slips
along a direction c (on that row's facet) gets exactly f_j = -g_j c, Coulomb's law.

The directions: a fan of N_FAN at equal angles from the contact's t1 (step/qp_friction.py's
_tangent: along the free slip, the slip itself for a point mass), then cuts. The step's
friction fixed point (step/qp_graph.py) solves it again while the law is missed, and each
round puts, where a contact misses it, a row at its slip direction of the round before: in
place of a direction within NEAR of it, else as the newest of N_SLOTS cuts (Kelley's cutting
planes; a sticking contact holds any force in the polygon, which the cuts grow to the disc).
The round also takes |u| to second order across that slip u_b: the cost gains
kappa_j (a_j . u_j)^2 / 2, kappa_j = h g_j / |u_b| (a_j the unit tangent across u_b), the
force -kappa_j / h a_j (a_j . u_j). With the row at u_b it is Newton's step on h g_j |u_j|:
the slip's direction converges quadratically where the cut alone converged with the ratio of
the friction impulse to the slip's momentum (an impact: slower than the normal forces), and
once the slip is along the row the term vanishes and the force is the polygon's, in the cone.

The law is checked per contact at the step's own bounds `own` as the smaller of two readings:
slipping, the Tresca force (its magnitude without the bias of s_j's curvature W_REG, as for
planar contacts) against -own_j u/|u|; sticking, the excess of |f_j| over own_j plus the
inertia force m_eff u_j / h that would stop the slip (m_eff the contact's tangential mass along
it, from D_j M^-1 D_j^T).
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

#: Directions of the fan, and cuts kept per contact: its rows are their sum.
N_FAN, N_SLOTS = 6, 4
#: A contact gets a cut where it misses the law, and its slip's inertia force exceeds, this
#: share of the EoM tolerance.
CUT_SHARE = 0.1
#: Angle (rad) within which a cut replaces a direction: rows closer than ~1e-6 differ by less
#: than the QP resolves, and which of them carries the force is then arbitrary.
NEAR = 1e-3
#: Cap of the slip curvature kappa_j (kg) in units of the heaviest mass: a slip that has
#: (nearly) stopped is the polygon's to hold.
CURVATURE_CAP = 1e3
_TINY = 1e-300


class Cone:
    """The spatial contacts' friction polygons (module docstring): per contact N_FAN + N_SLOTS
    rows c . D_j v - s_j <= 0 over x = [v; w], its s_j at column offset + i of w. `state`
    (3 n, columns) holds per contact the slip u_b of the round before (0 in the first) and the
    rows' directions (all 0 in the first round: the fan; a zero column: no row)."""

    rows_per_contact = N_FAN + N_SLOTS
    columns = 1 + rows_per_contact

    def __init__(
        self, D: list, normals: list, tangents: list, state: Any, M_inv: Any, mass: float
    ) -> None:
        self.n, self.D, self.normals = len(D), D, normals
        angles = 2 * np.pi * np.arange(N_FAN) / N_FAN
        self.C, self.set, self.before, self.across = [], [], [], []
        for i, (t1, t2) in enumerate(tangents):
            block = state[3 * i : 3 * i + 3, :]
            fan = [float(np.cos(a)) * t1 + float(np.sin(a)) * t2 for a in angles]
            kept = block[:, 1:]
            C = ca.if_else(ca.sumsqr(kept[:, 0]) > 0.25, kept, ca.horzcat(*fan, ca.DM(3, N_SLOTS)))
            self.C.append(C)  # (3, rows_per_contact)
            self.set.append((ca.sum1(C * C) > 0.25).T)
            self.before.append(block[:, 0])
            speed = ca.fmax(ca.norm_2(block[:, 0]), _TINY)
            self.across.append(ca.cross(normals[i], block[:, 0]) / speed)  # 0 in round one
        self.M_inv = M_inv
        self.cap = CURVATURE_CAP * mass

    def rows(self, nw: int, offset: int) -> Any:
        """(n rows_per_contact, nv + nw): c^T D_j and -1 at s_j."""
        out = []
        for i, (C, Dj) in enumerate(zip(self.C, self.D, strict=True)):
            s = ca.DM.zeros(self.rows_per_contact, nw)
            s[:, offset + i] = -1
            out.append(ca.horzcat(C.T @ Dj, s))
        return ca.vertcat(*out)

    def bounds(self, h: Any, bound: Any) -> tuple[Any, ...]:
        """(cost of s, lbx, ubx, lba, uba) with `bound` (n,) the contacts' g_j: the rows of
        unset cuts and of contacts without friction are off (s_j is then 0)."""
        uba = [ca.if_else(on * (bound[i] > 0), 0, ca.inf) for i, on in enumerate(self.set)]
        return (
            h * bound,
            ca.DM.zeros(self.n),
            ca.inf * ca.DM.ones(self.n),
            -ca.inf * ca.DM.ones(self.n * self.rows_per_contact),
            ca.vertcat(*uba),
        )

    def _kappa(self, h: Any, bound: Any) -> list:
        """Per contact kappa_j = h g_j / |u_b| (kg), capped."""
        return [
            ca.fmin(h * bound[i] / ca.fmax(ca.norm_2(b), _TINY), self.cap)
            for i, b in enumerate(self.before)
        ]

    def curvature(self, h: Any, bound: Any) -> Any:
        """(nv, nv): sum_j kappa_j D_j^T a_j a_j^T D_j, the Hessian of the second-order terms."""
        kappa = self._kappa(h, bound)
        pairs = zip(kappa, self.D, self.across, strict=True)
        return sum(k * (Dj.T @ a) @ (a.T @ Dj) for k, Dj, a in pairs)

    def _slip(self, i: int, v: Any) -> Any:
        """Contact i's slip at v in its tangent plane: D_j v less its part along the unit
        normal (a smoothed radial gap's d is not quite unit, so D_j v keeps ~1e-6 of the normal
        velocity, which no friction row sees)."""
        u, n = self.D[i] @ v, self.normals[i]
        return u - n @ (n.T @ u)

    def _split(self, y: Any) -> list:
        r = self.rows_per_contact
        return [y[r * i : r * (i + 1)] for i in range(self.n)]

    def forces(self, y: Any, v_new: Any, h: Any, bound: Any) -> list:
        """Per contact the friction force (3,): -sum_c y_c c from the rows' multipliers / h, and
        the second-order term's -kappa_j / h a_j (a_j . u_j)."""
        parts = zip(self.C, self._split(y), self._kappa(h, bound), self.across, self.D, strict=True)
        return [-C @ yi - k / h * a @ (a.T @ (Dj @ v_new)) for C, yi, k, a, Dj in parts]

    def law(self, forces: list, y: Any, bounds: tuple, v_new: Any, h: Any, tol: Any) -> tuple:
        """(per contact the force (3,) by which the step misses Coulomb's law, the state of the
        next round) from the friction `forces` and the rows' multipliers y of the step, its
        `bounds` (g (n,), own (n,), margin): the smaller reading of the module docstring. The
        next state: where a contact misses the law by more than CUT_SHARE of `tol` (N; and
        slips by an inertia force m_eff |u| / h that large), its slip at v_new and a row along
        it, in place of a direction within NEAR of it, else as the newest cut (the oldest
        goes); elsewhere the state as it was."""
        bound, own, margin = bounds
        errors, blocks = [], []
        for i, (C, yi, f) in enumerate(zip(self.C, self._split(y), forces, strict=True)):
            u = self._slip(i, v_new)
            speed = ca.norm_2(u)
            direction = u / ca.fmax(speed, _TINY)
            pull = C @ yi
            tresca = f + pull - bound[i] * pull / ca.fmax(ca.sum1(yi), _TINY)
            slipping = tresca + own[i] * direction
            push = self.D[i].T @ direction  # m_eff from the slip compliance D_j M^-1 D_j^T
            m_eff = 1 / ca.fmax(ca.dot(push, self.M_inv @ push), _TINY)
            size = ca.norm_2(f)
            excess = ca.fmax(size - own[i] - margin, 0) * f / ca.fmax(size, _TINY)
            sticking = excess + m_eff * u / h
            off = ca.vertcat(ca.norm_2(slipping), ca.norm_2(sticking))
            errors.append(ca.if_else(off[0] <= off[1], slipping, sticking))
            need = (ca.mmin(off) > CUT_SHARE * tol) * (m_eff * speed / h > CUT_SHARE * tol)
            blocks.append(self._next(i, u, direction, need))
        return errors, ca.vertcat(*blocks)

    def _next(self, i: int, u: Any, direction: Any, need: Any) -> Any:
        """Contact i's state of the next round (`law`)."""
        C = self.C[i]
        near = (C.T @ direction > np.cos(NEAR)).T  # (1, rows_per_contact)
        first = ca.repmat(near * ca.cumsum(near, 1) == 1, 3, 1)  # the first one near
        replaced = C + (direction @ ca.DM.ones(1, self.rows_per_contact) - C) * first
        shifted = ca.horzcat(C[:, :N_FAN], direction, C[:, N_FAN : self.rows_per_contact - 1])
        new = ca.horzcat(u, ca.if_else(ca.sum2(near) > 0, replaced, shifted))
        return ca.if_else(need, new, ca.horzcat(self.before[i], C))
