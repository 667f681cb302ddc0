"""The step at a given h as a convex QP in the velocities (the fast path, `solver="qp"`).

With h fixed, the per-step NLP (FORMULATION.md section 4) is a convex QP: its implicit form
minimises K^T M^-1 K with K = M (v - v_free) / h, i.e.

    minimise 1/2 (v - v_free)^T M (v - v_free),   v_free = vm + h M^-1 (Q - S)   [eq. 26]
    subject to  Phi_v v <= -(Phi + curvature term) / h                           [eq. 24]
                Phi_eq,v v = -(Phi_eq / h + Phi_eq,t)                            [eq. 23]

Every constraint row is divided by h so that it reads in velocity units (the gap rows of the
NLP are in metres, O(h) smaller; OSQP diverges on them unscaled). The QP's KKT conditions are
the v-space equations of motion M (v - vm) / h + S - Q + Phi_v^T lam + Phi_eq,v^T lam_eq = 0
with lam = (QP multiplier) / h, plus complementarity, exactly the NLP's at that h. The update,
the second-order gap term, its guard and the gap projection are the NLP path's (stepper.py,
projection.py), written here as CasADi expressions so that a whole step, and a whole chunk of
steps (`chunk_function`, via mapaccum), is one Function: no Python in the inner loop.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
import time

import casadi as ca
import numpy as np

from .model import SymbolicModel
from .options import SimulationOptions
from .projection import GapProjection
from .rotation import g_matrix
from .step_problem import CURVATURE_GUARD, VERIFY_TOL, StepSolution, smallest_clearance

#: QP solver options per CasADi conic plugin: quiet, no exception on failure (checked below).
_QP_OPTIONS = {
    "qrqp": {"print_iter": False, "print_header": False, "print_info": False},
    "qpoases": {"printLevel": "none"},
    "osqp": {"osqp": {"verbose": False, "eps_abs": 1e-12, "eps_rel": 1e-12, "polish": True}},
}
#: The QP plugin tried when the chosen one fails a step (before the NLP).
BACKUP_QP = "qpoases"
#: Largest EoM residual (N) accepted from a QP step; QP multipliers are divided by h.
QP_EOM_TOL = 1e-7


def qp_solver(name: str, plugin: str, h: ca.Sparsity, a: ca.Sparsity) -> ca.Function:
    opts = {"error_on_fail": False, **_QP_OPTIONS.get(plugin, {})}
    return ca.conic(name, plugin, {"h": h, "a": a}, opts)


class QPStep:
    """Built once per simulation: `attempt` (one QP step), `step` (attempt + guard + projection +
    diagnostics), `solve` (the StepProblem interface, for the Python loop) and `chunk_function`."""

    def __init__(
        self,
        model: SymbolicModel,
        options: SimulationOptions,
        gap_scales: list[float],
        fallback=None,
        projection: GapProjection | None = None,
    ) -> None:
        """`fallback`: a callable returning a StepProblem; `solve` hands a failed QP to it.
        `projection`: an existing GapProjection to share (else one is built if needed)."""
        self._fallback, self._nlp, self.nlp_fallbacks = fallback, None, 0
        self._backup, self.backup_solves = None, 0
        self.model, self.options = model, options
        self.gap_scales = list(gap_scales)
        N, nc = model.n_bodies, model.n_gap
        self.clearance = smallest_clearance(self.gap_scales)
        self.uses_curvature = "curvature" in options.gap_correction and nc > 0
        self.uses_projection = "projection" in options.gap_correction and nc > 0
        # for the Python loop (step-size controller) and for steps the chunk hands back
        if projection is None and self.uses_projection:
            projection = GapProjection(model, self.clearance)
        self.projection = projection
        t, h, use_curv = ca.MX.sym("t"), ca.MX.sym("h"), ca.MX.sym("use_curvature")
        q, v = ca.MX.sym("q", 7 * N), ca.MX.sym("v", 6 * N)
        self.attempt = self._attempt_function(t, q, v, h, use_curv)

    @functools.cached_property
    def step(self) -> ca.Function:
        """The whole step (chunk_function's body); built on first use, since the NLP's
        predictor needs only `attempt`."""
        N = self.model.n_bodies
        t, h = ca.MX.sym("t"), ca.MX.sym("h")
        q, v = ca.MX.sym("q", 7 * N), ca.MX.sym("v", 6 * N)
        return self._step_function(t, q, v, h)

    # ---- one QP ------------------------------------------------------------------------
    def _attempt_function(self, t, q, v, h, use_curv, plugin: str | None = None) -> ca.Function:
        m, o = self.model, self.options
        N, nc, ne = m.n_bodies, m.n_gap, m.n_eq
        M = ca.DM(m.M)
        v_free = v + h * ca.DM(np.linalg.inv(m.M)) @ (m.Q(t, q, v) - m.S(q, v))
        Phi_v, Phi_eq_v = m.Phi_v(q), m.Phi_eq_v(q, t)
        phi = m.Phi(q)
        if self.uses_curvature:
            # the NLP's second-order term (step_problem.py): near contact only, capped at c/2
            scale = ca.DM(self.gap_scales if len(self.gap_scales) == nc else np.zeros(nc))
            near = ca.if_else(phi >= -0.5 * scale, use_curv, 0.0)
            cap = ca.if_else(scale > 0, 0.5 * scale, ca.inf)
            phi = phi + near * ca.fmin(0.5 * h**2 * m.Phi_curv(q, v), cap)
        eq_rhs = -(m.Phi_eq(q, t) / h + m.Phi_eq_t(q, t))
        A = ca.vertcat(Phi_eq_v, Phi_v)
        lba = ca.vertcat(eq_rhs, -ca.inf * ca.DM.ones(nc))
        uba = ca.vertcat(eq_rhs, -phi / h)
        plugin = plugin or o.qp_solver
        qp = qp_solver("step_qp", plugin, M.sparsity(), ca.Sparsity.dense(ne + nc, 6 * N))
        sol = qp(h=M, g=-M @ v_free, a=ca.densify(A), lba=lba, uba=uba)
        v_new, mult = sol["x"], sol["lam_a"] / h
        lam_eq, lam = mult[:ne, 0], mult[ne:, 0]  # 2-D slices: 1x1 would slice as a row
        # residuals in the NLP path's units: EoM (N), constraints (m), complementarity (N m)
        K = M @ (v_new - v_free) / h
        eom = ca.norm_2(K + Phi_v.T @ lam + Phi_eq_v.T @ lam_eq)
        # relative to the forces at play, as in the NLP path (step_problem.py)
        eom_scale = ca.fmax(1, ca.norm_2(M @ (v_new - v) / h) + ca.norm_2(K - M @ (v_new - v) / h))
        phi_lin = phi + h * Phi_v @ v_new
        eq_lin = h * (Phi_eq_v @ v_new - eq_rhs)
        viol = ca.mmax(ca.vertcat(0, phi_lin, ca.fabs(eq_lin)))
        comp = ca.mmax(ca.vertcat(0, ca.fabs(lam * phi_lin)))
        q_new, drift = _update(q, v_new, h, o.renormalize)
        total = ca.sum1(q_new) + ca.sum1(v_new) + ca.sum1(mult)
        ok = (
            (total == total)  # false for NaN (and inf - inf)
            * (ca.fabs(total) < ca.inf)
            # an infinite residual passes the tolerance tests below (inf <= tol * inf); NaN and
            # inf both fail x < inf
            * (eom < ca.inf)
            * (comp < ca.inf)
            * (drift < ca.inf)
            * (viol <= VERIFY_TOL["constraints"])
            * (eom <= QP_EOM_TOL * eom_scale)
            * (comp <= VERIFY_TOL["complementarity"])
            * (ca.mmin(ca.vertcat(0, lam)) >= -VERIFY_TOL["complementarity"])
        )
        return ca.Function(
            "qp_attempt",
            [t, q, v, h, use_curv],
            [q_new, v_new, lam, lam_eq, eom, comp, drift, ok],
            ["t", "q", "v", "h", "use_curvature"],
            ["q_new", "v_new", "lam", "lam_eq", "eom", "comp", "drift", "ok"],
        )

    def penetration_fraction(self, q) -> ca.MX:
        """max_j Phi_j(q) / c_j over gaps with a clearance (0 if none), as an expression."""
        scale = np.asarray(self.gap_scales, dtype=float)
        if scale.size == 0 or scale.size != self.model.n_gap or not np.any(scale > 0):
            return ca.MX(0)
        frac = self.model.Phi(q) / ca.DM(np.where(scale > 0, scale, 1.0))
        return ca.mmax(ca.if_else(ca.DM(scale > 0), frac, 0))

    # ---- a whole step ------------------------------------------------------------------
    def _step_function(self, t, q, v, h) -> ca.Function:
        """attempt with the second-order term, the guard (solved again without the term if it
        still penetrates by more than CURVATURE_GUARD of a clearance, or failed its checks; the
        step that passes and penetrates less is kept), then the gap projection, as in the NLP
        path. Outputs the raw q (before projection) too, and flags qp_ok (the QP step passed
        its KKT checks) and projection_ok (the Gauss-Newton projection converged): steps that
        fail either are redone by the Python loop (the QP by qpOASES, then the NLP with its
        retries; or GapProjection's IPOPT fallback)."""
        m = self.model
        first = self.attempt.call([t, q, v, h, 1.0 if self.uses_curvature else 0.0])
        out, n_qp = list(first), ca.MX(1)
        if self.uses_curvature:
            # CasADi's Function.if_else (a switch) evaluates only the branch taken: the second
            # QP runs only when the guard fires (MX if_else with short-circuit costs ~50x more)
            outs = [ca.MX.sym(f"o{k}", a.sparsity()) for k, a in enumerate(first)]
            plain = self.attempt.call([t, q, v, h, 0.0])
            # the re-solve is kept if it passes its checks and the first failed them or
            # penetrates more (the NLP path's guard and the last rung of its retry ladder)
            less = self.penetration_fraction(plain[0]) < self.penetration_fraction(outs[0])
            better = (plain[7] > 0) * ca.logic_or(outs[7] == 0, less)
            chosen = [ca.if_else(better, b, a) for a, b in zip(outs, plain, strict=True)]
            # a worse re-solve leaves the first step (and its ok flag) in place
            guard = ca.Function.if_else(
                "curvature_guard",
                ca.Function("resolve", [t, q, v, h, *outs], chosen),
                ca.Function("keep", [t, q, v, h, *outs], outs),
            )
            redo = ca.logic_or(self.penetration_fraction(first[0]) > CURVATURE_GUARD, first[7] == 0)
            out = guard.call([redo, t, q, v, h, *first])
            n_qp = n_qp + redo
        q_raw = out[0]
        gap_raw = ca.mmax(ca.vertcat(-ca.inf, m.Phi(q_raw))) if m.n_gap else ca.MX(0)
        q_fin, proj_ok, n_proj = q_raw, ca.MX(1), ca.MX(0)
        if self.uses_projection:
            q_fin, proj_ok, n_proj = self.projection.gauss_newton.call([q_raw, t + h])
        return ca.Function(
            "qp_step",
            [t, q, v, h],
            [q_fin, *out[1:7], q_raw, gap_raw if m.n_gap else 0, n_qp + n_proj, out[7], proj_ok],
            ["t", "q", "v", "h"],
            [
                "q_new",
                "v_new",
                "lam",
                "lam_eq",
                "eom",
                "comp",
                "drift",
                "q_raw",
                "gap_raw",
                "n_qp",
                "qp_ok",
                "projection_ok",
            ],
        )

    # ---- the StepProblem interface (Python loop: step-size controller, NLP predictor) -----
    def solve(
        self,
        t: float,
        qm: np.ndarray,
        vm: np.ndarray,
        warm: StepSolution | None,
        h_lo: float,
        h_hi: float,
        curvature: bool = True,
    ) -> StepSolution:
        """One QP step at h = h_hi (the QP has no h to choose; h_lo is not used)."""
        tic = time.perf_counter()
        use = 1.0 if (curvature and self.uses_curvature) else 0.0
        out, ok = self._try(self.attempt, t, qm, vm, h_hi, use)
        if not ok and self._fallback is not None and self.options.qp_solver != BACKUP_QP:
            # qrqp can stop at a wrong active set when two contacts close at once; the same
            # QP by qpOASES (built on first use) usually solves it
            with _silent_stdout():  # qpOASES prints a licence banner whatever printLevel says
                if self._backup is None:
                    sym = [ca.MX.sym(n, k) for n, k in (("t", 1), ("q", qm.size), ("v", vm.size))]
                    self._backup = self._attempt_function(
                        *sym, ca.MX.sym("h"), ca.MX.sym("use"), plugin=BACKUP_QP
                    )
                out, ok = self._try(self._backup, t, qm, vm, h_hi, use)
            self.backup_solves += 1
        elapsed = time.perf_counter() - tic
        q, v, lam, lam_eq = (np.asarray(a, dtype=float).ravel() for a in out[:4])
        if not ok and self._fallback is not None:
            # the QP failed its KKT checks: the same step by the NLP, cold-started
            if self._nlp is None:
                self._nlp = self._fallback()
            self.nlp_fallbacks += 1
            sol = self._nlp.solve(t, qm, vm, None, h_hi, h_hi, curvature)
            sol.solve_time += elapsed
            return sol
        return StepSolution(
            h=float(h_hi),
            q=q,
            v=v,
            lam=lam,
            lam_eq=lam_eq,
            eom_residual=float(out[4]),
            comp_residual=float(out[5]),
            norm_drift=float(out[6]),
            status=0 if ok else 3,
            iterations=1,
            solve_time=elapsed,
            return_status="QP solved" if ok else "QP failed",
            x=np.zeros(0),
            lam_x=np.zeros(0),
            lam_g=np.zeros(0),
        )

    def _try(self, attempt: ca.Function, t, qm, vm, h, use) -> tuple[list, bool]:
        try:
            out = attempt(t, qm, vm, h, use)
            return out, bool(float(out[7]))
        except RuntimeError:  # CasADi rejects the QP outright (e.g. NaN bounds)
            m, nan = self.model, np.nan
            lam, lam_eq = np.full(m.n_gap, nan), np.full(m.n_eq, nan)
            return [qm * nan, vm * nan, lam, lam_eq, nan, nan, nan, 0.0], False


@contextlib.contextmanager
def _silent_stdout():
    """Discard what C code writes to file descriptor 1 (Python's own stdout is flushed first,
    and C's stdio buffer before the descriptor is restored, or the text would come out later)."""
    sys.stdout.flush()
    libc = ctypes.CDLL(None)
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


def _update(q, v, h, renormalize: bool):
    """q_n = q + h T(q) v [eq. 22]: r + h r_dot, p + h/2 G(p)^T w', p renormalised if asked;
    also max_k |p_k^T p_k - 1| before renormalisation."""
    parts, drift = [], []
    for k in range(q.shape[0] // 7):
        r, p = q[7 * k : 7 * k + 3], q[7 * k + 3 : 7 * k + 7]
        p_new = p + 0.5 * h * g_matrix(p).T @ v[6 * k + 3 : 6 * k + 6]
        drift.append(ca.fabs(ca.sumsqr(p_new) - 1))
        parts += [r + h * v[6 * k : 6 * k + 3], p_new / ca.norm_2(p_new) if renormalize else p_new]
    return ca.vertcat(*parts), ca.mmax(ca.vertcat(*drift))


def _split(stacked, like: list) -> list:
    """Undo vertcat(vec(a) for a in like)."""
    out, i = [], 0
    for a in like:
        n = a.numel()
        out.append(ca.reshape(stacked[i : i + n], a.shape[0], a.shape[1]))
        i += n
    return out


def chunk_layout(model: SymbolicModel) -> dict[str, int]:
    """Names and per-step row counts of the chunk function's record, in order."""
    N, M, E, J = model.n_bodies, model.n_gap, model.n_eq, model.n_joints
    return {
        "q": 7 * N,
        "v": 6 * N,
        "lam": M,
        "lam_eq": E,
        "gap": M,
        "eq_residual": 1,
        "energy": 3,
        "directions": 3 * M,
        "points": 3 * M,
        "joint_force": 3 * J,
        "eom_residual": 1,
        "comp_residual": 1,
        "norm_residual": 1,
        "gap_uncorrected": 1,
        "iterations": 1,
        "qp_ok": 1,
        "projection_ok": 1,
        "q_raw": 7 * N,
    }


def chunk_function(step: QPStep, n: int) -> ca.Function:
    """n steps in one Function (mapaccum): (X0 = [t; q; v], h (1 x n)) -> (X_n, R (rows x n)).

    Column k of R is step k's record in chunk_layout order, stacked: the state after the step,
    the time-point report (model.report) and the step diagnostics. A column with h = 0 is
    padding: the state passes through unchanged (the last chunk of a run is padded this way,
    so one compiled Function serves every chunk)."""
    m = step.model
    N = m.n_bodies
    X, h = ca.MX.sym("X", 1 + 13 * N), ca.MX.sym("h")
    t, q, v = X[0], X[1 : 1 + 7 * N], X[1 + 7 * N :]
    active = h > 0
    h_safe = ca.if_else(active, h, step.options.h_max)
    o = step.step(t=t, q=q, v=v, h=h_safe)
    t_new = t + h_safe
    q_new, v_new = o["q_new"], o["v_new"]
    gap, eq, energy, directions, points, forces = m.report(
        q_new, v_new, t_new, o["lam"], o["lam_eq"]
    )
    record = ca.vertcat(
        q_new,
        v_new,
        o["lam"],
        o["lam_eq"],
        gap,
        eq,
        energy,
        ca.vec(directions),
        ca.vec(points),
        ca.vec(forces),
        o["eom"],
        o["comp"],
        o["drift"],
        o["gap_raw"],
        o["n_qp"],
        o["qp_ok"],
        o["projection_ok"],
        o["q_raw"],
    )
    X_new = ca.if_else(active, ca.vertcat(t_new, q_new, v_new), X)
    one = ca.Function("qp_chunk_step", [X, h], [X_new, record])
    return one.mapaccum("qp_chunk", n)
