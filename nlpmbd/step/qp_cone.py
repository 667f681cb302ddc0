"""The friction cone of the spatial contacts in the step QP (step/qp_friction.py): a polygon
under the Tresca term whose multipliers never leave the cone, cut towards it round by round.

A spatial contact j slips in its tangent plane with u_j = D_j v, and the step's Tresca term
h g_j |u_j| (docs/FORMULATION.md section 10) is not quadratic. The QP bounds it from below by
one variable s_j >= 0 of cost h g_j s_j and a row c . u_j - s_j <= 0 for each of a set of unit
directions c in the tangent plane, so that s_j = max_c c . u_j <= |u_j|. Their multipliers
y_c >= 0 (over h) give the friction force f_j = -sum_c y_c c with sum_c y_c <= g_j: a convex
combination of points of the disc |f| <= g_j, so the force never leaves the cone, and a contact
that slips along a direction c (on that row's facet) gets exactly f_j = -g_j c, the law.

The directions are a fan of N_FAN at equal angles from the contact's t1 (step/qp_friction.py's
_tangent: the free slip's direction, the slip's own for a point mass), and up to N_SLOTS cuts:
the step's friction fixed point (step/qp_graph.py) solves it again while Coulomb's law is not
met, and each round adds, where a contact misses the law, a row at the slip direction of the
round before (Kelley's cutting planes; the newest N_SLOTS are kept). A slip that turns within
the step thus lands on a cut along itself: the error of the force's direction shrinks by the
ratio of the friction impulse to the momentum per round. A sticking contact holds any force in
the polygon, which each cut grows towards the disc.

The law is checked per contact at the step's own bounds `own` as the smaller of two readings:
slipping, own_j u/|u| against the Tresca force g_j c_bar (c_bar the multipliers' mean
direction; the force's magnitude without the s_j curvature's bias, as for planar contacts);
sticking, the excess of |f_j| over own_j plus the inertia force m_eff |u_j| / h that would stop
the slip (m_eff the contact's tangential mass along the slip, from D_j M^-1 D_j^T).
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

#: Directions of the fixed fan, and cut directions kept per contact (rows per contact: the sum).
N_FAN, N_SLOTS = 6, 4
#: A contact gets a cut where it misses the law, and its slip's inertia force exceeds, this
#: share of the EoM tolerance (a cut then changes the step; closer cuts only load the QP).
CUT_SHARE = 0.1
_TINY = 1e-300


class Cone:
    """The rows of the spatial contacts' friction polygons (module docstring): per contact
    N_FAN + N_SLOTS rows c . D_j v - s_j <= 0 over x = [v; w], its s_j at column
    offset + i of w; `dirs` (3 n, N_SLOTS) holds each contact's cut directions, newest first
    (a zero column: none)."""

    rows_per_contact = N_FAN + N_SLOTS

    def __init__(self, D: list, tangents: list, dirs: Any, M_inv: Any) -> None:
        self.n, self.D, self.dirs = len(D), D, dirs
        angles = 2 * np.pi * np.arange(N_FAN) / N_FAN
        self.C, self.set = [], []
        for i, (t1, t2) in enumerate(tangents):
            cuts = dirs[3 * i : 3 * i + 3, :]
            fan = [float(np.cos(a)) * t1 + float(np.sin(a)) * t2 for a in angles]
            self.C.append(ca.horzcat(*fan, cuts))  # (3, rows_per_contact)
            self.set.append(ca.vertcat(ca.DM.ones(N_FAN), (ca.sum1(cuts * cuts) > 0.25).T))
        self.W = [Dj @ M_inv @ Dj.T for Dj in D]  # the contacts' slip compliance (3, 3)

    def rows(self, nw: int, offset: int) -> Any:
        """(n rows_per_contact, nv + nw): c^T D_j and -1 at s_j."""
        out = []
        for i, (C, Dj) in enumerate(zip(self.C, self.D, strict=True)):
            s = ca.DM.zeros(self.rows_per_contact, nw)
            s[:, offset + i] = -1
            out.append(ca.horzcat(C.T @ Dj, s))
        return ca.vertcat(*out)

    def bounds(self, h: Any, bound: Any) -> tuple[Any, ...]:
        """(cost of s, lbx, ubx, lba, uba) with `bound` (n,) the contacts' g_j: rows of unset
        cuts and of contacts without friction are off (s_j is then 0)."""
        uba = [ca.if_else(on * (bound[i] > 0), 0, ca.inf) for i, on in enumerate(self.set)]
        return (
            h * bound,
            ca.DM.zeros(self.n),
            ca.inf * ca.DM.ones(self.n),
            -ca.inf * ca.DM.ones(self.n * self.rows_per_contact),
            ca.vertcat(*uba),
        )

    def _split(self, y: Any) -> list:
        r = self.rows_per_contact
        return [y[r * i : r * (i + 1)] for i in range(self.n)]

    def forces(self, y: Any) -> list:
        """Per contact the friction force -sum_c y_c c (3,) from the rows' multipliers / h."""
        return [-C @ yi for C, yi in zip(self.C, self._split(y), strict=True)]

    def errors(
        self, y: Any, bound: Any, own: Any, margin: Any, v_new: Any, h: Any
    ) -> tuple[list, Any, Any]:
        """(per contact the force (3,) by which the step misses Coulomb's law at the bounds
        `own`, the smaller reading of the module docstring; per contact its norm (n,) and the
        inertia force of its slip m_eff |u| / h (n,))."""
        errors, sizes, pushes = [], [], []
        for i, (C, yi) in enumerate(zip(self.C, self._split(y), strict=True)):
            u = self.D[i] @ v_new
            speed = ca.norm_2(u)
            direction = u / ca.fmax(speed, _TINY)
            pull = C @ yi
            mean = pull / ca.fmax(ca.sum1(yi), _TINY)
            slipping = own[i] * direction - bound[i] * mean
            m_eff = 1 / ca.fmax(ca.dot(direction, self.W[i] @ direction), _TINY)
            size = ca.norm_2(pull)
            excess = ca.fmax(size - own[i] - margin, 0) * pull / ca.fmax(size, _TINY)
            sticking = -excess + m_eff * u / h
            pick = ca.norm_2(slipping) <= ca.norm_2(sticking)
            errors.append(ca.if_else(pick, slipping, sticking))
            sizes.append(ca.fmin(ca.norm_2(slipping), ca.norm_2(sticking)))
            pushes.append(m_eff * speed / h)
        return errors, ca.vertcat(*sizes), ca.vertcat(*pushes)

    def next_dirs(self, v_new: Any, sizes: Any, pushes: Any, tolerance: Any) -> Any:
        """`dirs` with each contact's slip direction at v_new put first where it misses the law
        and slips by more than CUT_SHARE of `tolerance` (N; the oldest cut then goes)."""
        blocks = []
        for i, Dj in enumerate(self.D):
            block = self.dirs[3 * i : 3 * i + 3, :]
            u = Dj @ v_new
            cut = u / ca.fmax(ca.norm_2(u), _TINY)
            need = (sizes[i] > CUT_SHARE * tolerance) * (pushes[i] > CUT_SHARE * tolerance)
            shifted = ca.horzcat(cut, block[:, : N_SLOTS - 1])
            blocks.append(ca.if_else(need, shifted, block))
        return ca.vertcat(*blocks)
