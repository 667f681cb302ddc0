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
n0. Where its solution v1 moves the offset outside the disc by more than CUT_TOL c, measured on
the true offset d(q1) at the updated position q1 = q(v1), not on its linear prediction, the
linearisation of n1 . d(q(v)) at v1 with n1 = d(q1)/|d(q1)| is added,
n1 . (d(q1) + h D (v - v1)) <= c, and the QP solved again, at most N_CUTS times (each round a
Function.if_else branch: it runs only when needed). A fixed point of the rounds thus meets
the nonlinear gap itself, and the O(h^3) remainder of the predicted drift goes with the
polygon's error. What the last QP leaves outside the disc is penetration like any other: the
projection removes it, or without one the next step's rows pull the offset back in through
the velocity.

Models without contact or joint friction take Newton's rounds instead (step/cuts_newton.py:
one cut a gap with the disc's curvature, which converges in a round or two where Kelley's
planes take all four); under Coulomb's fixed point those did not converge (step/
qp_cut_rounds.py), so Kelley's planes stay there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import casadi as ca
import numpy as np

from ..model.symbolic import SymbolicModel

#: Fraction of c by which the predicted offset may leave its disc before a cut is added. What
#: is left outside is pushed back in through the next step's velocity, at up to CUT_TOL c / h:
#: a spurious restitution that grows as h shrinks. At 1e-3 the spatial slider-crank with play
#: at every joint gained energy in a third of its plastic steps and its impact cascades lost
#: less energy the smaller h (its lag did not converge); at 1e-6 no step gains energy
#: (tests/test_cut_push_out.py, benchmarks/results/spatial_lag.md).
CUT_TOL = 1e-6
#: Cuts per step (QPs beyond the first).
N_CUTS = 4
#: Angle (rad) of the fan's planes from the offset's current direction, and their number.
FAN, N_FAN = 0.3, 4


def n_cone(model: SymbolicModel) -> int:
    return int(np.count_nonzero(model.cone > 0))


#: Entries per gap and cut in `dirs`: the direction n (3) and the cut's offset b (m, 1).
ROWS = 4


class Cuts:
    """Kelley's cut rows of one step QP at (q, h): `dirs` (ROWS n, N_CUTS), n the radial gaps, holds
    per gap and cut the direction n and b = n . (d(q1) - h D v1), the row being
    n . D v <= (c - b) / h (a zero n: no cut there)."""

    #: entries per gap and slot in `dirs`, and its slots (columns)
    entries, slots = ROWS, N_CUTS
    #: the discs' curvature in the QP's Hessian (step/cuts_newton.py), none here
    curved: tuple[Any, Any] | None = None

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
        have the fan's (Kelley's QPs always, Newton's the step's first)."""
        self.index = np.flatnonzero(model.cone > 0)
        self.c = model.cone[self.index]
        # once: a call per gap evaluated the whole Jacobian per gap
        self.jacobian = D = model.offset_v(q)
        self.D = [D[3 * j : 3 * j + 3, :] for j in self.index]
        self.released, self.use = released, use
        self.free = [released[j] == 0 for j in self.index]
        self.h, self.nc, self.model, self.moved = h, model.n_gap, model, moved
        #: the fan's rows per radial gap (before the cuts' slots)
        self.n_fan = N_FAN if fan else 0
        self.fanned = [f * (use >= 0) for f in self.free]
        d = model.offset(q) + drift
        self.d0 = [d[3 * j : 3 * j + 3] for j in self.index]  # the step start's (predicted)

    @classmethod
    def state(cls, model: SymbolicModel) -> dict[str, ca.MX]:
        """The symbols of a QP's cut state (its inputs besides the step's): `cuts`, the rows'
        `dirs` (the scheme's entries per radial gap and slot)."""
        return {"cuts": ca.MX.sym("cuts", cls.entries * n_cone(model), cls.slots)}

    def first(self, v: Any, normal: Any) -> dict[str, Any]:
        """The cut state of the step's first QP: no cuts (the fan's rows hold the slide)."""
        return {"cuts": ca.DM.zeros(self.entries * len(self.index), self.slots)}

    def advance(self, v_new: Any, state: dict, k: int, lam: Any) -> tuple[dict, Any]:
        """(the cut state of round k, whether it is needed) after a QP's solution v_new with
        normal forces `lam` (`next`)."""
        dirs, need = self.next(v_new, state["cuts"], k, lam)
        return {"cuts": dirs}, need

    @functools.cached_property
    def fan(self) -> Any:
        """(ROWS, N_FAN n): `_fan` of every radial gap at the step start's offsets, built where
        used (Newton's rows build theirs vectorised: 0.37 of 1.4 s of the 32-link clearance
        chain's warm setup went to this one)."""
        return ca.horzcat(*[self._fan(self.d0[i], c) for i, (_, c) in enumerate(self._cone())])

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

    def rows(self, state: dict) -> tuple[Any, Any, Any]:
        """(A (n (fan + slots), 6N), upper bounds (m/s), on (1 where a row holds)) of the cut
        state (`state`): the fan (`_fan`, on the contacts `fanned`), then slot after slot of
        cuts."""
        A, uba, on, dirs = [], [], [], state["cuts"]
        for k in range(self.n_fan):
            for i, D in enumerate(self.D):
                w, b = self.fan[:3, N_FAN * i + k], self.fan[3, N_FAN * i + k]
                A.append(w.T @ D)
                uba.append(ca.if_else(self.fanned[i], (self.c[i] - b) / self.h, ca.inf))
                on.append(self.fanned[i])
        e = self.entries
        for k in range(self.slots):
            for i, D in enumerate(self.D):
                n, b = dirs[e * i : e * i + 3, k], dirs[e * i + 3, k]
                set_ = (ca.dot(n, n) > 0.25) * self.free[i]
                A.append(n.T @ D)
                uba.append(ca.if_else(set_, (self.c[i] - b) / self.h, ca.inf))
                on.append(set_)
        return ca.vertcat(*A), ca.vertcat(*uba), ca.vertcat(*on)

    def cut_gaps(self, state: dict) -> Any:
        """(M): 1 where a gap's scalar row is replaced by a cut: none (Kelley's cuts add to it)."""
        return ca.MX.zeros(self.nc)

    def totals(self) -> ca.DM:
        """(M, n (fan + slots)): sums each gap's cut multipliers into its normal force."""
        S = np.zeros((self.nc, len(self.index) * (self.n_fan + self.slots)))
        for k in range(self.n_fan + self.slots):
            S[self.index, k * len(self.index) + np.arange(len(self.index))] = 1.0
        return ca.sparsify(ca.DM(S))  # dense storage made it a 64 x 64 product at N = 32

    def next(self, v_new: Any, dirs: Any, k: int, lam: Any) -> tuple[Any, Any]:
        """(dirs with column k (round k) set to the cuts at v_new where the offset d(q(v_new))
        leaves its disc by more than CUT_TOL c, whether any does); `lam`, the normal forces
        (N), is for Newton's rounds."""
        column, need = [], []
        assert self.moved is not None
        off = self.model.offset(self.moved(v_new))
        for i, (j, D) in enumerate(zip(self.index, self.D, strict=True)):
            d1 = off[3 * j : 3 * j + 3]
            r = ca.norm_2(d1)
            out = (r > (1 + CUT_TOL) * self.c[i]) * self.free[i]
            n = d1 / r
            cut = ca.vertcat(n, ca.dot(n, d1 - self.h * D @ v_new))
            column.append(ca.if_else(out, cut, ca.DM.zeros(ROWS)))
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
