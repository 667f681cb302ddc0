"""The QP step's rounds for the friction inside joints whose bounds grow with the joint's
reaction (step/rows/joint_friction.py): the step is a fixed point in the loads N_k, solved
again with the loads of the solve before, secant steps per row (qp_rounds.secant)."""

from __future__ import annotations

import casadi as ca

from .kernel import StepKernel
from .layout import adding, named_function, switch, symbols_like
from .qp_rounds import secant
from .qp_symbols import ATTEMPT_OUT, friction_symbols, step_symbols

#: Solves of a step whose joints' friction bounds grow with their reaction (step/rows/
#: joint_friction.py): the first at their constant parts, then secant rounds on the loads.
JOINT_ROUNDS = 6


def with_joint_rounds(kernel: StepKernel, at: ca.Function) -> ca.Function:
    """`at` (t, q, v, h, use, applied, normal, fdirs, joint_load) -> ..., joint_load_next,
    joint_settled without joint_load: solved again with the loads of the solve before (secant
    steps, qp_rounds.secant) until its bounds are its own; ok requires it."""
    m = kernel.model
    fs = friction_symbols(m)
    args = {**step_symbols(m), "normal": fs["normal"], "fdirs": fs["fdirs"]}
    x = ca.MX.zeros(m.joint_friction.n)
    out, before = at.call({**args, "joint_load": x}), None
    for k in range(JOINT_ROUNDS):
        nxt = secant(x, out["joint_load_next"], before)
        syms, load = symbols_like(out), ca.MX.sym("joint_load", x.shape)
        again = adding(at.call({**args, "joint_load": load}), syms)
        step = switch(f"joint_friction_round_{k}", {**args, "joint_load": load}, syms, again)
        before, x = (x, out["joint_load_next"]), nxt
        out = step(1 - out["joint_settled"], {**args, "joint_load": nxt}, out)
    out["ok"] = out["ok"] * out["joint_settled"]
    keep = (*ATTEMPT_OUT, "fdirs_next")
    return named_function("qp_joint_friction", args, {k: out[k] for k in keep})
