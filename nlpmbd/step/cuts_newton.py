"""Vector-linearised radial gaps on the QP path by Newton's rounds (issue 30): |d(qm) + h D v| <= c
by sequential linearisation with the disc's curvature, for models without friction (step/cuts.py
has the gap and its vector form, the fan and Kelley's cutting planes, which the models with
friction keep).

The disc is convex but not polyhedral; the QP keeps it by sequential linearisation (SQP). The
first QP has the scalar row, i.e. the half-space that supports the disc at n0, and a fan of
tangent planes round it (`_fan`) that bounds the slide round the seat. Where its solution v1
moves the offset outside the disc by more than CUT_TOL c, measured on the true offset d(q1) at
the updated position q1 = q(v1), not on its linear prediction, the QP is solved again (at
most N_CUTS times, each round a Function.if_else branch that runs only when needed) without
the fan, each radial gap that is outside or loaded (or had a cut) having its scalar row
replaced by the linearisation of |d(q(v))| <= c at v1: the tangent plane n1 . (d(q1) + h D
(v - v1)) <= c, n1 = d(q1)/|d(q1)|, with the disc's curvature lambda h^2 / |d| |P D (v - v1)|^2
/ 2 (P = I - n1 n1^T, lambda the gap's normal force) in the QP's Hessian (`curvature`). The
curvature is what makes it Newton's method: a plane alone overshoots the seat by the ratio of
the pull to c each round (it swings and diverges once that exceeds 2), and Kelley's planes
added one per round converge by 3-4 per round only (the point sits at the vertex of the last
two, benchmarks/results/qp_cut_rounds.md). Its force G^T (G v - r) / h, first order in the
normal's rotation, is part of the cut's reaction. A fixed point of the rounds thus meets the
nonlinear gap itself. What the last QP leaves outside the disc is penetration like any other:
the projection removes it, or without one the next step's rows pull the offset back in
through the velocity.
"""

from __future__ import annotations

from typing import Any

import casadi as ca

from .cuts import CUT_TOL, Cuts
from .qp_friction import FREE_BELOW

#: Turn (rad) of a loaded gap's normal over the step beyond which it takes a round even
#: inside its disc
TURN_TOL = 1e-6
#: Cut slots per gap (columns of `dirs`): a round's cut replaces the one before it.
N_SLOTS = 1
#: Entries per gap in `dirs`: the cut's direction n (3) and offset b (m, 1), the weight w of
#: the disc's curvature (kg, 1) and the offset's tangential velocity t (m/s, 3) where it was made.
ROWS = 8


class NewtonCuts(Cuts):
    """Newton's cut rows of one step QP at (q, h): `dirs` (ROWS n, N_SLOTS), n the radial gaps,
    holds per gap the direction n, b = n . (d(q1) - h D v1), the row being n . D v <= (c - b) /
    h (a zero n: no cut there), and its curvature's w and t (`curvature`)."""

    entries, slots = ROWS, N_SLOTS

    def rows(self, dirs: Any) -> tuple[Any, Any, Any]:
        """Cuts.rows, the fan off where a cut is set; the curvature of `dirs` kept for the
        QP's Hessian (`curved`)."""
        self.curved = self.curvature(dirs)
        return super().rows(dirs)

    def _fanned(self, dirs: Any, i: int) -> Any:
        return self.fanned[i] * (1 - self._set(dirs, i))

    def _radius(self, n: Any, i: int) -> Any:
        """c |n|: n is the gap's smoothed gradient (`next`), of norm 1 - 5e-7 at c."""
        return self.c[i] * ca.norm_2(n)

    def _set(self, dirs: Any, i: int) -> Any:
        """1 where gap i (of the radial ones) has a cut set in `dirs`."""
        n = dirs[ROWS * i : ROWS * i + 3, :]
        return ca.mmax(ca.sum1(n * n)) > 0.25

    def cut_gaps(self, dirs: Any) -> Any:
        """(M): 1 where a radial gap has a cut set, its scalar row then released (the cut, the
        tangent plane at the latest offset, replaces it: a vertex of two planes would hold the
        point outside the disc)."""
        on = ca.MX.zeros(self.nc)
        for i, j in enumerate(self.index.tolist()):
            on[j] = self._set(dirs, i) * self.free[i]
        return on

    def curvature(self, dirs: Any) -> tuple[Any, Any]:
        """(G (3n, 6N), r (3n)): the discs' curvature 1/2 |G v - r|^2 = sum_i w_i / 2
        |P_i (D_i v - t_i)|^2 (P_i = I - n_i n_i^T, w_i = lambda_i h^2 / |d_i|), the cuts'
        share of the Lagrangian Hessian of |d(q(v))| <= c about the points where they were
        made (module docstring)."""
        G, r = [], []
        for i, D in enumerate(self.D):
            n, w, t = (dirs[ROWS * i + a : ROWS * i + b, 0] for a, b in ((0, 3), (4, 5), (5, 8)))
            s, n = ca.sqrt(w), n / ca.fmax(ca.norm_2(n), 0.5)  # unit, where a cut is set
            G.append(s * (D - n @ (n.T @ D)))
            r.append(s * t)
        G, r = ca.vertcat(*G), ca.vertcat(*r)
        return G, r

    def next(self, v_new: Any, dirs: Any, k: int, lam: Any) -> tuple[Any, Any]:
        """(the cuts at v_new, whether another round (k) is needed: an offset d(q(v_new)) leaves
        its disc by more than CUT_TOL c, or a gap is loaded without a cut yet): the
        linearisation at v_new of each gap outside its disc, loaded (`lam`, the normal forces,
        N) or with a cut before, else its cut before (none)."""
        column, need = [], []
        assert self.moved is not None
        off = self.model.offset(self.moved(v_new))
        loads = lam > FREE_BELOW * ca.fmax(1.0, ca.mmax(ca.vertcat(0, lam)))
        for i, (j, D) in enumerate(zip(self.index, self.D, strict=True)):
            d1 = off[3 * j : 3 * j + 3]
            r = ca.norm_2(d1)
            out = (r > (1 + CUT_TOL) * self.c[i]) * self.free[i]
            cut_before = self._set(dirs, i)
            # a direction only where the offset is near its seat
            renew = out + (cut_before + loads[j]) * (r > 0.5 * self.c[i])
            # the gap's smoothed gradient (|n| = 1 - 5e-7 at c, the joints' eps = 1e-3 c), whose
            # multiplier the normal force then is, as for the scalar row
            n = d1 / ca.sqrt(r**2 + (1e-3 * self.c[i]) ** 2)
            Dv = D @ v_new
            w = ca.fmax(lam[j], 0) * self.h**2 / ca.fmax(r, self.c[i])
            u = d1 / ca.fmax(r, 1e-300)
            cut = ca.vertcat(n, ca.dot(n, d1 - self.h * Dv), w, Dv - u * ca.dot(u, Dv))
            keep = dirs[ROWS * i : ROWS * (i + 1), 0]
            column.append(ca.if_else(renew * self.free[i], cut, keep))
            # a loaded gap whose normal turned takes a round even when inside: its force
            # otherwise keeps the step start's normal, which rocks a pin between its ends' gaps
            start = self.d0[i] / ca.fmax(ca.norm_2(self.d0[i]), 1e-300)
            turned = ca.norm_2(u - start) > TURN_TOL
            need.append(out + loads[j] * self.free[i] * (1 - cut_before) * turned)
        return ca.vertcat(*column), ca.mmax(ca.vertcat(0, *need))

    def effects(self, A: Any, uba: Any, on: Any, force: Any, v_new: Any) -> tuple:
        """Cuts.effects, the curvature's force G^T (G v - r) / h added to the generalised one:
        the cuts' normals turned to the point's."""
        added, generalised, viol, comp = super().effects(A, uba, on, force, v_new)
        assert self.curved is not None  # set by `rows`
        G, r = self.curved
        return added, generalised + G.T @ (G @ v_new - r) / self.h, viol, comp
