"""Vector-linearised radial gaps on the QP path (issue 16): |d(qm) + h D v| <= c by cutting planes.

A pin's or ball's gap is Phi = |d| - c (smoothed) of an offset vector d (Joint.gap_offsets;
model `offset`, `offset_v` = D). The scalar linearisation Phi(qm) + h Phi_v v <= 0 bounds only
d's component along n0 = d(qm)/|d(qm)|: within one step the offset may slide round the seat by
h |D v|, which penetrates by about (h |D v|)^2 / 2c once that exceeds c and leaves the
projection a correction that biases the motion (the clearance pendulum at c = 1e-6 m, h = 1e-3 s
ends centimetres from the ideal one). The vector form keeps the whole predicted offset
d1 = d(qm) + h D v in the disc (ball) of radius c; at c -> 0 it is the ideal joint's
linearised equality d(qm) + h D v = 0, at any h.

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

from collections.abc import Callable
from typing import Any

import casadi as ca
import numpy as np

from ..model.symbolic import SymbolicModel
from .qp_friction import FREE_BELOW

#: Fraction of c by which the predicted offset may leave its disc before a cut is added. What
#: is left outside is pushed back in through the next step's velocity, at up to CUT_TOL c / h:
#: a spurious restitution that grows as h shrinks. At 1e-3 the spatial slider-crank with play
#: at every joint gained energy in a third of its plastic steps and its impact cascades lost
#: less energy the smaller h (its lag did not converge); at 1e-6 no step gains energy
#: (tests/test_cut_push_out.py, benchmarks/results/spatial_lag.md).
CUT_TOL = 1e-6
#: Turn (rad) of a loaded gap's normal over the step beyond which it takes a round even
#: inside its disc
TURN_TOL = 1e-6
#: Cut rounds per step (QPs beyond the first).
N_CUTS = 4
#: Cut slots per gap (columns of `dirs`): a round's cut replaces the one before it.
N_SLOTS = 1
#: Angle (rad) of the fan's planes from the offset's current direction, and their number.
FAN, N_FAN = 0.3, 4


def n_cone(model: SymbolicModel) -> int:
    return int(np.count_nonzero(model.cone > 0))


#: Entries per gap in `dirs`: the cut's direction n (3) and offset b (m, 1), the weight w of
#: the disc's curvature (kg, 1) and the offset's tangential velocity t (m/s, 3) where it was made.
ROWS = 8


class Cuts:
    """The cut rows of one step QP at (q, h): `dirs` (ROWS n, N_SLOTS), n the radial gaps, holds
    per gap the direction n, b = n . (d(q1) - h D v1), the row being n . D v <= (c - b) / h (a
    zero n: no cut there), and its curvature's w and t (`curvature`)."""

    def __init__(
        self,
        model: SymbolicModel,
        q: Any,
        h: Any,
        released: Any,
        drift: Any,
        moved: Callable[[Any], Any] | None = None,
        use: Any = 1.0,
        fan: bool = True,
    ) -> None:
        """`drift`: the offsets' second-order part over the step (StepKernel.offset_drift);
        `moved(v)`: the positions after the step at velocity v (StepKernel.update), needed by
        `next` only; `use` < 0 marks the second-order scheme's velocity stage, which keeps
        closed contacts by their normal rows alone (no fan, no cuts); `fan`: whether the rows
        have the fan's (the first QP's)."""
        self.index = np.flatnonzero(model.cone > 0)
        self.c = model.cone[self.index]
        D = model.offset_v(q)  # once: a call per gap evaluated the whole Jacobian per gap
        self.D = [D[3 * j : 3 * j + 3, :] for j in self.index]
        self.free = [released[j] == 0 for j in self.index]
        self.h, self.nc, self.model, self.moved = h, model.n_gap, model, moved
        self.fanned = [f * (use >= 0) for f in self.free]
        self.n_fan = N_FAN if fan else 0
        d = model.offset(q) + drift
        self.d0 = [d[3 * j : 3 * j + 3] for j in self.index]  # the step start's (predicted)
        self.fan = ca.horzcat(*[self._fan(d[3 * j : 3 * j + 3], c) for j, c in self._cone()])

    def _cone(self) -> list[tuple[int, float]]:
        return list(zip(self.index.tolist(), self.c.tolist(), strict=True))

    @staticmethod
    def _fan(d: Any, c: float) -> Any:
        """(ROWS, N_FAN) cuts set from the start: the disc's tangent planes at FAN rad from
        n0 = d/|d| towards either side of two tangents t1, t2 (an orthonormal basis with n0,
        Frisvad's construction as revised by Duff et al. 2017), so the first QP cannot slide
        the offset far round the seat. Offsets in a plane (a pin) have one tangent there, in
        the span of t1, t2; a plane then holds the slide to sqrt(2) c tan(FAN/2)."""
        n = d / ca.sqrt(ca.dot(d, d) + (1e-3 * c) ** 2)
        sign = ca.if_else(n[2] >= 0, 1.0, -1.0)
        a = -1.0 / (sign + n[2])
        b = n[0] * n[1] * a
        t1 = ca.vertcat(1 + sign * n[0] ** 2 * a, sign * b, -sign * n[0])
        t2 = ca.vertcat(b, sign + n[1] ** 2 * a, -n[1])
        cols = []
        for t in (t1, -t1, t2, -t2):
            w = np.cos(FAN) * n + np.sin(FAN) * t
            w = w / ca.fmax(ca.norm_2(w), 1.0)  # |w| <= 1: a half-space holding the disc
            cols.append(ca.vertcat(w, ca.dot(w, d)))
        return ca.horzcat(*cols)

    def rows(self, dirs: Any) -> tuple[Any, Any, Any]:
        """(A (n (n_fan + N_SLOTS), 6N), upper bounds (m/s), on (1 where a cut is set)): the
        fan (`_fan`, off where a cut is set), then the cuts."""
        A, uba, on = [], [], []
        self.curved = self.curvature(dirs)
        cut = [self._set(dirs, i) for i in range(len(self.D))]
        for k in range(self.n_fan):
            for i, D in enumerate(self.D):
                w, b = self.fan[:3, N_FAN * i + k], self.fan[3, N_FAN * i + k]
                fanned = self.fanned[i] * (1 - cut[i])
                A.append(w.T @ D)
                uba.append(ca.if_else(fanned, (self.c[i] - b) / self.h, ca.inf))
                on.append(fanned)
        for k in range(N_SLOTS):
            for i, D in enumerate(self.D):
                n, b = dirs[ROWS * i : ROWS * i + 3, k], dirs[ROWS * i + 3, k]
                set_ = (ca.dot(n, n) > 0.25) * self.free[i]
                A.append(n.T @ D)
                uba.append(ca.if_else(set_, (self.c[i] * ca.norm_2(n) - b) / self.h, ca.inf))
                on.append(set_)
        return ca.vertcat(*A), ca.vertcat(*uba), ca.vertcat(*on)

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

    def totals(self) -> ca.DM:
        """(M, n (n_fan + N_SLOTS)): sums each gap's cut multipliers into its normal force."""
        S = np.zeros((self.nc, len(self.index) * (self.n_fan + N_SLOTS)))
        for k in range(self.n_fan + N_SLOTS):
            S[self.index, k * len(self.index) + np.arange(len(self.index))] = 1.0
        return ca.DM(S)

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

    def next(self, v_new: Any, dirs: Any, lam: Any) -> tuple[Any, Any]:
        """(the cuts at v_new, whether another round is needed: an offset d(q(v_new)) leaves
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
        """Of the cut rows (A, uba, on) and their forces (N): (the normal force each adds to
        its gap (M), their generalised force A^T force with the curvature's (6N), each row's
        violation (m) and force x violation (N m), 0 where no cut is set)."""
        slack = ca.if_else(on, self.h * (A @ v_new - uba), 0)
        comp = ca.fabs(force * slack)
        G, r = self.curved  # the curvature's force: the cuts' normals turned to the point's
        generalised = A.T @ force + G.T @ (G @ v_new - r) / self.h
        return self.totals() @ force, generalised, ca.fmax(slack, 0), comp
