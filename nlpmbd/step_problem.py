"""The per-step NLP (FORMULATION.md section 4), built once per simulation and warm-started.

Notation: P = [t_{n-1}, qm, vm] are the parameters of a step; the unknowns are the scaled step
s = h / h_max and q_dot (plus lambda, lambda_eq in the MPCC form). All constraints are written
in velocity space, c(qm) + h (C_v(qm) v + c_t) [eqs. 23-24], for contacts and ideal joints alike,
so that both formulations share them exactly and the KKT conditions of the implicit form are the
v-space equations of motion (see README, "Formulation").
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import casadi as ca
import numpy as np

from .errors import InputError
from .model import SymbolicModel
from .options import Formulation, SimulationOptions
from .projection import GapProjection
from .rotation import g_matrix

#: IPOPT statuses that count as a solved step.
_ACCEPTABLE = {"Solve_Succeeded": 0, "Solved_To_Acceptable_Level": 1}
#: IPOPT statuses after which the returned point is checked and accepted if it passes.
_VERIFY = {
    "Search_Direction_Becomes_Too_Small",
    "Maximum_Iterations_Exceeded",
    "Restoration_Failed",
    "Error_In_Step_Computation",
}
#: Unscaled tolerances of that check: constraint violation (m, 1), EoM residual (N), and
#: complementarity |lambda Phi_lin| (N m).
VERIFY_TOL = {"constraints": 1e-9, "eom": 1e-8, "complementarity": 1e-8}


def smallest_clearance(gap_scales: list[float]) -> float:
    """The smallest clearance among the gaps (m); 1e-5 m when the joints give none (e.g. plane
    contacts), which makes the penetration tolerance 1e-9 m."""
    positive = [c for c in gap_scales if c > 0]
    return min(positive) if positive else 1e-5


@dataclass
class StepSolution:
    """Everything one step produced (NumPy arrays; no CasADi types)."""

    h: float
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    lam_eq: np.ndarray
    eom_residual: float
    comp_residual: float
    norm_drift: float
    status: int  # 0 solved, 1 acceptable level, 2 solved after a retry, 3 failed
    iterations: int
    solve_time: float
    return_status: str
    x: np.ndarray  # primal solution, for warm starts
    lam_x: np.ndarray
    lam_g: np.ndarray


class StepProblem:
    """One NLP per step: `build` makes the CasADi graph and IPOPT solvers; `solve` runs a step."""

    def __init__(
        self,
        model: SymbolicModel,
        options: SimulationOptions,
        gap_scales: list[float] | None = None,
    ) -> None:
        self.model = model
        self.options = options
        self.gap_scales = list(gap_scales or [])
        self._build()

    @classmethod
    def build(cls, system, options: SimulationOptions) -> StepProblem:
        return cls(SymbolicModel.build(system), options, system.gap_scales)

    # -------------------------------------------------------------------------------------
    def _build(self) -> None:
        m, o = self.model, self.options
        N, nc, ne = m.n_bodies, m.n_gap, m.n_eq
        mpcc = o.formulation is Formulation.MPCC
        t = ca.SX.sym("t")
        qm = ca.SX.sym("qm", 7 * N)
        vm = ca.SX.sym("vm", 6 * N)
        use_curv = ca.SX.sym("use_curvature")  # 1, or 0 on the last retry of a failed step
        P = ca.vertcat(t, qm, vm, use_curv)
        s = ca.SX.sym("s")
        qd = ca.SX.sym("qd", 7 * N)
        lam = ca.SX.sym("lam", nc if mpcc else 0)
        lam_eq = ca.SX.sym("lam_eq", ne if mpcc else 0)
        h = s * o.h_max

        # v(q_dot) with G at the previous step [eq. 22c]; B and its linearisation [eq. 23]
        blocks, B_lin = [], []
        for k in range(N):
            pm, pd = qm[7 * k + 3 : 7 * k + 7], qd[7 * k + 3 : 7 * k + 7]
            blocks += [qd[7 * k : 7 * k + 3], 2 * g_matrix(pm) @ pd]
            B_lin.append(ca.dot(pm, pm) - 1 + 2 * h * ca.dot(pm, pd))
        v = ca.vertcat(*blocks)
        Minv = ca.DM(np.linalg.inv(m.M))
        M = ca.DM(m.M)
        K = M @ (v - vm) / h + m.S(qm, vm) - m.Q(t, qm, vm)  # [eq. 26]
        Phi_v = m.Phi_v(qm)
        Phi_eq_v = m.Phi_eq_v(qm, t)
        Phi_lin = m.Phi(qm) + h * Phi_v @ v  # [eq. 24]
        if "curvature" in o.gap_correction:
            # second-order term along the previous velocity: pre-compensates the O(h^2) drift
            # of the true gap within the step (a constant: the constraint stays linear in v).
            # The Taylor term only holds near contact: the curvature of a radial gap is
            # ~V^2/|d|, huge and meaningless while the pin passes near the hole's centre, so it
            # is used where Phi(qm) >= -c/2 (always for contacts without a clearance scale).
            phi_m = m.Phi(qm)
            scale = ca.DM(self.gap_scales if len(self.gap_scales) == nc else np.zeros(nc))
            near = ca.if_else(phi_m >= -0.5 * scale, use_curv, 0.0)
            # A term above c/2 means the step sweeps much of the clearance circle (h V ~ c):
            # Taylor does not hold there; it is capped and the projection does the rest.
            term = 0.5 * h**2 * m.Phi_curv(qm, vm)
            cap = ca.if_else(scale > 0, 0.5 * scale, ca.inf)
            Phi_lin = Phi_lin + near * ca.fmin(term, cap)
        eq_lin = m.Phi_eq(qm, t) + h * (Phi_eq_v @ v + m.Phi_eq_t(qm, t))
        # Gauss objective [eqs. 17-19], scaled by c so that its size does not depend on units
        self._c = c = 1.0 / max(float(np.sum(m.masses)) * 9.81**2, 1e-12)
        f = c * ca.dot(K, Minv @ K) - o.h_preference * s

        g_parts = [ca.vertcat(*B_lin), eq_lin, Phi_lin]
        lbg = [np.zeros(N), np.zeros(ne), np.full(nc, -np.inf)]
        ubg = [np.zeros(N), np.zeros(ne), np.zeros(nc)]
        if mpcc:
            eom = K + Phi_v.T @ lam + Phi_eq_v.T @ lam_eq  # equations of motion [eq. 25]
            g_parts += [eom, -lam * Phi_lin]  # Scholtes: lam_j (-Phi_lin_j) <= sigma
            lbg += [np.zeros(6 * N), np.full(nc, -np.inf)]
            ubg += [np.zeros(6 * N), np.full(nc, o.sigma)]
        x = ca.vertcat(s, qd, lam, lam_eq)
        g = ca.vertcat(*g_parts)
        self._lbg = np.concatenate(lbg)
        self._ubg = np.concatenate(ubg)
        self.nx, self.ng = x.shape[0], g.shape[0]
        self._slices = {
            "norm": slice(0, N),
            "eq": slice(N, N + ne),
            "gap": slice(N + ne, N + ne + nc),
        }
        self._n = (N, nc, ne, mpcc)

        nlp = {"x": x, "p": P, "f": f, "g": g}
        base = {
            "print_time": False,
            "error_on_fail": False,
            "ipopt.print_level": 0,
            "ipopt.sb": "yes",
            "ipopt.tol": o.tol,
            "ipopt.constr_viol_tol": o.tol,
            "ipopt.mu_strategy": "adaptive",
            "ipopt.max_iter": 300,
            # IPOPT relaxes bounds by 1e-8 by default, which lets Phi_lin sit ~1e-10 m inside
            # the obstacle and spoils complementarity (2e-8 -> 1e-11 N m); no iteration cost.
            "ipopt.bound_relax_factor": 0.0,
        }
        base.update({f"ipopt.{k}": val for k, val in o.ipopt.items()})
        warm = dict(base)
        warm.update(
            {
                "ipopt.warm_start_init_point": "yes",
                "ipopt.warm_start_bound_push": 1e-9,
                "ipopt.warm_start_bound_frac": 1e-9,
                "ipopt.warm_start_slack_bound_push": 1e-9,
                "ipopt.warm_start_slack_bound_frac": 1e-9,
                "ipopt.warm_start_mult_bound_push": 1e-9,
            }
        )
        warm.update({f"ipopt.{k}": val for k, val in o.ipopt.items()})
        try:
            self.solver_warm = ca.nlpsol("step_warm", "ipopt", nlp, warm)
            self.solver_cold = ca.nlpsol("step_cold", "ipopt", nlp, base)
        except RuntimeError as err:
            reason = str(err).strip().splitlines()[-1].split(": ", 1)[-1]
            raise InputError(
                f"ipopt options {sorted(o.ipopt)} rejected by IPOPT: {reason}"
            ) from None

        # Post-processing of a solution: update [eq. 22], forces, residuals (same graph).
        lam_out, lam_eq_out = lam, lam_eq
        if not mpcc:
            # KKT of the implicit form in v: (2c/h) K + h Phi_v^T mu + h Phi_eq_v^T mu_eq = 0,
            # so the forces are lambda = h^2 mu / (2c) (FORMULATION.md section 8).
            mu = ca.SX.sym("mu", nc)
            mu_eq = ca.SX.sym("mu_eq", ne)
            lam_out, lam_eq_out = h**2 * mu / (2 * c), h**2 * mu_eq / (2 * c)
            mult_in = [mu, mu_eq]
        else:
            mult_in = [ca.SX.sym("unused_mu", nc), ca.SX.sym("unused_mu_eq", ne)]
        eom_res = K + Phi_v.T @ lam_out + Phi_eq_v.T @ lam_eq_out
        q_new = qm + h * qd
        drift = [ca.fabs(ca.sumsqr(q_new[7 * k + 3 : 7 * k + 7]) - 1) for k in range(N)]
        if o.renormalize:
            q_new = ca.vertcat(
                *[
                    ca.vertcat(
                        q_new[7 * k : 7 * k + 3],
                        q_new[7 * k + 3 : 7 * k + 7] / ca.norm_2(q_new[7 * k + 3 : 7 * k + 7]),
                    )
                    for k in range(N)
                ]
            )
        comp = ca.mmax(ca.fabs(lam_out * Phi_lin)) if nc else ca.SX(0)
        self._post = ca.Function(
            "post",
            [P, x, *mult_in],
            [q_new, v, lam_out, lam_eq_out, ca.norm_2(eom_res), comp, ca.mmax(ca.vertcat(*drift))],
        )
        self.uses_curvature = "curvature" in o.gap_correction and nc > 0
        self.projection = (
            GapProjection(m, smallest_clearance(self.gap_scales))
            if ("projection" in o.gap_correction and nc > 0)
            else None
        )

    # -------------------------------------------------------------------------------------
    def initial_guess(self, vm: np.ndarray, qm: np.ndarray) -> np.ndarray:
        """Cold-start point: h = h_max and q_dot from the previous velocities."""
        N, nc, ne, mpcc = self._n
        qd = np.zeros(7 * N)
        for k in range(N):
            p = qm[7 * k + 3 : 7 * k + 7]
            qd[7 * k : 7 * k + 3] = vm[6 * k : 6 * k + 3]
            qd[7 * k + 3 : 7 * k + 7] = 0.5 * g_matrix(p).T @ vm[6 * k + 3 : 6 * k + 6]
        extra = np.zeros((nc + ne) if mpcc else 0)
        return np.concatenate([[1.0], qd, extra])

    def bounds(self, h_lo: float, h_hi: float) -> tuple[np.ndarray, np.ndarray]:
        """Bounds of x for a step with h in [h_lo, h_hi] (s = h / h_max)."""
        N, nc, ne, mpcc = self._n
        h_max = self.options.h_max
        lbx = np.concatenate([[h_lo / h_max], np.full(7 * N, -np.inf)])
        ubx = np.concatenate([[h_hi / h_max], np.full(7 * N, np.inf)])
        if mpcc:
            lbx = np.concatenate([lbx, np.zeros(nc), np.full(ne, -np.inf)])
            ubx = np.concatenate([ubx, np.full(nc + ne, np.inf)])
        return lbx, ubx

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
        """Solve one step from (t, qm, vm) with h in [h_lo, h_hi]; `warm` (the previous step)
        enables the warm start; `curvature` False drops the second-order gap term."""
        P = np.concatenate([[t], qm, vm, [1.0 if curvature else 0.0]])
        lbx, ubx = self.bounds(h_lo, h_hi)
        args = {"p": P, "lbx": lbx, "ubx": ubx, "lbg": self._lbg, "ubg": self._ubg}
        if warm is not None:
            solver = self.solver_warm
            args.update(x0=np.clip(warm.x, lbx, ubx), lam_x0=warm.lam_x, lam_g0=warm.lam_g)
        else:
            solver = self.solver_cold
            args["x0"] = np.clip(self.initial_guess(vm, qm), lbx, ubx)
        tic = time.perf_counter()
        sol = solver(**args)
        elapsed = time.perf_counter() - tic
        stats = solver.stats()
        x = np.asarray(sol["x"]).ravel()
        lam_g = np.asarray(sol["lam_g"]).ravel()
        mu, mu_eq = lam_g[self._slices["gap"]], lam_g[self._slices["eq"]]
        out = self._post(P, x, mu, mu_eq)
        q, v, lam, lam_eq = (np.asarray(a).ravel() for a in out[:4])
        return_status = stats.get("return_status", "unknown")
        status = _ACCEPTABLE.get(return_status, 3)
        if return_status in _VERIFY:
            # IPOPT could not meet its own scaled test, but the point may still solve the step:
            # accept it only if our unscaled checks hold (constraints, EoM, complementarity).
            g = np.asarray(sol["g"]).ravel()
            viol = np.max(np.maximum(g - self._ubg, self._lbg - g), initial=0.0)
            ok = (
                viol <= VERIFY_TOL["constraints"]
                and float(out[4]) <= VERIFY_TOL["eom"]
                and float(out[5]) <= VERIFY_TOL["complementarity"]
                and np.all(lam >= -VERIFY_TOL["complementarity"])
            )
            status = 1 if ok else 3
        if status < 3 and not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            status = 3
        return StepSolution(
            h=float(x[0] * self.options.h_max),
            q=q,
            v=v,
            lam=lam,
            lam_eq=lam_eq,
            eom_residual=float(out[4]),
            comp_residual=float(out[5]),
            norm_drift=float(out[6]),
            status=status,
            iterations=int(stats.get("iter_count", -1)),
            solve_time=elapsed,
            return_status=return_status,
            x=x,
            lam_x=np.asarray(sol["lam_x"]).ravel(),
            lam_g=lam_g,
        )
