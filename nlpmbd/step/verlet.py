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
from dataclasses import replace
from typing import Any

import casadi as ca
import numpy as np

from .kernel import StepKernel
from .quiet import quiet_for
from .solver import FAILED, StepInputs, StepSolution, StepSolver

#: outputs of a step attempt that add up over the stages (the forces), by index
_FORCES = {2: "lam", 3: "lam_eq", 8: "friction"}


def velocity_stage(kernel: StepKernel, attempt: ca.Function, args: list) -> list:
    """Stage 2 as a call of the position stage's `attempt`: args (t1, q1, v_half, v0, h,
    applied, normal) -> its outputs at h/2 (forces as mean forces over h/2)."""
    m = kernel.model
    t1, q1, v_half, v0, h, applied, normal = args

    def F(v: Any) -> Any:
        return m.Q(t1, q1, v) - m.S(q1, v)

    # the attempt kicks by kick * (h/2) * (F(v_half) + applied_2); make that (h/2) (F1 + applied)
    applied_2 = (F(2 * v_half - v0) + applied) / kernel.kick - F(v_half)
    return list(attempt.call([t1, q1, v_half, 0.5 * h, -1.0, applied_2, normal]))


def combine(first: list, second: list) -> list:
    """The step's outputs from the two stages' (ATTEMPT_OUT order): q from the first, v from
    the second, forces the step's mean (stage 2 covers half the step), residuals the larger,
    ok and settled both."""
    out = list(first)
    out[1] = second[1]
    for i in _FORCES:
        out[i] = first[i] + 0.5 * second[i]
    out[4], out[5] = ca.fmax(first[4], second[4]), ca.fmax(first[5], second[5])
    out[7], out[9] = first[7] * second[7], first[9] * second[9]
    return out


def two_stage(kernel: StepKernel, attempt: ca.Function) -> ca.Function:
    """The scheme's attempt from the position stage's: same signature (t, q, v, h, use,
    applied, normal) and outputs. `normal`, the friction fixed point's start, is the previous
    step's mean normal force: half of it in stage 1, all of it in stage 2."""
    ins = [ca.MX.sym(attempt.name_in(i), attempt.sparsity_in(i)) for i in range(attempt.n_in())]
    t, q, v, h, use, applied, normal = ins
    first = list(attempt.call([t, q, v, h, use, applied, 0.5 * normal]))
    second = velocity_stage(kernel, attempt, [t + h, first[0], first[1], v, h, applied, normal])
    out = combine(first, second)
    names = [attempt.name_out(i) for i in range(attempt.n_out())]
    return ca.Function("verlet_" + attempt.name(), ins, out, attempt.name_in(), names)


class VerletStep(StepSolver):
    """The scheme around a solver of its position stage (the NLP path: IPOPT, the predictor,
    the friction fixed point); the velocity stage is the step QP (not compiled)."""

    def __init__(self, first: StepSolver, attempt: ca.Function, plugin: str) -> None:
        """`attempt`: the position stage's step QP (qp_graph.attempt_function, whole=False)
        solved by `plugin`."""
        super().__init__(first.kernel)
        self.plugin = plugin
        self.first, self.variable_h = first, first.variable_h
        k, N = first.kernel, first.kernel.model.n_bodies
        args = [ca.MX.sym(n, s) for n, s in (("t", 1), ("q", 7 * N), ("v", 6 * N), ("v0", 6 * N))]
        args += [ca.MX.sym("h"), ca.MX.sym("applied", 6 * N), ca.MX.sym("normal", k.model.n_gap)]
        self._stage = ca.Function("velocity_stage", args, velocity_stage(k, attempt, args))

    def counters(self) -> dict[str, int]:
        return self.first.counters()

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        tic = time.perf_counter()
        a = self.first.solve(inputs, warm)
        if a.failed:
            return a
        applied = inputs.applied if inputs.applied is not None else np.zeros(inputs.v.size)
        normal = np.maximum(2 * a.lam, 0.0)  # stage 1 carries about half the normal impulse
        with quiet_for(self.plugin):
            b = self._stage(inputs.t + a.h, a.q, a.v, inputs.v, a.h, applied, normal)
        b = [np.asarray(x, dtype=float) for x in b]
        friction = a.friction if a.friction is not None else np.zeros((3, a.lam.size))
        return replace(
            a,
            v=b[1].ravel(),
            lam=a.lam + 0.5 * b[2].ravel(),
            lam_eq=a.lam_eq + 0.5 * b[3].ravel(),
            eom_residual=max(a.eom_residual, b[4].item()),
            comp_residual=max(a.comp_residual, b[5].item()),
            status=a.status if b[7].item() else FAILED,
            solve_time=time.perf_counter() - tic,
            friction=friction + 0.5 * b[8].reshape(friction.shape),
        )
