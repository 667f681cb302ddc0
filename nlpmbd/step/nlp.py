"""The per-step NLP (docs/FORMULATION.md section 4), built once per simulation and warm-started.

Parameters P (layout `p`): t_{n-1}, qm, vm, the second-order switch, the friction normal forces
(frictional systems) and the applied constant force (compliant contacts). Unknowns x (layout
`x`): the scaled step s = h / h_max and q_dot, plus lambda, lambda_eq in the MPCC form. All
constraints are written in velocity space, c(qm) + h (C_v(qm) v + c_t) [eqs. 23-24], for contacts
and ideal joints alike (step/kernel.py), so both formulations share them and the KKT conditions
of the implicit form are the v-space equations of motion (docs/method/step.md).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import casadi as ca
import numpy as np

from ..errors import InputError
from .adoption import adoption_function
from .config import DEFAULT_FRICTION, Formulation, Friction
from .flush import flushed
from .graph import NLPGraph, build_graph
from .impacts import RELEASE_ROUNDS
from .ipopt_options import NO_OPTIONS_FILE, STEP_BASE, STEP_WARM
from .kernel import StepKernel
from .numeric import Numeric
from .solver import ACCEPTABLE, FAILED, SOLVED, StepInputs, StepSolution, StepSolver, finite

#: IPOPT statuses that count as a solved step.
_SOLVED = {"Solve_Succeeded": SOLVED, "Solved_To_Acceptable_Level": ACCEPTABLE}
#: IPOPT statuses after which the returned point is checked and accepted if it passes.
_VERIFY = {
    "Search_Direction_Becomes_Too_Small",
    "Maximum_Iterations_Exceeded",
    "Restoration_Failed",
    "Error_In_Step_Computation",
}


@dataclass(frozen=True)
class Start:
    """Where IPOPT starts: a point (x, and for a warm start the multipliers), warm or cold."""

    x: np.ndarray
    lam_x: np.ndarray | None = None
    lam_g: np.ndarray | None = None

    @property
    def warm(self) -> bool:
        return self.lam_g is not None


class NLPStep(StepSolver):
    """One NLP per step, solved by IPOPT; h in [h_lo, h_hi] is one of its unknowns."""

    variable_h = True

    def __init__(
        self,
        kernel: StepKernel,
        *,
        h_max: float,
        formulation: Formulation = Formulation.IMPLICIT,
        tol: float = 1e-10,
        ipopt: dict[str, Any] | None = None,
        h_preference: float = 1e-6,
        sigma: float = 1e-10,
        friction: Friction = DEFAULT_FRICTION,
    ) -> None:
        super().__init__(kernel)
        m = kernel.model
        if (m.has_friction or m.has_restitution) and formulation is Formulation.MPCC:
            raise InputError(
                "formulation must be 'implicit' for friction or restitution, got 'mpcc'"
            )
        self.h_max, self.formulation, self.capped = h_max, formulation, 0  # capped: max_iter
        self.graph: NLPGraph = build_graph(
            kernel, h_max, formulation, h_preference, sigma, friction
        )
        g = self.graph
        self._post, self._rows = Numeric(g.post), Numeric(g.rows)  # no DM in the loop
        self._impacts, self._induced = Numeric(g.impacts), Numeric(g.induced)
        nlp = {"x": g.x, "p": g.p, "f": g.f, "g": g.g}
        base = {**STEP_BASE, "ipopt.tol": tol, "ipopt.constr_viol_tol": tol, **NO_OPTIONS_FILE}
        user = {f"ipopt.{k}": val for k, val in (ipopt or {}).items()}
        try:
            self.solver_warm = ca.nlpsol(
                "step_warm", "ipopt", nlp, {**base, **user, **STEP_WARM, **user}
            )
            self.solver_cold = ca.nlpsol("step_cold", "ipopt", nlp, {**base, **user})
        except RuntimeError as err:
            reason = str(err).strip().splitlines()[-1].split(": ", 1)[-1]
            raise InputError(
                f"ipopt options {sorted(ipopt or {})} rejected by IPOPT: {reason}"
            ) from None

    def counters(self) -> dict[str, int]:
        return {"steps_capped_ipopt": self.capped}

    # ---- data of one step ------------------------------------------------------------------
    def parameters(self, inputs: StepInputs) -> np.ndarray:
        """P for a step (layout `p`), its tiny numbers zero (flush.flushed)."""
        g, m = self.graph, self.kernel.model
        blocks: dict[str, Any] = {
            "t": inputs.t,
            "q": inputs.q,
            "v": inputs.v,
            "use_curvature": 1.0 if inputs.curvature else 0.0,
        }
        if g.p.numel() and g.layout_p.sizes["friction_normal"]:
            normal = inputs.friction_normal
            blocks["friction_normal"] = normal if normal is not None else np.zeros(m.n_gap)
        if g.layout_p.sizes["applied"]:
            blocks["applied"] = inputs.applied if inputs.applied is not None else np.zeros(m.n_v)
        return flushed(g.layout_p.stack(blocks))

    def bounds(self, h_lo: float, h_hi: float) -> tuple[np.ndarray, np.ndarray]:
        """Bounds of x for a step with h in [h_lo, h_hi] (s = h / h_max)."""
        lay, nx = self.graph.layout_x, self.graph.layout_x.size
        lbx, ubx = np.full(nx, -np.inf), np.full(nx, np.inf)
        lbx[lay["s"]], ubx[lay["s"]] = h_lo / self.h_max, h_hi / self.h_max
        lbx[lay["lam"]] = 0.0
        return lbx, ubx

    def impact_set(self, inputs: StepInputs) -> np.ndarray:
        """The contacts that obey Newton's impact law in this step (step/impacts.py), for a
        system with restitution."""
        hit = self._impacts.named(P=self.parameters(inputs), h=inputs.h_hi)["hit"]
        return np.ravel(hit) > 0.5

    def row_bounds(self, inputs: StepInputs, released: np.ndarray | None = None) -> np.ndarray:
        """Upper bounds of the rows for this step: the restitution rows (Phi_v v <= -e Phi_v vm)
        of the impact set are on, the gap rows of `released` contacts off (step/impacts.py)."""
        g = self.graph
        if not g.layout_g.sizes["restitution"]:
            return g.ubg
        ubg = g.ubg.copy()
        ubg[g.layout_g["restitution"]] = np.where(self.impact_set(inputs), 0.0, np.inf)
        if released is not None:
            ubg[g.layout_g["gap"]] = np.where(released, np.inf, ubg[g.layout_g["gap"]])
        return ubg

    def cold_point(self, inputs: StepInputs) -> np.ndarray:
        """h = h_max and q_dot from the previous velocities (and zero multipliers)."""
        return np.asarray(self.graph.cold_point(inputs.q, inputs.v)).ravel()

    # ---- solving -------------------------------------------------------------------------------
    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        """IPOPT from the previous step's point (warm) or from `cold_point`; the friction
        bounds' normal forces are inputs.friction_normal (step/friction.py; None: zeros)."""
        tic = time.perf_counter()
        start = None
        if warm is not None and warm.warm is not None and "x" in warm.warm:  # IPOPT's own
            start = Start(warm.warm["x"], warm.warm["lam_x"], warm.warm["lam_g"])
        P = self.parameters(inputs)
        return self._release_induced(
            P, inputs, self.run(P, inputs, start, self.row_bounds(inputs), tic), tic
        )

    def adopt(self, inputs: StepInputs, other: StepSolution) -> StepSolution:
        """A step taken at h = h_hi (the QP's) as this NLP's point (step/adoption.py): SOLVED
        when it solves the NLP, else FAILED with IPOPT's start from it as `warm`."""
        tic = time.perf_counter()
        P, g = self.parameters(inputs), self.graph
        o = self._adoption.named(P=P, h=other.h, v=other.v, lam=other.lam, lam_eq=other.lam_eq)
        x, lam_g, dLds = np.ravel(o["x"]), np.ravel(o["lam_g"]), float(o["dLds"])
        lam_x = np.zeros(g.layout_x.size)
        lam_x[g.layout_x["s"]] = -dLds
        post = {k: o[f"post_{k}"] for k in g.post.name_out()}
        solved = (inputs.h_lo == inputs.h_hi or dLds <= 0.0) and self.accepts(o["viol"], post)
        status, why = (SOLVED, "QP predictor") if solved else (FAILED, "QP point not a solution")
        return self.solution(P, x, lam_x, lam_g, status, 0, why, time.perf_counter() - tic, post)

    @functools.cached_property
    def _adoption(self) -> Numeric:
        return Numeric(adoption_function(self.graph, self.h_max))

    def _release_induced(
        self, P: np.ndarray, inputs: StepInputs, sol: StepSolution, tic: float
    ) -> StepSolution:
        """Solve again, without their gap rows, while open contacts outside the impact set are
        stopped by them, at most RELEASE_ROUNDS times: induced impacts obey Newton's law in the
        next step (step/impacts.py); any left after that fail the step."""
        m = self.kernel.model
        if not self.graph.layout_g.sizes["restitution"]:
            return sol
        hit, released = self.impact_set(inputs), np.zeros(m.n_gap, dtype=bool)
        iterations = sol.iterations
        for k in range(RELEASE_ROUNDS + 1):
            if sol.failed or sol.warm is None:
                break
            found = self._induced.named(lam=sol.lam, hit=hit, released=released)["induced"]
            more = np.ravel(found) > 0.5
            if not more.any():
                break
            if k == RELEASE_ROUNDS:
                sol.status = FAILED
                sol.return_status = f"{sol.return_status}; induced impacts after {k} releases"
                break
            released |= more
            start = Start(sol.warm["x"], sol.warm["lam_x"], sol.warm["lam_g"])
            sol = self.run(P, inputs, start, self.row_bounds(inputs, released), tic)
            iterations += max(sol.iterations, 0)
        sol.iterations = iterations
        return sol

    def run(
        self, P: np.ndarray, inputs: StepInputs, start: Start | None, ubg: np.ndarray, tic: float
    ) -> StepSolution:
        """One IPOPT solve of the NLP with parameters P from `start` (None: the cold point)."""
        lbx, ubx = self.bounds(inputs.h_lo, inputs.h_hi)
        args: dict[str, Any] = {"p": P, "lbx": lbx, "ubx": ubx, "lbg": self.graph.lbg, "ubg": ubg}
        if start is None:
            solver = self.solver_cold
            args["x0"] = np.clip(self.cold_point(inputs), lbx, ubx)
        else:
            solver = self.solver_warm if start.warm else self.solver_cold
            args.update(x0=np.clip(start.x, lbx, ubx), lam_x0=start.lam_x, lam_g0=start.lam_g)
        sol = solver(**args)
        elapsed = time.perf_counter() - tic
        stats = solver.stats()
        x = np.asarray(sol["x"]).ravel()
        lam_g = np.asarray(sol["lam_g"]).ravel()
        return_status = stats.get("return_status", "unknown")
        self.capped += return_status == "Maximum_Iterations_Exceeded"
        status = _SOLVED.get(return_status, FAILED)
        out = self._post.named(P=P, x=x, **self.graph.multipliers(lam_g))
        if return_status in _VERIFY:
            # IPOPT could not meet its own scaled test, but the point may still solve the step:
            # accept it only if our unscaled checks hold (constraints, EoM, complementarity).
            status = ACCEPTABLE if self.verified(P, x, out, ubg) else FAILED
        lam_x = np.asarray(sol["lam_x"]).ravel()
        iters = int(stats.get("iter_count", -1))
        step = self.solution(P, x, lam_x, lam_g, status, iters, return_status, elapsed, out)
        if return_status in _SOLVED and not step.failed and not self.verified(P, x, out, ubg):
            # IPOPT's test is scaled: a step it calls solved must pass ours too
            step.status, step.return_status = FAILED, f"{return_status}, unscaled checks failed"
        return step

    def verified(self, P: np.ndarray, x: np.ndarray, out: dict, ubg: np.ndarray) -> bool:
        """The kernel's acceptance test of an IPOPT point (unscaled, Verification); `out`: the
        graph's post outputs at it (NLPGraph.post)."""
        g = self.graph
        rows = np.ravel(self._rows.named(P=P, x=x)["g"])
        viol = np.max(np.maximum(rows - ubg, g.lbg - rows), initial=0.0) / g.row_scale
        return self.accepts(viol, out)

    def accepts(self, viol: float, out: dict) -> bool:
        """The kernel's acceptance test of a point with constraint violation `viol` (m) and post
        outputs `out` (NLPGraph.post)."""
        k = self.kernel
        lam = np.ravel(out["lam"])
        return bool(float(k.accepts(viol, out["eom"], out["eom_scale"], out["comp"], lam)))

    def solution(
        self,
        P: np.ndarray,
        x: np.ndarray,
        lam_x: np.ndarray,
        lam_g: np.ndarray,
        status: int,
        iters: int,
        return_status: str,
        elapsed: float,
        out: dict | None = None,
    ) -> StepSolution:
        """The StepSolution of an NLP point (`out`: the graph's post outputs, if known)."""
        g = self.graph
        if out is None:
            out = self._post.named(P=P, x=x, **g.multipliers(lam_g))
        q, v, lam, lam_eq = (np.asarray(out[k]).ravel() for k in ("q", "v", "lam", "lam_eq"))
        friction = np.asarray(out["friction"]).reshape(3, -1)
        eom, comp, drift = float(out["eom"]), float(out["comp"]), float(out["drift"])
        # inf <= inf passes the tolerance tests: a non-finite state, force or residual (e.g.
        # overflow with a mass of 1e300) is a failed step, never an acceptable one
        if status != FAILED and not finite(q, v, lam, lam_eq, eom, comp, drift):
            values = {"state": (q, v), "forces": (lam, lam_eq), "EoM residual": (eom,)}
            values.update({"complementarity": (comp,), "|p'p-1|": (drift,)})
            bad = [name for name, parts in values.items() if not finite(*parts)]
            status = FAILED
            return_status = f"{return_status} with a non-finite {bad[0]}"
        return StepSolution(
            h=float(x[g.layout_x["s"]].item() * self.h_max),
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
            warm={"x": x, "lam_x": lam_x, "lam_g": lam_g},
            friction=friction,
        )
