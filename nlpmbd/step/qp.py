"""The step at a given h as a convex QP in the velocities (`solver="qp"`, and the predictor).

With h fixed, the per-step NLP (FORMULATION.md section 4) is a convex QP: its implicit form
minimises K^T M^-1 K with K = M (v - v_free) / h, i.e.

    minimise 1/2 (v - v_free)^T M (v - v_free),   v_free = vm + h M^-1 (Q - S)   [eq. 26]
    subject to  Phi_v v <= -(Phi + T2) / h                                       [eq. 24]
                Phi_eq,v v = -(Phi_eq / h + Phi_eq,t)                            [eq. 23]

Every row is divided by h so that it reads in velocity units (the NLP's gap rows are in metres,
O(h) smaller; OSQP diverges on them unscaled). The QP's KKT conditions are the v-space equations
of motion with lam = (QP multiplier) / h, plus complementarity: exactly the NLP's at that h. The
rows, T2, the update and the acceptance test are the StepKernel's, as CasADi expressions, so that
a whole step (`whole_step`: attempt, guard, projection) is one Function and a chunk of steps
(run/chunks.py) runs with no Python in the inner loop.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import casadi as ca
import numpy as np

from .config import QPPlugin
from .impacts import impact_set, induced
from .kernel import StepKernel
from .solver import FAILED, SOLVED, StepInputs, StepSolution, StepSolver

#: QP solver options per CasADi conic plugin: quiet, no exception on failure (checked below).
_QP_OPTIONS: dict[str, dict[str, Any]] = {
    "qrqp": {"print_iter": False, "print_header": False, "print_info": False},
    "qpoases": {"printLevel": "none"},
    "osqp": {"osqp": {"verbose": False, "eps_abs": 1e-12, "eps_rel": 1e-12, "polish": True}},
}
#: Outputs of `attempt`, in order.
ATTEMPT_OUT = ("q_new", "v_new", "lam", "lam_eq", "eom", "comp", "drift", "ok")


def qp_solver(name: str, plugin: str, h: ca.Sparsity, a: ca.Sparsity) -> ca.Function:
    opts = {"error_on_fail": False, **_QP_OPTIONS.get(plugin, {})}
    return ca.conic(name, plugin, {"h": h, "a": a}, opts)


class QPStep(StepSolver):
    """One QP at h = h_hi; qrqp (or the chosen plugin), then qpOASES if that fails its checks
    (qrqp can stop at a wrong active set when two contacts close at once)."""

    def __init__(
        self,
        kernel: StepKernel,
        plugin: QPPlugin = QPPlugin.QRQP,
        backup: QPPlugin | None = QPPlugin.QPOASES,
    ) -> None:
        super().__init__(kernel)
        self.plugin, self.backup = plugin, backup if backup != plugin else None
        self.backup_solves = 0
        self.attempt = self._attempt_function(plugin)

    def counters(self) -> dict[str, int]:
        return {"qp_backup_solves": self.backup_solves}

    @functools.cached_property
    def _backup_attempt(self) -> ca.Function:
        with _silent_stdout():  # qpOASES prints a licence banner whatever printLevel says
            return self._attempt_function(self.backup or self.plugin)

    # ---- one QP ------------------------------------------------------------------------
    def _attempt_function(self, plugin: str) -> ca.Function:
        """(t, q, v, h, use_curvature) -> the step at h, with its checks (ATTEMPT_OUT). With
        restitution, a second QP releases the gap rows of induced impacts (step/impacts.py);
        CasADi's Function.if_else evaluates it only when one happened."""
        N = self.kernel.model.n_bodies
        t, h, use_curv = ca.MX.sym("t"), ca.MX.sym("h"), ca.MX.sym("use_curvature")
        q, v = ca.MX.sym("q", 7 * N), ca.MX.sym("v", 6 * N)
        one = self._one_qp(plugin)
        nc = self.kernel.model.n_gap
        out = one.call([t, q, v, h, use_curv, ca.MX.zeros(nc)])
        if self.kernel.model.has_restitution:
            syms = [ca.MX.sym(f"o{i}", a.sparsity()) for i, a in enumerate(out)]
            inputs = [t, q, v, h, use_curv, *syms]
            again = ca.Function.if_else(
                "release_induced",
                ca.Function("again", inputs, one.call([t, q, v, h, use_curv, syms[-1]])),
                ca.Function("keep", inputs, syms),
            )
            out = again.call([ca.mmax(ca.vertcat(0, out[-1])), t, q, v, h, use_curv, *out])
            # a second round of induced impacts: hand the step to Python (the NLP path)
            out[7] = out[7] * (ca.mmax(ca.vertcat(0, out[-1] - out[-2])) == 0)
        return ca.Function(
            "qp_attempt",
            [t, q, v, h, use_curv],
            out[:8],
            ["t", "q", "v", "h", "use_curvature"],
            list(ATTEMPT_OUT),
        )

    def _one_qp(self, plugin: str) -> ca.Function:
        """One QP: (t, q, v, h, use_curvature, released) -> ATTEMPT_OUT, released, induced."""
        k, m = self.kernel, self.kernel.model
        N, nc, ne = m.n_bodies, m.n_gap, m.n_eq
        t, h, use_curv = ca.MX.sym("t"), ca.MX.sym("h"), ca.MX.sym("use_curvature")
        q, v = ca.MX.sym("q", 7 * N), ca.MX.sym("v", 6 * N)
        released = ca.MX.sym("released", nc)
        M = ca.DM(m.M)
        v_free = v + h * ca.DM(np.linalg.inv(m.M)) @ (m.Q(t, q, v) - m.S(q, v))
        Phi_v, Phi_eq_v = m.Phi_v(q), m.Phi_eq_v(q, t)
        phi = k.gap_bound(q, v, h, use_curv)
        rows = _Rows(k, t, q, v, h, phi, released)
        qp = qp_solver("step_qp", plugin, M.sparsity(), ca.Sparsity.dense(rows.n, 6 * N))
        sol = qp(h=M, g=-M @ v_free, a=ca.densify(rows.A), lba=rows.lba, uba=rows.uba)
        v_new, mult = sol["x"], sol["lam_a"] / h
        lam_eq, lam_gap = mult[:ne, 0], mult[ne : ne + nc, 0]  # 2-D: 1x1 would slice as a row
        lam_rest = mult[ne + nc :, 0] if rows.restitution else ca.MX.zeros(nc)
        lam = lam_gap + lam_rest
        # residuals in the NLP path's units: EoM (N), constraints (m), complementarity (N m)
        K = M @ (v_new - v_free) / h
        eom = ca.norm_2(K + Phi_v.T @ lam + Phi_eq_v.T @ lam_eq)
        eom_scale = k.eom_scale(M @ (v_new - v) / h, K)
        phi_lin = phi + h * Phi_v @ v_new
        gap_rows = ca.if_else(released > 0, 0, phi_lin)  # a released row constrains nothing
        eq_lin = h * (Phi_eq_v @ v_new - rows.eq_rhs)
        newton = rows.newton(v_new)
        viol = ca.mmax(ca.vertcat(0, gap_rows, ca.fabs(eq_lin), h * newton))
        comp = ca.mmax(ca.vertcat(0, ca.fabs(lam_gap * gap_rows), ca.fabs(lam_rest * newton)))
        q_new, drift = k.update(q, v_new, h)
        total = ca.sum1(q_new) + ca.sum1(v_new) + ca.sum1(mult)
        finite = (total == total) * (ca.fabs(total) < ca.inf)  # false for NaN and inf
        # an infinite residual passes the tolerance tests (inf <= tol * inf); NaN and inf both
        # fail x < inf
        finite = finite * (comp < ca.inf) * (drift < ca.inf)
        ok = finite * k.accepts(viol, eom, eom_scale, comp, lam)
        caught = induced(lam_gap, rows.hit, released, m.restitution) if nc else released
        outputs = [q_new, v_new, lam, lam_eq, eom, comp, drift, ok, released, released + caught]
        return ca.Function("qp_one", [t, q, v, h, use_curv, released], outputs)

    # ---- a whole step, for the chunks --------------------------------------------------
    @functools.cached_property
    def whole_step(self) -> ca.Function:
        """The attempt with T2; the guard (solved again without T2 if it still penetrates by
        more than curvature_guard of a clearance or failed its checks; the step that passes and
        penetrates less is kept); then the gap projection. Outputs the raw q (before the
        projection) too, and flags qp_ok and projection_ok: the run loop takes a step that fails
        either again in Python (qpOASES, then the NLP; or the projection's IPOPT fallback)."""
        k, m = self.kernel, self.kernel.model
        N = m.n_bodies
        t, h = ca.MX.sym("t"), ca.MX.sym("h")
        q, v = ca.MX.sym("q", 7 * N), ca.MX.sym("v", 6 * N)
        first = self.attempt.call([t, q, v, h, 1.0 if k.uses_curvature else 0.0])
        out, n_qp = list(first), ca.MX(1)
        if k.uses_curvature:
            out, redo = self._guard(t, q, v, h, first)
            n_qp = n_qp + redo
        q_raw = out[0]
        gap_raw = ca.mmax(ca.vertcat(-ca.inf, m.Phi(q_raw))) if m.n_gap else ca.MX(0)
        q_fin, proj_ok, n_proj = q_raw, ca.MX(1), ca.MX(0)
        if k.projection is not None:
            q_fin, proj_ok, n_proj = k.projection.gauss_newton.call([q_raw, t + h])
        names = ["q_new", *ATTEMPT_OUT[1:7], "q_raw", "gap_raw", "n_qp", "qp_ok", "projection_ok"]
        return ca.Function(
            "qp_step",
            [t, q, v, h],
            [q_fin, *out[1:7], q_raw, gap_raw, n_qp + n_proj, out[7], proj_ok],
            ["t", "q", "v", "h"],
            names,
        )

    def _guard(self, t: ca.MX, q: ca.MX, v: ca.MX, h: ca.MX, first: list) -> tuple[list, ca.MX]:
        """The curvature guard as a switch: CasADi's Function.if_else evaluates only the branch
        taken, so the second QP runs only when the guard fires (an MX if_else with
        short-circuit costs ~50x more)."""
        pen = self.kernel.penetration
        outs = [ca.MX.sym(f"o{k}", a.sparsity()) for k, a in enumerate(first)]
        plain = self.attempt.call([t, q, v, h, 0.0])
        # the re-solve is kept if it passes its checks and the first failed them or penetrates
        # more (the NLP path's guard and the last rung of its retry ladder)
        less = pen(plain[0]) < pen(outs[0])
        better = (plain[7] > 0) * ca.logic_or(outs[7] == 0, less)
        chosen = [ca.if_else(better, b, a) for a, b in zip(outs, plain, strict=True)]
        guard = ca.Function.if_else(
            "curvature_guard",
            ca.Function("resolve", [t, q, v, h, *outs], chosen),
            ca.Function("keep", [t, q, v, h, *outs], outs),  # a worse re-solve changes nothing
        )
        redo = ca.logic_or(pen(first[0]) > self.kernel.curvature_guard, first[7] == 0)
        return guard.call([redo, t, q, v, h, *first]), redo

    # ---- the StepSolver interface (Python loop: step-size controller, failed chunk steps) ----
    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        """One QP at h = h_hi (the QP has no h to choose; h_lo is not used)."""
        tic = time.perf_counter()
        use = 1.0 if (inputs.curvature and self.kernel.uses_curvature) else 0.0
        args = (inputs.t, inputs.q, inputs.v, inputs.h_hi, use)
        out, ok = self._try(self.attempt, *args)
        if not ok and self.backup is not None:
            with _silent_stdout():
                out, ok = self._try(self._backup_attempt, *args)
            self.backup_solves += 1
        q, v, lam, lam_eq = (np.asarray(a, dtype=float).ravel() for a in out[:4])
        return StepSolution(
            h=float(inputs.h_hi),
            q=q,
            v=v,
            lam=lam,
            lam_eq=lam_eq,
            eom_residual=float(out[4]),
            comp_residual=float(out[5]),
            norm_drift=float(out[6]),
            status=SOLVED if ok else FAILED,
            iterations=1,
            solve_time=time.perf_counter() - tic,
            return_status="QP solved" if ok else "QP failed",
        )

    def _try(
        self, attempt: ca.Function, t: float, qm: Any, vm: Any, h: float, use: float
    ) -> tuple[list, bool]:
        try:
            out = attempt(t, qm, vm, h, use)
            return out, bool(float(out[7]))
        except RuntimeError:  # CasADi rejects the QP outright (e.g. NaN bounds)
            m, nan = self.kernel.model, np.nan
            lam, lam_eq = np.full(m.n_gap, nan), np.full(m.n_eq, nan)
            return [qm * nan, vm * nan, lam, lam_eq, nan, nan, nan, 0.0], False


class _Rows:
    """The QP's rows at h, each divided by h so that it reads in m/s: the linearised
    equalities, the gap rows (off for `released` contacts) and, with restitution, Newton's
    rows Phi_v v <= -e Phi_v vm of the impact set (step/impacts.py; off elsewhere)."""

    def __init__(
        self, k: StepKernel, t: ca.MX, q: ca.MX, v: ca.MX, h: ca.MX, phi: ca.MX, released: ca.MX
    ) -> None:
        m = k.model
        nc = m.n_gap
        Phi_v = m.Phi_v(q)
        self.eq_rhs = -(m.Phi_eq(q, t) / h + m.Phi_eq_t(q, t))
        inf = ca.inf * ca.DM.ones(nc)
        gap_ub = ca.if_else(released > 0, inf, -phi / h)
        self.restitution = m.has_restitution
        self.e, self.rate = ca.DM(m.restitution), Phi_v @ v
        self.hit = ca.MX.zeros(nc)
        A, lba, uba = [m.Phi_eq_v(q, t), Phi_v], [self.eq_rhs, -inf], [self.eq_rhs, gap_ub]
        if self.restitution:
            self.hit = impact_set(m.Phi(q), self.rate, h, m.restitution, k.scales)
            A.append(Phi_v)
            lba.append(-inf)
            uba.append(ca.if_else(self.hit, -self.e * self.rate, inf))
        self.Phi_v = Phi_v
        self.A, self.lba, self.uba = ca.vertcat(*A), ca.vertcat(*lba), ca.vertcat(*uba)
        self.n = self.A.shape[0]

    def newton(self, v_new: ca.MX) -> ca.MX:
        """Phi_v v + e Phi_v vm on the impact set (m/s; <= 0 when Newton's law holds), else 0."""
        if not self.restitution:
            return ca.MX.zeros(self.Phi_v.shape[0])
        return ca.if_else(self.hit, self.Phi_v @ v_new + self.e * self.rate, 0)


@contextlib.contextmanager
def _silent_stdout() -> Iterator[None]:
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
