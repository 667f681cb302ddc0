"""The second-order scheme (Integrator.VERLET): kick h/2, drift h, kick h/2, with contact.

A RATTLE-type Stoermer-Verlet split of the step from (t, q0, v0) with h:

1. position stage, the ordinary step solved with half the smooth forces' impulse (StepKernel
   `kick` = 1/2): the mid-step velocity v_half minimises 1/2 |v - v0 - h/2 M^-1 F0|_M^2 subject
   to the gaps and equalities linearised over the whole step, each with its h^2/2 second-order
   term (the kernel's T2 and equality_bound), Newton's impact law and Coulomb friction;
   q1 = advance(q0, v_half, h);
2. velocity stage, the same solve at q1 over h/2 from v_half with the other half impulse,
   F1 = Q - S at (t + h, q1, 2 v_half - v0) (the velocity extrapolated to the step's end, so
   that velocity-dependent forces are second order too), the equalities at velocity level and
   every gap as min(Phi(q1), 0) (use -1): a closed contact may not close further, the end
   velocity is tangent to it, and no penetration is pushed out through the velocity.

In smooth phases this is Stoermer-Verlet (second order; on a rotating body the midpoint rule of
the rotation, which `advance` takes exactly to third order per step); the forces reported are
the step's mean, (impulse of stage 1 + impulse of stage 2) / h. Compliant contact forces are
held over the step as in the first-order scheme (first order in them).

`two_stage` composes a step QP's attempt Function (step/qp_graph.py) into the scheme's
attempt, same inputs and outputs, so the compiled chunks run it unchanged; VerletStep adds the
velocity stage to any StepSolver of the position stage (the NLP path).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import casadi as ca
import numpy as np

from .kernel import StepKernel
from .layout import COUNTS, named_function
from .numeric import Numeric
from .qp_symbols import first_stage
from .quiet import quiet_for
from .solver import FAILED, StepInputs, StepSolution, StepSolver

#: Outputs of a step attempt (step/qp_graph.py, ATTEMPT_OUT) that add up over the stages.
_FORCES = ("lam", "lam_eq", "friction")


def velocity_stage(kernel: StepKernel, attempt: ca.Function, args: Mapping[str, Any]) -> dict:
    """Stage 2 as a call of `attempt` (the velocity stage's step QP): args t1, q1, v_half, v0,
    h, applied, normal (by name) -> its outputs at h/2 (forces as mean forces over h/2)."""
    m = kernel.model
    t1, q1, v_half, v0 = args["t1"], args["q1"], args["v_half"], args["v0"]

    def F(v: Any) -> Any:
        return m.Q(t1, q1, v) - m.S(q1, v)

    # the attempt kicks by kick * (h/2) * (F(v_half) + applied_2); make that (h/2) (F1 + applied)
    applied_2 = (F(2 * v_half - v0) + args["applied"]) / kernel.kick - F(v_half)
    stage = {"t": t1, "q": q1, "v": v_half, "h": 0.5 * args["h"], "use_curvature": -1.0}
    return attempt.call({**stage, "applied": applied_2, "normal": args["normal"]})


def combine(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict:
    """The step's outputs from the two stages' (ATTEMPT_OUT names; symbolic or numeric): q from
    the first, v from the second, forces the step's mean (stage 2 covers half the step),
    residuals the larger, ok and settled both, the COUNTS (QP solves, ...) of both."""
    out = dict(first)
    out["v_new"] = second["v_new"]
    for k in _FORCES:
        out[k] = first[k] + 0.5 * second[k]
    for k in ("eom", "comp"):
        out[k] = ca.fmax(first[k], second[k])
    for k in ("ok", "settled"):
        out[k] = first[k] * second[k]
    for k in COUNTS:  # the QP path's (the NLP path counts IPOPT's iterations)
        if k in first:
            out[k] = first[k] + second[k]
    return out


def two_stage(kernel: StepKernel, attempt: ca.Function, velocity: ca.Function) -> ca.Function:
    """The scheme's attempt from the position stage's `attempt` and the velocity stage's: the
    same signature (t, q, v, h, use, applied, normal) and outputs. `normal`, the friction fixed
    point's start, is the previous step's mean normal force: half of it in stage 1, all of it
    in stage 2."""
    ins = {n: ca.MX.sym(n, attempt.sparsity_in(n)) for n in attempt.name_in()}
    first = attempt.call({**ins, "normal": 0.5 * ins["normal"]})
    stage = {"t1": ins["t"] + ins["h"], "q1": first["q_new"], "v_half": first["v_new"]}
    # without friction `normal` only guesses the QP's active set (step/qp_warm.py hint): the
    # position stage's own forces guess it better than the step before's
    normal = ins["normal"] if kernel.model.has_friction else first["lam"]
    stage.update({"v0": ins["v"], "h": ins["h"], "applied": ins["applied"], "normal": normal})
    second = velocity_stage(kernel, velocity, stage)
    out = combine(first, second)
    # the velocity stage's rate: the next step's position stage starts with it (its kick h/2)
    out.update(first_stage(ins, first["v_new"], second["v_new"]))
    outputs = {n: out[n] for n in attempt.name_out()}
    return named_function("verlet_" + attempt.name(), ins, outputs)


class VerletStep(StepSolver):
    """The scheme around a solver of its position stage (the NLP path: IPOPT, the predictor,
    the friction fixed point); the velocity stage is the step QP (not compiled)."""

    def __init__(self, first: StepSolver, attempt: ca.Function, plugin: str) -> None:
        """`attempt`: the velocity stage's step QP (qp_graph.attempt_function, whole=False,
        velocity=True) solved by `plugin`."""
        super().__init__(first.kernel)
        self.plugin = plugin
        self.first, self.variable_h = first, first.variable_h
        k, N = first.kernel, first.kernel.model.n_bodies
        sizes = {"t1": 1, "q1": 7 * N, "v_half": 6 * N, "v0": 6 * N, "h": 1, "applied": 6 * N}
        args = {n: ca.MX.sym(n, size) for n, size in sizes.items()}
        args["normal"] = ca.MX.sym("normal", k.model.n_gap)
        stage = named_function("velocity_stage", args, velocity_stage(k, attempt, args))
        self._stage = Numeric(stage)  # NumPy in and out, no DM

    def counters(self) -> dict[str, int]:
        return self.first.counters()

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        tic = time.perf_counter()
        a = self.first.solve(inputs, warm)
        if a.failed:
            return replace(a, return_status=f"position stage: {a.return_status}")
        applied = inputs.applied if inputs.applied is not None else np.zeros(inputs.v.size)
        normal = np.maximum(2 * a.lam, 0.0)  # stage 1 carries about half the normal impulse
        with quiet_for(self.plugin):
            b = self._stage.named(
                t1=inputs.t + a.h,
                q1=a.q,
                v_half=a.v,
                v0=inputs.v,
                h=a.h,
                applied=applied,
                normal=normal,
            )
        friction = a.friction if a.friction is not None else np.zeros((3, a.lam.size))
        second: dict[str, Any] = {k: np.asarray(b[k], dtype=float) for k in ("v_new", "ok")}
        second.update({k: np.asarray(b[k], dtype=float).ravel() for k in ("lam", "lam_eq")})
        second.update({k: float(b[k]) for k in ("eom", "comp")}, settled=1.0)
        second["friction"] = np.asarray(b["friction"], dtype=float).reshape(friction.shape)
        first: dict[str, Any] = {"v_new": a.v, "lam": a.lam, "lam_eq": a.lam_eq}
        first.update(friction=friction, eom=a.eom_residual, comp=a.comp_residual)
        first.update(ok=1.0, settled=1.0)  # a failed first stage returned above
        out = combine(first, second)
        ok = bool(out["ok"])
        return replace(
            a,
            v=out["v_new"].ravel(),
            lam=out["lam"],
            lam_eq=out["lam_eq"],
            eom_residual=out["eom"],
            comp_residual=out["comp"],
            status=a.status if ok else FAILED,
            solve_time=time.perf_counter() - tic,
            friction=out["friction"],
            return_status=a.return_status if ok else self._why(a, second, float(b["settled"])),
        )

    def _why(self, a: StepSolution, second: Mapping[str, Any], settled: float) -> str:
        """The failed step's reason: the velocity stage's (the position stage passed)."""
        eom, comp = second["eom"], second["comp"]
        if settled:
            miss = f"failed its checks (EoM residual {eom:.3g} N, complementarity {comp:.3g} N m)"
        elif self.kernel.model.has_friction:
            miss = f"friction fixed point not settled (EoM residual {eom:.3g} N)"
        else:
            miss = f"EoM residual {eom:.3g} N above its bound"
        return f"position stage: {a.return_status}; velocity stage (QP over h/2): {miss}"
