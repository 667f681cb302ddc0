"""The QP step's rounds for the vector-linearised radial gaps: the first QP with the scheme's
first cut state (Cuts.first), then up to N_CUTS more, each where the one before left an offset
outside its disc (or, Newton's, a loaded gap's normal turned). Two schemes (`cut_kind`):
Newton's (step/cuts_newton.py), one cut row a gap, the gap's linearisation at the round before's
point with the disc's curvature, the first QP a round from the step's predicted velocity beside
the fan's rows; Kelley's (step/cuts.py), the first QP with a fan of planes round each seat, a
cut added each round beside the fan's rows and the cuts before, for models with contact or
joint friction: with Newton's rounds inside Coulomb's fixed point four_bar_clearance's friction
did not converge (2676 of 9034 steps went to the NLP fallback, 8x main's QPs a step, then a step
failed: issue 30). A QP's cut state (Cuts.state) is among its inputs by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import casadi as ca

from .cuts import N_CUTS, N_FAN, Cuts, n_cone
from .cuts_newton import NewtonCuts
from .kernel import StepKernel
from .layout import adding, named_function, switch, symbols_like
from .qp_symbols import friction_symbols, frictionless, predicted_velocity, step_symbols


def cut_kind(model: Any) -> type[Cuts]:
    """The cut scheme of a model's QPs (module docstring)."""
    return NewtonCuts if frictionless(model) else Cuts


def cut_state(model: Any) -> dict[str, ca.MX]:
    """The symbols of a QP's cut state inputs (its scheme's, Cuts.state)."""
    return cut_kind(model).state(model)


def with_cuts(kernel: StepKernel, build: Callable[..., ca.Function], cut_rows: bool) -> ca.Function:
    """(t, q, v, h, use, applied, normal, fdirs, released, warm) -> the QP's outputs after its
    rounds; `build(fan=...)`: one QP (step/qp_graph.py), with the cut state among its inputs
    under the vector linearisation, with or without the fan's rows (Kelley's QPs have them
    always, Newton's the first); `build()` itself where it has no cut rows (the velocity
    stage's)."""
    if not cut_rows:
        return build()
    m = kernel.model
    newton = cut_kind(m) is NewtonCuts
    one = build(fan=not newton)
    args = {**step_symbols(m), **friction_symbols(m), "released": ca.MX.sym("released", m.n_gap)}
    q, v, h, use = args["q"], args["v"], args["h"], args["use_curvature"]
    drift = kernel.offset_drift(q, v, h, use)

    def moved(v_new: Any) -> Any:
        q_new, _ = kernel.update(q, v_new, h)
        return q_new

    cuts = cut_kind(m)(m, q, h, args["released"], drift, moved, use)
    # the velocity of the step's first stage extrapolated from the steps before's (8-link
    # chain: with v itself the first QP left 1e-4 c outside, with the extrapolation 1e-7 c, at
    # the step's own solution 1e-10 c); a velocity stage keeps closed contacts by their normals
    predicted = predicted_velocity(args)
    state = {n: x * (use >= 0) for n, x in cuts.first(predicted, args["normal"]).items()}
    out = (
        _first(kernel, build(fan=True), {**args, **state})
        if newton
        else one.call({**args, **state})
    )
    for k in range(N_CUTS):
        state, need = cuts.advance(out["v_new"], state, k, out["lam"])
        need = need * (use >= 0)
        syms, ins = symbols_like(out), {n: ca.MX.sym(n, x.shape) for n, x in state.items()}
        # DAQP starts from the round before's working set
        redo = one.call({**args, **ins, "warm": syms["lam_a_raw"]})
        again = switch(f"cut_{k}", {**args, **ins}, syms, adding(redo, syms))
        out = again(need, {**args, **state}, out)
    out["capped_cuts"] = out["capped_cuts"] + need  # `need` of the last cut round
    return named_function("qp_cut", args, out)


def _first(kernel: StepKernel, fanned: ca.Function, args: dict) -> dict:
    """The outputs of Newton's first QP, `fanned` (with the fan's rows), its multipliers
    without the fan's rows (the rounds' warm start in the QP without them)."""
    m = kernel.model
    start = m.n_eq + m.n_gap * (2 if m.has_restitution else 1)  # the fan's rows follow
    out = fanned.call(args)
    lam = out["lam_a_raw"]
    out["lam_a_raw"] = ca.vertcat(lam[:start], lam[start + N_FAN * n_cone(m) :])
    return out
