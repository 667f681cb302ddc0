"""The per-step NLP (FORMULATION.md section 4), built once per simulation and warm-started.

Notation: P = [t_{n-1}, qm, vm] are the parameters of a step; the unknowns are the scaled step
s = h / h_max and q_dot (plus lambda, lambda_eq in the MPCC form). All constraints are written
in velocity space, c(qm) + h (C_v(qm) v + c_t) [eqs. 23-24], for contacts and ideal joints alike,
so that both formulations share them exactly and the KKT conditions of the implicit form are the
v-space equations of motion (see README, "Formulation").
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import casadi as ca
import numpy as np

from .contact import STICK_CREEP, STICK_SPEED
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
#: The friction fixed point stops when mu |lambda_new - lambda_old| <= FRICTION_TOL * max(mu
#: lambda, 1 N), or after FRICTION_ITERATIONS solves (counted as unconverged).
FRICTION_TOL = 1e-9
FRICTION_ITERATIONS = 50
#: A step taken with the second-order gap term that still penetrates by more than this fraction
#: of a clearance is solved again without it (stepper._guard_curvature, and in the QP step).
CURVATURE_GUARD = 0.1


def _finite(*values) -> bool:
    """True when every number in `values` (floats, NumPy arrays) is finite. Their sum is finite
    exactly then, unless it overflows (NaN and inf propagate, inf - inf is NaN): one cheap test
    for the usual case."""
    total = 0.0
    for a in values:  # Python floats: ~10x faster than NumPy reductions on arrays this small
        total += sum(a.ravel().tolist()) if isinstance(a, np.ndarray) else a
    if math.isfinite(total):
        return True
    return all(np.all(np.isfinite(a)) for a in values)


def _within(value: float, limit: float) -> bool:
    """value <= limit for a finite value (the EoM limit scales with the forces, so an infinite
    residual would pass an infinite limit)."""
    return math.isfinite(value) and value <= limit


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
    friction: np.ndarray | None = None  # (3, M) friction force on each contact's moving body


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

    # -------------------------------------------------------------------------------------
    def _build(self) -> None:
        m, o = self.model, self.options
        N, nc, ne = m.n_bodies, m.n_gap, m.n_eq
        mpcc = o.formulation is Formulation.MPCC
        t = ca.SX.sym("t")
        qm = ca.SX.sym("qm", 7 * N)
        vm = ca.SX.sym("vm", 6 * N)
        use_curv = ca.SX.sym("use_curvature")  # 1, or 0 on the last retry of a failed step
        # friction bounds are mu * lam_fr (lam_fr from the fixed-point loop in `solve`); Q_c is
        # the compliant contacts' force (explicit, computed by the stepper with their memory)
        self.friction = m.has_friction
        self.restitution = m.has_restitution
        self.compliant = m.n_compliant > 0
        if (self.friction or self.restitution) and mpcc:
            raise InputError(
                "formulation must be 'implicit' for friction or restitution, got 'mpcc'"
            )
        lam_fr = ca.SX.sym("lam_fr", nc if self.friction else 0)
        Q_c = ca.SX.sym("Q_c", 6 * N if self.compliant else 0)
        P = ca.vertcat(t, qm, vm, use_curv, lam_fr, Q_c)
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
        if self.compliant:
            K = K - Q_c
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
        # and by (h_max / 1 ms)^2 below 1 ms: the Hessian 2c M / h^2 would otherwise be huge
        # for small steps (1e8 at h = 1e-5 s), which stalls IPOPT's inertia correction
        self._c = c = min(1.0, (o.h_max / 1e-3) ** 2) / max(
            float(np.sum(m.masses)) * 9.81**2, 1e-12
        )
        f = c * ca.dot(K, Minv @ K) - o.h_preference * s
        fr_force = ca.SX(3, nc)
        fr_gen = ca.SX.zeros(6 * N, 1)
        if self.friction:
            # Tresca term (contact.py): (2c/h) sum_j g_j |D_j v|, the QP's h g |D v| scaled like
            # the Gauss term; its gradient is the friction force, of size g_j against the slip
            D = m.slip(qm)
            mu_k, mu_s = ca.DM(m.mu), ca.DM(m.mu_static)
            for j in range(nc):
                Dj = D[3 * j : 3 * j + 3, :]
                slip_m = ca.norm_2(Dj @ vm)
                g_j = ca.if_else(slip_m < STICK_SPEED, mu_s[j], mu_k[j]) * lam_fr[j]
                u = Dj @ v
                norm = ca.sqrt(ca.dot(u, u) + STICK_CREEP**2)
                f = f + (2 * c / h) * g_j * (norm - STICK_CREEP)
                beta = g_j * u / norm
                fr_force[:, j] = -beta
                fr_gen = fr_gen + Dj.T @ beta

        # rows in metres are O(h): below 1 ms they are scaled up to the size they have at 1 ms,
        # or IPOPT sees their tiny gradients as rank deficiency (stuck primal infeasibility)
        self._rs = rs = max(1.0, 1e-3 / o.h_max)
        g_parts = [rs * ca.vertcat(*B_lin), rs * eq_lin, rs * Phi_lin]
        lbg = [np.zeros(N), np.zeros(ne), np.full(nc, -np.inf)]
        ubg = [np.zeros(N), np.zeros(ne), np.zeros(nc)]
        nr = nc if self.restitution else 0
        if nr:
            # Newton restitution rows Phi_v v <= -e Phi_v vm (contact.py); `solve` opens them
            # (upper bound 0 instead of inf) for the contacts that impact in the step
            rate_m = Phi_v @ vm
            rest = Phi_v @ v + ca.DM(m.restitution) * rate_m
            g_parts.append(rest)
            lbg.append(np.full(nr, -np.inf))
            ubg.append(np.full(nr, np.inf))
            self._impacts = ca.Function("impacts", [qm, vm], [m.Phi(qm), rate_m])
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
            "rest": slice(N + ne + nc, N + ne + nc + nr),
            "mult": slice(N + ne, N + ne + nc + nr),  # the contact rows' multipliers
        }
        self._ubg_step = self._ubg
        self._n = (N, nc, ne, mpcc)

        nlp = {"x": x, "p": P, "f": f, "g": g}
        self._g = ca.Function("g", [P, x], [g])
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
        comp_parts = [lam * Phi_lin] if (nc and mpcc) else []
        if not mpcc:
            # KKT of the implicit form in v: (2c/h) K + h Phi_v^T mu + h Phi_eq_v^T mu_eq = 0,
            # so the forces are lambda = h^2 mu / (2c) (FORMULATION.md section 8).
            mu = ca.SX.sym("mu", nc + nr)
            mu_eq = ca.SX.sym("mu_eq", ne)
            lam_gap = rs * h**2 * mu[:nc] / (2 * c)
            lam_out, lam_eq_out = lam_gap, rs * h**2 * mu_eq / (2 * c)
            comp_parts = [lam_gap * Phi_lin]
            if nr:  # a restitution row's force adds to its contact's normal force
                lam_rest = h * mu[nc:] / (2 * c)  # the row is in m/s: gradient Phi_v, not h Phi_v
                lam_out = lam_gap + lam_rest
                comp_parts.append(lam_rest * rest)
            mult_in = [mu, mu_eq]
        else:
            mult_in = [ca.SX.sym("unused_mu", nc), ca.SX.sym("unused_mu_eq", ne)]
        eom_res = K + Phi_v.T @ lam_out + Phi_eq_v.T @ lam_eq_out + fr_gen
        # EoM tolerances are relative to the forces at play (N): a 5000 rpm mechanism carries
        # ~1e3 N, where 1e-8 N absolute is below what double precision resolves
        eom_scale = ca.fmax(1, ca.norm_2(M @ (v - vm) / h) + ca.norm_2(K - M @ (v - vm) / h))
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
        comp = ca.mmax(ca.fabs(ca.vertcat(*comp_parts))) if nc else ca.SX(0)
        self._post = ca.Function(
            "post",
            [P, x, *mult_in],
            [
                q_new,
                v,
                lam_out,
                lam_eq_out,
                ca.norm_2(eom_res),
                comp,
                ca.mmax(ca.vertcat(*drift)),
                fr_force,
                eom_scale,
            ],
        )
        # Lagrangian gradient of the NLP (IPOPT's sign convention) for the QP predictor's test
        lam_g_sym = ca.SX.sym("lam_g", g.shape[0])
        grad_L = ca.gradient(f + ca.dot(lam_g_sym, g), x)
        self._grad_L = ca.Function("grad_L", [P, x, lam_g_sym], [grad_L])
        self.uses_curvature = "curvature" in o.gap_correction and nc > 0
        self.projection = (
            GapProjection(m, smallest_clearance(self.gap_scales))
            if ("projection" in o.gap_correction and nc > 0)
            else None
        )
        self.qp = None
        if o.predictor and not mpcc and not (self.friction or self.restitution or self.compliant):
            from .qp_step import QPStep  # qp_step imports this module

            self.qp = QPStep(m, o, self.gap_scales, projection=self.projection)
            self._predictor = self._predictor_function()
        self.predicted_steps = 0
        self.friction_solves = 0  # extra solves of the friction fixed point
        self.friction_unconverged = 0  # steps that reached FRICTION_ITERATIONS
        self.last_lam = np.zeros(0)
        self.compliant_force = np.zeros(6 * N)  # set by the stepper before each step

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
        enables the warm start; `curvature` False drops the second-order gap term.

        With friction, the step is solved again with the friction bounds mu lambda of the
        last solution until lambda stops changing (FRICTION_TOL; at most FRICTION_ITERATIONS
        solves, each warm-started from the one before): the fixed point is a Coulomb step."""
        nc = self.model.n_gap
        self._ubg_step = self._ubg
        if self.restitution:
            phi, rate = (np.asarray(a).ravel() for a in self._impacts(qm, vm))
            # contacts that approach and would close within the step at that speed
            hit = (rate > 0) & (phi + h_hi * rate >= 0) & (self.model.restitution > 0)
            self._ubg_step = self._ubg.copy()
            self._ubg_step[self._slices["rest"]] = np.where(hit, 0.0, np.inf)
        extra = [self.compliant_force] if self.compliant else []
        if not self.friction:
            P = np.concatenate([[t], qm, vm, [1.0 if curvature else 0.0], *extra])
            return self._solve_once(P, qm, vm, warm, h_lo, h_hi)
        lam_fr = self.last_lam.copy() if self.last_lam.size == nc else np.zeros(nc)
        if warm is not None and warm.lam.size == nc:
            lam_fr = warm.lam.copy()
        iters, spent, start = 0, 0.0, warm
        for _ in range(FRICTION_ITERATIONS):
            P = np.concatenate([[t], qm, vm, [1.0 if curvature else 0.0], lam_fr, *extra])
            sol = self._solve_once(P, qm, vm, start, h_lo, h_hi)
            iters += max(sol.iterations, 0)
            spent += sol.solve_time
            if sol.status == 3:
                break
            change = np.max(self.model.mu_static * np.abs(sol.lam - lam_fr), initial=0.0)
            size = np.max(self.model.mu_static * np.abs(sol.lam), initial=0.0)
            # over redundant contacts the split of lambda is not unique, but v is (the step is
            # strictly convex in v): a step whose v no longer moves has converged too
            same_v = (
                start is not None
                and start is not warm
                and np.max(np.abs(sol.v - start.v), initial=0.0)
                <= FRICTION_TOL * max(1.0, np.max(np.abs(sol.v), initial=0.0))
            )
            lam_fr, start = sol.lam.copy(), sol
            if change <= FRICTION_TOL * max(size, 1.0) or same_v:
                break
            self.friction_solves += 1
        else:
            self.friction_unconverged += 1
        sol.iterations, sol.solve_time = iters, spent
        self.last_lam = sol.lam.copy()
        return sol

    def _solve_once(self, P, qm, vm, warm, h_lo, h_hi) -> StepSolution:
        lbx, ubx = self.bounds(h_lo, h_hi)
        args = {"p": P, "lbx": lbx, "ubx": ubx, "lbg": self._lbg, "ubg": self._ubg_step}
        tic = time.perf_counter()
        guess = self._predict(P, h_lo, h_hi) if self.qp is not None else None
        if guess is not None and guess[4]:
            self.predicted_steps += 1
            x, lam_x, lam_g, post, _ = guess
            elapsed = time.perf_counter() - tic
            return self._solution(P, x, lam_x, lam_g, 0, 0, "QP predictor", elapsed, post)
        if guess is not None:  # IPOPT from the QP point, primal and dual
            x, lam_x, lam_g, _, _ = guess
            args.update(x0=np.clip(x, lbx, ubx), lam_x0=lam_x, lam_g0=lam_g)
            solver = self.solver_warm
        elif warm is not None:
            solver = self.solver_warm
            args.update(x0=np.clip(warm.x, lbx, ubx), lam_x0=warm.lam_x, lam_g0=warm.lam_g)
        else:
            solver = self.solver_cold
            args["x0"] = np.clip(self.initial_guess(vm, qm), lbx, ubx)
        sol = solver(**args)
        elapsed = time.perf_counter() - tic
        stats = solver.stats()
        x = np.asarray(sol["x"]).ravel()
        lam_g = np.asarray(sol["lam_g"]).ravel()
        return_status = stats.get("return_status", "unknown")
        status = _ACCEPTABLE.get(return_status, 3)
        if return_status in _VERIFY:
            # IPOPT could not meet its own scaled test, but the point may still solve the step:
            # accept it only if our unscaled checks hold (constraints, EoM, complementarity).
            status = 1 if self._verified(P, x, lam_g) else 3
        lam_x = np.asarray(sol["lam_x"]).ravel()
        iters = int(stats.get("iter_count", -1))
        return self._solution(P, x, lam_x, lam_g, status, iters, return_status, elapsed)

    def _verified(self, P: np.ndarray, x: np.ndarray, lam_g: np.ndarray) -> bool:
        """Unscaled checks of a step: constraint violation, EoM and complementarity residuals,
        nonnegative contact forces (VERIFY_TOL)."""
        g = np.asarray(self._g(P, x)).ravel()
        viol = np.max(np.maximum(g - self._ubg_step, self._lbg - g), initial=0.0) / self._rs
        mu, mu_eq = lam_g[self._slices["mult"]], lam_g[self._slices["eq"]]
        out = self._post(P, x, mu, mu_eq)
        lam = np.asarray(out[2]).ravel()
        return bool(
            viol <= VERIFY_TOL["constraints"]
            and _within(float(out[4]), VERIFY_TOL["eom"] * float(out[8]))
            and float(out[5]) <= VERIFY_TOL["complementarity"]
            and np.all(lam >= -VERIFY_TOL["complementarity"])
        )

    def _predictor_function(self) -> ca.Function:
        """(P, h) -> the QP step at h as a point (x, lam_g) of the NLP, with dL/ds, the QP's
        own KKT flag, the NLP's constraint violation and the `_post` outputs: one call."""
        N = self.model.n_bodies
        P = ca.MX.sym("P", 1 + 13 * N + 1)
        h = ca.MX.sym("h")
        t, qm, vm, use_curv = P[0], P[1 : 1 + 7 * N], P[1 + 7 * N : 1 + 13 * N], P[-1]
        _, v, lam, lam_eq, *_, ok = self.qp.attempt.call([t, qm, vm, h, use_curv])
        blocks = []
        for k in range(N):
            p = qm[7 * k + 3 : 7 * k + 7]
            pp = ca.dot(p, p)
            # v = 2 G p_dot and the linearised norm row [eq. 23]: p^T p - 1 + 2 h p^T p_dot = 0
            pd = g_matrix(p).T @ v[6 * k + 3 : 6 * k + 6] / (2 * pp) + p * (1 - pp) / (2 * h * pp)
            blocks += [v[6 * k : 6 * k + 3], pd]
        x = ca.vertcat(h / self.options.h_max, *blocks)
        # implicit form: mu = 2 c lam / h^2 (see _build); the norm rows' multipliers are 0
        sl = self._slices
        lam_g = ca.vertcat(
            ca.MX.zeros(sl["norm"].stop),
            2 * self._c * lam_eq / (self._rs * h**2),
            2 * self._c * lam / (self._rs * h**2),
        )
        g = self._g(P, x)
        viol = ca.mmax(ca.vertcat(0, g - self._ubg, self._lbg - g)) / self._rs
        dLds = self._grad_L(P, x, lam_g)[0]
        post = self._post(P, x, lam_g[sl["gap"]], lam_g[sl["eq"]])
        return ca.Function("predictor", [P, h], [x, lam_g, dLds, ok, viol, *post])

    def _predict(self, P, h_lo, h_hi):
        """The QP at h = h_hi as a point of the NLP: (x, lam_x, lam_g, post, is a solution).

        At a fixed h the QP is the NLP. Otherwise the QP point is a KKT point of the NLP when
        the multiplier of the bound s <= h_hi / h_max is nonnegative: lam_x_s = -dL/ds >= 0
        (the objective would still fall with a larger h); then IPOPT is not needed. The point
        must also pass the NLP's own checks (VERIFY_TOL). Returns None when the QP failed."""
        x, lam_g, dLds, ok, viol, *post = self._predictor(P, h_hi)
        if not float(ok):
            return None
        x, lam_g = np.asarray(x).ravel(), np.asarray(lam_g).ravel()
        lam_x = np.zeros(self.nx)
        lam_x[0] = -float(dLds)
        lam = np.asarray(post[2]).ravel()
        solved = (
            (h_lo == h_hi or float(dLds) <= 0.0)
            and float(viol) <= VERIFY_TOL["constraints"]
            and _within(float(post[4]), VERIFY_TOL["eom"] * float(post[8]))
            and float(post[5]) <= VERIFY_TOL["complementarity"]
            and bool(np.all(lam >= -VERIFY_TOL["complementarity"]))
        )
        return x, lam_x, lam_g, post, solved

    def _solution(
        self, P, x, lam_x, lam_g, status, iters, return_status, elapsed, out=None
    ) -> StepSolution:
        if out is None:
            out = self._post(P, x, lam_g[self._slices["mult"]], lam_g[self._slices["eq"]])
        q, v, lam, lam_eq = (np.asarray(a).ravel() for a in out[:4])
        friction = np.asarray(out[7]).reshape(3, -1) if len(out) > 7 else np.zeros((3, 0))
        # inf <= inf passes the tolerance tests: a non-finite state, force or residual (e.g.
        # overflow with a mass of 1e300) is a failed step, never an acceptable one
        eom, comp, drift = float(out[4]), float(out[5]), float(out[6])
        if status < 3 and not _finite(q, v, lam, lam_eq, eom, comp, drift):
            values = {"state": (q, v), "forces": (lam, lam_eq), "EoM residual": (eom,)}
            values.update({"complementarity": (comp,), "|p'p-1|": (drift,)})
            bad = [name for name, parts in values.items() if not _finite(*parts)]
            status = 3
            return_status = f"{return_status} with a non-finite {bad[0]}"
        return StepSolution(
            h=float(x[0] * self.options.h_max),
            q=q,
            v=v,
            lam=lam,
            lam_eq=lam_eq,
            eom_residual=eom,
            comp_residual=comp,
            norm_drift=drift,
            status=status,
            iterations=iters,
            solve_time=elapsed,
            return_status=return_status,
            x=x,
            lam_x=lam_x,
            lam_g=lam_g,
            friction=friction,
        )
