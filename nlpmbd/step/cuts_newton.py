"""Vector-linearised radial gaps on the QP path by Newton's rounds (issue 30): |d(qm) + h D v| <= c
by sequential linearisation with the disc's curvature, for models without friction (step/cuts.py
has the gap and its vector form, the fan and Kelley's cutting planes, which the models with
friction keep).

The disc is convex but not polyhedral; the QP keeps it by sequential linearisation (SQP), each
radial gap that is outside its disc, loaded or cut before having its scalar row replaced by the
linearisation of |d(q(v))| <= c at a point v1: the tangent plane n1 . (d(q1) + h D (v - v1))
<= c, q1 = q(v1), n1 = d(q1)/|d(q1)|, with the disc's curvature lambda h^2 / |d| |P D (v -
v1)|^2 / 2 (P = I - n1 n1^T, lambda the gap's normal force) in the QP's Hessian (`curvature`).
The curvature is what makes it Newton's method: a plane alone overshoots the seat by the ratio
of the pull to c each round (it swings and diverges once that exceeds 2), and Kelley's planes
added one per round converge by 3-4 per round only (the point sits at the vertex of the last
two, benchmarks/results/qp_cut_rounds.md). Its force G^T (G v - r) / h, first order in the
normal's rotation, is part of the cut's reaction. A fixed point of the rounds thus meets the
nonlinear gap itself, its force along D^T n1 (D the offsets' Jacobian at the step's start, the
scalar row's and the ideal joint's: a Jacobian at q1 made the rounds converge in one but moved
the fixed point, and the spatial slider-crank with play at every joint then gained energy in
its plastic steps, tests/test_cut_push_out.py, and the first-order clearance pendulum lost 2 %
of its energy a second).

The step's first QP is a round from a predicted velocity (`first`): its cuts are made at q(v_p)
for the gaps loaded in the step before, their curvature weighed by the normal forces that start
the step (the QP's `normal` input, extrapolated from the steps before), v_p the step's
first-stage velocity extrapolated quadratically from the steps before's (step/qp_symbols.py
predicted_velocity; the chunks carry what it needs, run/chunk_graph.py). It keeps the fan of
tangent planes round every free gap's seat (Cuts._fan, 0.3 rad either side of the step start's
direction): where the forces underestimate the curvature, the slide round the seat overshoots
without it (the swinging cylindrical slider at c = 1e-6 m, tests/test_clearance_limit.py, with
v_p = v0: 765 of 1000 steps used every round and the offsets left their discs by 60 c; with the
fan 38). The fan's rows are left out of the guessed KKT system (step/qp_guess_sparse.py `skip`).
Where v1 moves an offset outside its disc by more than CUT_TOL c, measured on the true offset
d(q1), not on its linear prediction, or a loaded gap's normal turned (from the step start's
where it has no cut; from its cut's by 1/2 |n1 - n|^2 where it has one, the curvature's force
turning it to first order), the QP is solved again without the fan (at most N_CUTS times, each
round a Function.if_else branch that runs only when needed), every cut near its seat renewed at
v1. On the 8-link clearance chain (h = 1e-3 s, benchmarks/cut_excess.py, median excess over the
first and the last 0.15 s): stop 40's first QP (no cuts) left the offsets 1.2e-4 / 2.2e-4 c
outside and needed 0.99 rounds a step, then 0.89 and 0.18 more; cuts at q(v0), 7e-5 / 1.9e-4 c
and 0.99, 0.06, 0.03; at the linear extrapolation of the first-stage velocity 4e-7 / 1.3e-6 c
and 0.53; at the quadratic one 1.0e-7 / 1.9e-7 c and 0.17, 0.06, 0.04 (at the step's own
solution, 6e-11 c). What the last QP leaves outside the disc is penetration like any other: the
projection removes it, or without one the next step's rows pull the offset back in through the
velocity.

The rows, the curvature, the fan and the rounds' updates are vectorised over the gaps (one
sparse product for all of them, the blocks of the gaps' vectors a cast of their nonzeros, not
one product a gap): the 32-link chain's cold setup fell from 19 to 9 s.
"""

from __future__ import annotations

import functools
from typing import Any

import casadi as ca
import numpy as np

from .cuts import CUT_TOL, FAN, Cuts
from .qp_friction import FREE_BELOW

#: Turn (rad) of a loaded gap's normal over the step beyond which it takes a round even
#: inside its disc
TURN_TOL = 1e-6
#: Entries per gap in `dirs`: the cut's direction n (3) and offset b (m, 1), the weight w of
#: the disc's curvature (kg, 1) and the offset's tangential velocity t (m/s, 3) where it was made.
ROWS = 8


class NewtonCuts(Cuts):
    """Newton's cut rows of one step QP at (q, h): the cut state's `cuts` (ROWS n, 1), n the
    radial gaps, holds per gap the direction n, b = n . (d(q1) - h D v1), the row being
    n . D v <= (c |n| - b) / h (a zero n: no cut there), and its curvature's w and t
    (`curvature`). Vectorised over the gaps (module docstring)."""

    entries, slots = ROWS, 1

    @functools.cached_property
    def rows3(self) -> list[int]:
        """The radial gaps' rows among the offsets' (3 a gap)."""
        return [3 * j + a for j in self.index.tolist() for a in range(3)]

    @functools.cached_property
    def cv(self) -> ca.DM:
        """(1, n): the radial gaps' clearances."""
        return ca.DM(self.c).T

    @functools.cached_property
    def free_v(self) -> Any:
        """(1, n): 1 where a radial gap is not released."""
        return (self.released[self.index.tolist()] == 0).T

    @functools.cached_property
    def pattern(self) -> ca.Sparsity:
        """(n, 3n): a gap's three entries in its row (a block row of vectors, `_blocks`)."""
        n = len(self.index)
        return ca.Sparsity.triplet(
            n, 3 * n, [i for i in range(n) for _ in range(3)], list(range(3 * n))
        )

    @functools.cached_property
    def spread(self) -> ca.DM:
        """(M, n): a radial gap's entry to its place among all gaps."""
        spread = np.zeros((self.nc, len(self.index)))
        spread[self.index, np.arange(len(self.index))] = 1.0
        return ca.sparsify(ca.DM(spread))

    @functools.cached_property
    def Dc(self) -> Any:
        """(3n, 6N): the radial gaps' rows of the offsets' Jacobian at the step start."""
        return self.jacobian[self.rows3, :]

    @functools.cached_property
    def u0(self) -> Any:
        """(3, n): the offsets' directions at the step start (predicted)."""
        d0 = ca.horzcat(*self.d0)
        return d0 / ca.repmat(ca.fmax(ca.sqrt(ca.sum1(d0 * d0)), 1e-300), 3, 1)

    @functools.cached_property
    def planes(self) -> list[tuple[Any, Any]]:
        """The fan's planes of every gap (`_fans`), where the rows have the fan."""
        return self._fans(ca.horzcat(*self.d0)) if self.n_fan else []

    def first(self, v: Any, normal: Any) -> dict[str, Any]:
        """The first QP's cut state: the cuts made at q(v), v the predicted velocity, for the
        gaps loaded in the step before (`normal`, the normal forces that start the step, weigh
        the curvature) or outside their discs there: the first QP is a Newton round from v
        (module docstring)."""
        zero = {"cuts": ca.DM.zeros(ROWS * len(self.index), 1)}
        state, _ = self.advance(v, zero, 0, normal)
        return state

    def _split(self, dirs: Any) -> tuple[Any, Any]:
        """(the entries per gap (ROWS, n), 1 where a gap's cut is set (1, n))."""
        X = ca.reshape(dirs, ROWS, len(self.index))
        return X, (ca.sum1(X[:3, :] * X[:3, :]) > 0.25) * self.free_v

    def rows(self, state: dict) -> tuple[Any, Any, Any]:
        """(A (n (fan + 1), 6N), upper bounds (m/s), on): the fan's rows (Cuts._fan, the first
        QP's) on every free gap, then one cut row a gap; the curvature kept for the QP's
        Hessian (`curved`)."""
        X, on = self._split(state["cuts"])
        # the fan holds every free gap (the predicted cuts' curvature is weighed by the step
        # before's forces: where they are too small, the slide overshoots without it)
        fanned = self.free_v * (self.use >= 0)
        A, uba, flags = [], [], []
        for W, b in self.planes:  # the fan's k-th plane of every gap
            A.append(self._blocks(W) @ self.Dc)
            uba.append(ca.if_else(fanned, (self.cv - b) / self.h, ca.inf))
            flags.append(fanned)
        N = X[:3, :]
        A.append(self._blocks(N) @ self.Dc)
        uba.append(ca.if_else(on, (self.cv * ca.sqrt(ca.sum1(N * N)) - X[3, :]) / self.h, ca.inf))
        flags.append(on)
        self.curved = self.curvature(X)
        return ca.vertcat(*A), ca.horzcat(*uba).T, ca.horzcat(*flags).T

    def cut_gaps(self, state: dict) -> Any:
        """(M): 1 where a radial gap has a cut set, its scalar row then released (the cut, the
        tangent plane at the latest offset, replaces it: a vertex of two planes would hold the
        point outside the disc)."""
        return self.spread @ self._split(state["cuts"])[1].T

    def curvature(self, X: Any) -> tuple[Any, Any]:
        """(G (3n, 6N), r (3n)): the discs' curvature 1/2 |G v - r|^2 = sum_i w_i / 2
        |P_i (D1_i v - t_i)|^2 (P_i = I - n_i n_i^T, w_i = lambda_i h^2 / |d_i|), the cuts'
        share of the Lagrangian Hessian of |d(q(v))| <= c about the points where they were
        made (module docstring); X: the cut entries per gap (ROWS, n)."""
        N, w, t = X[:3, :], X[4, :], X[5:8, :]
        U = N / ca.repmat(ca.fmax(ca.sqrt(ca.sum1(N * N)), 0.5), 3, 1)  # unit where set
        B = self._blocks(U)
        s = ca.vec(ca.repmat(ca.sqrt(w), 3, 1))
        PD = self.Dc - B.T @ (B @ self.Dc)
        rows = PD.sparsity().get_triplet()[0]  # each nonzero's row: scaled by its s
        return ca.MX(PD.sparsity(), PD.nz[:] * s[rows]), s * ca.vec(t)

    def _fans(self, d: Any) -> list[tuple[Any, Any]]:
        """Cuts._fan for all gaps at once, d (3, n) their offsets: per plane k of N_FAN its
        directions W (3, n) and offsets b = W . d (1, n)."""
        n = d / ca.repmat(ca.sqrt(ca.sum1(d * d) + (1e-3 * self.cv) ** 2), 3, 1)
        x, y, z = n[0, :], n[1, :], n[2, :]
        sign = ca.if_else(z >= 0, 1.0, -1.0)
        a = -1.0 / (sign + z)
        b = x * y * a
        t1 = ca.vertcat(1 + sign * x**2 * a, sign * b, -sign * x)
        t2 = ca.vertcat(b, sign + y**2 * a, -y)
        planes = []
        for t in (t1, -t1, t2, -t2):
            w = np.cos(FAN) * n + np.sin(FAN) * t
            w = w / ca.repmat(ca.fmax(ca.sqrt(ca.sum1(w * w)), 1.0), 3, 1)  # |w| <= 1
            planes.append((w, ca.sum1(w * d)))
        return planes

    def _blocks(self, X: Any) -> Any:
        """(n, 3n): the columns of X (3, n) as the rows' blocks, X_i^T in row i (a cast of
        the nonzeros, no product)."""
        return ca.MX(self.pattern, ca.vec(X))

    def advance(self, v_new: Any, state: dict, k: int, lam: Any) -> tuple[dict, Any]:
        """(the cut state at v_new, whether another round (k) is needed: an offset d(q(v_new))
        leaves its disc by more than CUT_TOL c, or a gap is loaded without a cut yet and its
        normal turned): the linearisation at q1 = q(v_new) of each gap outside its disc,
        loaded (`lam`, the normal forces, N) or with a cut before, else the cut before."""
        assert self.moved is not None
        n = len(self.index)
        d1 = ca.reshape(self.model.offset(self.moved(v_new))[self.rows3], 3, n)
        r = ca.sqrt(ca.sum1(d1 * d1))
        out = (r > (1 + CUT_TOL) * self.cv) * self.free_v
        X, before = self._split(state["cuts"])
        load = lam[self.index.tolist()].T
        loads = load > FREE_BELOW * ca.fmax(1.0, ca.mmax(ca.vertcat(0, lam)))
        # a direction only where the offset is near its seat, else the cut before
        renew = ((out + (before + loads) * (r > 0.5 * self.cv)) > 0) * self.free_v
        # the gap's smoothed gradient (|n| = 1 - 5e-7 at c, the joints' eps = 1e-3 c), whose
        # multiplier the normal force then is, as for the scalar row
        N = d1 / ca.repmat(ca.sqrt(r**2 + (1e-3 * self.cv) ** 2), 3, 1)
        Dv = ca.reshape(self.Dc @ v_new, 3, n)
        w = ca.fmax(load, 0) * self.h**2 / ca.fmax(r, self.cv)
        U = d1 / ca.repmat(ca.fmax(r, 1e-300), 3, 1)
        t = Dv - U * ca.repmat(ca.sum1(U * Dv), 3, 1)
        cut = ca.vertcat(N, ca.sum1(N * (d1 - self.h * Dv)), w, t)
        cuts = ca.if_else(ca.repmat(renew, ROWS, 1), cut, X)
        # a loaded gap whose normal turned takes a round even when inside: its force
        # otherwise keeps the step start's normal, which rocks a pin between its ends' gaps.
        # A cut's force turns with the offset to first order (its curvature's force): what
        # is left of the turn from its normal is second order, 1/2 |U - n|^2
        ref = self.u0
        turn = ca.sqrt(ca.sum1((U - ref) ** 2))
        if k == 0:  # the first QP's cuts, made at the predicted point
            N0 = X[:3, :] / ca.repmat(ca.fmax(ca.sqrt(ca.sum1(X[:3, :] ** 2)), 1e-300), 3, 1)
            turn = ca.if_else(before, 0.5 * ca.sum1((U - N0) ** 2), turn)
        turned = turn > TURN_TOL
        need = out + loads * self.free_v * (1 - before * (k > 0)) * turned
        return {"cuts": ca.vec(cuts)}, ca.mmax(ca.horzcat(0, need))

    def effects(self, A: Any, uba: Any, on: Any, force: Any, v_new: Any) -> tuple:
        """Cuts.effects, the curvature's force G^T (G v - r) / h added to the generalised one:
        the cuts' normals turned to the point's."""
        added, generalised, viol, comp = super().effects(A, uba, on, force, v_new)
        assert self.curved is not None  # set by `rows`
        G, r = self.curved
        return added, generalised + G.T @ (G @ v_new - r) / self.h, viol, comp
