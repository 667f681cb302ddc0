"""Coulomb friction as a fixed point of Tresca steps (model/contact.py, HardContact).

Each solve of the NLP takes the friction bounds g_j = mu_j lambda_j with lambda_j given (the
parameters' `friction_normal`, "the input"); its friction forces are beta_j = g_j u_j / |u_j|_eps,
u_j = D_j v the slip velocity and |u|_eps = sqrt(|u|^2 + creep^2). The step is a Coulomb step
(no normal dilation, unlike Anitescu's convex relaxation) when the same forces obey the law
with the normal forces lambda_j the solve produced ("the output"):
beta_j = mu_j lambda_j u_j / |u_j|_eps.

Acceptance is tested on the equations of motion, the quantity that is unique even where the
split of lambda over redundant contacts (the two ends of a pin) is not: with the output's
friction forces the EoM residual grows by r_C = |sum_j D_j^T (beta_j(lambda_out) - beta_j)|,
and a step is solved only when the Tresca solve's residual plus r_C is within the kernel's
Verification bound (the same relative bound as every other step). A step that does not get
there within Friction.iterations solves is a FAILED step (the retry ladder solves it again; a
run whose every attempt fails stops with SolverFailure), never an accepted one.

The input is updated by Anderson acceleration (type II, Walker and Ni 2011) of the map
lambda_in -> lambda_out, on the frictional contacts, weighted by mu: plain substitution
oscillates where the map's slope is below -1 (large mu) or where the split over redundant
contacts flips between solves, and crawls where it is close to 1; the least-squares mix of the
last few residuals is a secant method for the first and averages the flip for the second. The
update is kept >= 0; when the residual grows the memory is dropped and the step is damped.
A step whose fixed point fails is started once more from above, from normal forces whose
friction stops any slip within the step (step/qp_rounds.py says why: Painleve's rod).
"""

from __future__ import annotations

from dataclasses import replace

import casadi as ca
import numpy as np

from .config import Friction
from .kernel import StepKernel, force_scale
from .layout import named_function
from .numeric import Numeric
from .solver import FAILED, StepInputs, StepSolution, StepSolver


def coulomb_function(kernel: StepKernel, settings: Friction) -> ca.Function:
    """(t, qm, vm, v, h, lam, beta (3, M), applied (6N)) -> (r_C, eom scale): the growth of the
    EoM residual when the friction forces beta of a Tresca solve are replaced by those of the
    Coulomb law with normal forces lam (module docstring), and the kernel's size of the forces
    at play (StepKernel.eom_scale)."""
    model = kernel.model
    nc, nv = model.n_gap, model.n_v
    t, h = ca.SX.sym("t"), ca.SX.sym("h")
    qm, vm, v = ca.SX.sym("qm", model.n_q), ca.SX.sym("vm", nv), ca.SX.sym("v", nv)
    lam, beta, applied = ca.SX.sym("lam", nc), ca.SX.sym("beta", 3, nc), ca.SX.sym("f", nv)
    slip = model.slip(qm)
    D = [slip[3 * j : 3 * j + 3, :] for j in range(nc)]
    slip_m = ca.vertcat(*(ca.norm_2(Dj @ vm) for Dj in D))
    mu = kernel.friction_coefficient(slip_m, settings.stick_speed)
    diff = ca.SX.zeros(nv, 1)
    for j, Dj in enumerate(D):
        u = Dj @ v
        coulomb = mu[j] * lam[j] * u / ca.sqrt(ca.dot(u, u) + settings.creep**2)
        diff = diff + Dj.T @ (coulomb - beta[:, j])
    M = model.M_sparse
    inertia = M @ (v - vm) / h
    rest = model.S(qm, vm) - model.Q(t, qm, vm) - applied
    if model.flexible:
        rest = rest + model.internal(qm, v, h)
    ins = {"t": t, "qm": qm, "vm": vm, "v": v, "h": h, "lam": lam, "beta": beta, "applied": applied}
    outs = {"r_C": ca.norm_2(diff), "scale": force_scale(inertia, rest)}
    return named_function("coulomb", ins, outs)


class _Anderson:
    """Anderson acceleration of x = F(x) on x >= 0, residuals weighted by w (module docstring)."""

    def __init__(self, weights: np.ndarray, memory: int) -> None:
        self.w, self.memory = weights, memory
        self.dx: list[np.ndarray] = []
        self.df: list[np.ndarray] = []
        self.last: tuple[np.ndarray, np.ndarray] | None = None
        self.best = np.inf

    def next(self, x: np.ndarray, fx: np.ndarray) -> np.ndarray:
        f = fx - x
        size = float(np.linalg.norm(self.w * f))
        if self.last is not None and self.memory > 0:
            x0, f0 = self.last
            self.dx.append(x - x0)
            self.df.append(f - f0)
            del self.dx[: -self.memory], self.df[: -self.memory]
        self.last = (x, f)
        if size > 10.0 * self.best:  # diverging: forget the secant model
            self.dx.clear()
            self.df.clear()
        self.best = min(self.best, size)
        if self.df:
            F = np.column_stack(self.df) * self.w[:, None]
            gamma = np.linalg.lstsq(F, self.w * f, rcond=1e-12)[0]
            step = x + f - (np.column_stack(self.dx) + np.column_stack(self.df)) @ gamma
            if np.any(step < 0.0):
                # the secant model leaves lambda >= 0, where the map changes its active set
                # (a contact unloads): step onto the boundary and build the model afresh
                self.dx.clear()
                self.df.clear()
            return np.maximum(step, 0.0)
        return np.maximum(fx, 0.0)


class FrictionFixedPoint(StepSolver):
    """Wraps a StepSolver that takes the friction bounds' normal forces as an input
    (StepInputs.friction_normal: the NLP, whose graph has the Tresca terms)."""

    def __init__(self, inner: StepSolver, settings: Friction) -> None:
        super().__init__(inner.kernel)
        self.inner, self.settings = inner, settings
        self.variable_h = inner.variable_h
        self.extra_solves = 0  # solves beyond the first, over the run
        self.unconverged = 0  # attempts that stalled or reached settings.iterations (FAILED)
        self.capped = 0  # attempts that reached settings.iterations
        self._last_normal = np.zeros(0)
        model = inner.kernel.model
        self.coulomb = Numeric(coulomb_function(inner.kernel, settings))
        self.frictional = np.flatnonzero(model.mu_static > 0)

    def counters(self) -> dict[str, int]:
        own = {"friction_solves": self.extra_solves, "friction_unconverged": self.unconverged}
        return {**self.inner.counters(), **own, "steps_capped_friction": self.capped}

    def coulomb_residual(self, inputs: StepInputs, sol: StepSolution) -> tuple[float, float]:
        """(EoM residual of `sol` with the Coulomb forces of its own normal forces, the bound
        the kernel's Verification puts on it)."""
        m = self.kernel.model
        beta = -sol.friction if sol.friction is not None else np.zeros((3, m.n_gap))
        applied = inputs.applied if inputs.applied is not None else np.zeros(m.n_v)
        o = self.coulomb.named(
            t=inputs.t,
            qm=inputs.q,
            vm=inputs.v,
            v=sol.v,
            h=sol.h,
            lam=sol.lam,
            beta=beta,
            applied=applied,
        )
        return sol.eom_residual + float(o["r_C"]), self.kernel.verification.eom * float(o["scale"])

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        model = self.kernel.model
        nc = model.n_gap
        normal = self._last_normal.copy() if self._last_normal.size == nc else np.zeros(nc)
        if warm is not None and warm.lam.size == nc:
            normal = warm.lam.copy()
        sol = self._fixed_point(inputs, warm, np.maximum(normal, 0.0))
        if sol.failed and sol.lam.size == nc and np.all(np.isfinite(sol.lam)):
            # Painleve's configurations: no sliding fixed point (slope >= 1); start above
            stop = float(np.sum(model.masses)) * np.max(np.abs(inputs.v)) / inputs.h_hi
            big = np.where(model.mu_static > 0, stop / np.maximum(model.mu_static, 1e-12), 0.0)
            again = self._fixed_point(inputs, warm, np.maximum(big, normal))
            if not again.failed:
                return again
        return sol

    def _fixed_point(
        self, inputs: StepInputs, warm: StepSolution | None, normal: np.ndarray
    ) -> StepSolution:
        model = self.kernel.model
        idx = self.frictional
        accel = _Anderson(model.mu_static[idx], self.settings.memory)
        iters, spent, start = 0, 0.0, warm
        residual, bound = np.inf, 0.0
        for k in range(self.settings.iterations):
            if k:
                self.extra_solves += 1
            sol = self.inner.solve(replace(inputs, friction_normal=normal), start)
            iters += max(sol.iterations, 0)
            spent += sol.solve_time
            if sol.failed:
                break
            residual, bound = self.coulomb_residual(inputs, sol)
            if residual <= bound:
                break
            change = np.max(model.mu_static * np.abs(sol.lam - normal), initial=0.0)
            size = np.max(model.mu_static * np.abs(sol.lam), initial=0.0)
            if change <= self.settings.tol * max(size, 1.0):  # stalled short of the bound
                self.unconverged += 1
                sol.status = FAILED
                sol.return_status = (
                    f"{sol.return_status}; Coulomb friction stalled (EoM residual "
                    f"{residual:.3g} with the output's friction forces > {bound:.3g})"
                )
                break
            nxt = normal.copy()
            nxt[idx] = accel.next(normal[idx], sol.lam[idx])
            normal, start = nxt, sol
        else:
            self.unconverged += 1
            self.capped += 1
            sol.status = FAILED
            sol.return_status = (
                f"{sol.return_status}; Coulomb friction not converged in "
                f"{self.settings.iterations} solves (EoM residual {residual:.3g} with the "
                f"output's friction forces > {bound:.3g})"
            )
        sol.iterations, sol.solve_time = iters, spent
        if not sol.failed:
            self._last_normal = sol.lam.copy()
        return sol
