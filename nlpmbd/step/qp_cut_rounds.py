"""The QP step's rounds for the vector-linearised radial gaps: the first QP with the fan's rows,
then up to N_CUTS more, each where the one before left an offset outside its disc (or, Newton's,
a loaded gap's normal turned). Two schemes (`cut_kind`): Newton's (step/cuts_newton.py), one cut
row a gap, the gap's linearisation at the round before's point with the disc's curvature, in a
QP without the fan's rows; Kelley's (step/cuts.py), a cut added each round beside the fan's rows
and the cuts before, for models with contact or joint friction: with Newton's rounds inside
Coulomb's fixed point four_bar_clearance's friction did not converge (2676 of 9034 steps went to
the NLP fallback, 8x main's QPs a step, then a step failed: issue 30).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import casadi as ca

from .cuts import N_CUTS, N_FAN, Cuts, n_cone
from .cuts_newton import NewtonCuts
from .kernel import StepKernel
from .layout import adding, named_function, switch, symbols_like
from .qp_symbols import friction_symbols, step_symbols


def cut_kind(model: Any) -> type[Cuts]:
    """The cut scheme of a model's QPs (module docstring)."""
    return Cuts if model.has_friction or model.joint_friction.n else NewtonCuts


def cut_symbol(model: Any) -> ca.MX:
    """The symbol of a QP's `cuts` input (its scheme's slots per radial gap)."""
    kind = cut_kind(model)
    return ca.MX.sym("cuts", kind.entries * n_cone(model), kind.slots)


def with_cuts(kernel: StepKernel, build: Callable[..., ca.Function], cut_rows: bool) -> ca.Function:
    """(t, q, v, h, use, applied, normal, fdirs, released, warm) -> the QP's outputs after its
    rounds; `build(fan=...)`: one QP (step/qp_graph.py), with `cuts` an input under the vector
    linearisation, with or without the fan's rows; `build()` itself where it has no cut rows
    (the velocity stage's, step/qp_graph.py)."""
    if not cut_rows:
        return build()
    m = kernel.model
    args = {**step_symbols(m), **friction_symbols(m), "released": ca.MX.sym("released", m.n_gap)}
    kind = cut_kind(m)
    dirs = ca.DM.zeros(kind.entries * n_cone(m), kind.slots)
    if kind is NewtonCuts:
        one = build(fan=False)
        out = _first(kernel, build(fan=True), args)
    else:  # Kelley's rounds keep the fan's rows
        one = build(fan=True)
        out = one.call({**args, "cuts": dirs})
    q, v, h, use = args["q"], args["v"], args["h"], args["use_curvature"]
    drift = kernel.offset_drift(q, v, h, use)

    def moved(v_new: Any) -> Any:
        q_new, _ = kernel.update(q, v_new, h)
        return q_new

    cuts = kind(m, q, h, args["released"], drift, moved, use)
    for k in range(N_CUTS):
        dirs, need = cuts.next(out["v_new"], dirs, k, out["lam"])
        need = need * (use >= 0)  # a velocity stage keeps closed contacts by their normal
        syms, d = symbols_like(out), ca.MX.sym("d", dirs.shape)
        # DAQP starts from the round before's working set
        redo = one.call({**args, "cuts": d, "warm": syms["lam_a_raw"]})
        again = switch(f"cut_{k}", {**args, "cuts": d}, syms, adding(redo, syms))
        out = again(need, {**args, "cuts": dirs}, out)
    out["capped_cuts"] = out["capped_cuts"] + need  # `need` of the last cut round
    return named_function("qp_cut", args, out)


def _first(kernel: StepKernel, fanned: ca.Function, args: dict) -> dict:
    """The outputs of the step's first QP, `fanned` (with the fan's rows), its multipliers
    without the fan's rows (the rounds' warm start in the QP without them)."""
    m = kernel.model
    start = m.n_eq + m.n_gap * (2 if m.has_restitution else 1)  # the fan's rows follow
    out = fanned.call({**args, "cuts": ca.DM.zeros(NewtonCuts.entries * n_cone(m), 1)})
    lam = out["lam_a_raw"]
    out["lam_a_raw"] = ca.vertcat(lam[:start], lam[start + N_FAN * n_cone(m) :])
    return out
