"""Vector-linearised radial gaps on the QP path (issue 16): |d(qm) + h D v| <= c by cutting planes.

A pin's or ball's gap is Phi = |d| - c (smoothed) of an offset vector d (Joint.gap_offsets;
model `offset`, `offset_v` = D). The scalar linearisation Phi(qm) + h Phi_v v <= 0 bounds only
d's component along n0 = d(qm)/|d(qm)|: within one step the offset may slide round the seat by
h |D v|, which penetrates by about (h |D v|)^2 / 2c once that exceeds c and leaves the
projection a correction that biases the motion (the clearance pendulum at c = 1e-6 m, h = 1e-3 s
ends centimetres from the ideal one). The vector form keeps the whole predicted offset
d1 = d(qm) + h D v in the disc (ball) of radius c; at c -> 0 it is the ideal joint's
linearised equality d(qm) + h D v = 0, at any h.

The disc is convex but not polyhedral; the QP keeps it by Kelley's cutting planes (an outer
approximation). The first QP has the scalar row, i.e. the half-space that supports the disc at
n0. Where its solution's d1 lies outside the disc by more than CUT_TOL c, the half-space that
supports the disc at n1 = d1/|d1|, n1 . (d(qm) + h D v) <= c, is added and the QP solved again,
at most N_CUTS times (each round a Function.if_else branch: it runs only when needed). What the
last QP leaves outside the disc is penetration like any other: the projection removes it, or
without one the next step's rows pull the offset back in through the velocity.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from ..model.symbolic import SymbolicModel

#: Fraction of c by which the predicted offset may leave its disc before a cut is added.
CUT_TOL = 1e-3
#: Cuts per step (QPs beyond the first).
N_CUTS = 2


def n_cone(model: SymbolicModel) -> int:
    return int(np.count_nonzero(model.cone > 0))


class Cuts:
    """The cut rows of one step QP at (q, h): `dirs` (3n, N_CUTS), n the radial gaps, holds one
    direction per gap and cut (a zero entry: no cut there)."""

    def __init__(self, model: SymbolicModel, q: Any, h: Any, released: Any, drift: Any) -> None:
        """`drift`: the offsets' second-order part over the step (StepKernel.offset_drift)."""
        self.index = np.flatnonzero(model.cone > 0)
        self.c = model.cone[self.index]
        off, Dv = model.offset(q) + drift, model.offset_v(q)
        self.d0 = [off[3 * j : 3 * j + 3] for j in self.index]
        self.D = [Dv[3 * j : 3 * j + 3, :] for j in self.index]
        self.free = [released[j] == 0 for j in self.index]
        self.h, self.nc = h, model.n_gap

    def rows(self, dirs: Any) -> tuple[Any, Any, Any]:
        """(A (n N_CUTS, 6N), upper bounds (m/s), on (1 where a cut is set)), cut after cut."""
        A, uba, on = [], [], []
        for k in range(N_CUTS):
            for i, (d, D) in enumerate(zip(self.d0, self.D, strict=True)):
                n = dirs[3 * i : 3 * i + 3, k]
                set_ = (ca.dot(n, n) > 0.25) * self.free[i]
                A.append(n.T @ D)
                uba.append(ca.if_else(set_, (self.c[i] - ca.dot(n, d)) / self.h, ca.inf))
                on.append(set_)
        return ca.vertcat(*A), ca.vertcat(*uba), ca.vertcat(*on)

    def totals(self) -> ca.DM:
        """(M, n N_CUTS): sums each gap's cut multipliers into its normal force."""
        S = np.zeros((self.nc, len(self.index) * N_CUTS))
        for k in range(N_CUTS):
            S[self.index, k * len(self.index) + np.arange(len(self.index))] = 1.0
        return ca.DM(S)

    def next(self, v_new: Any, dirs: Any, k: int) -> tuple[Any, Any]:
        """(dirs with column k set to d1/|d1| where the solution v_new leaves a disc by more
        than CUT_TOL c, whether any does)."""
        column, need = [], []
        for i, (d, D) in enumerate(zip(self.d0, self.D, strict=True)):
            d1 = d + self.h * D @ v_new
            r = ca.norm_2(d1)
            out = (r > (1 + CUT_TOL) * self.c[i]) * self.free[i]
            column.append(ca.if_else(out, d1 / r, ca.DM.zeros(3)))
            need.append(out)
        cols = [dirs[:, j] for j in range(N_CUTS)]
        cols[k] = ca.vertcat(*column)
        return ca.horzcat(*cols), ca.mmax(ca.vertcat(0, *need))

    def effects(self, A: Any, uba: Any, on: Any, force: Any, v_new: Any) -> tuple:
        """Of the cut rows (A, uba, on) and their forces (N): (the normal force each adds to
        its gap (M), their generalised force A^T force (6N), each row's violation (m) and
        force x violation (N m), 0 where no cut is set)."""
        slack = ca.if_else(on, self.h * (A @ v_new - uba), 0)
        comp = ca.fabs(force * slack)
        return self.totals() @ force, A.T @ force, ca.fmax(slack, 0), comp
