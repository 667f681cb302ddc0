"""The QP step's rounds for the vector-linearised radial gaps (step/cuts.py): the first QP with
the fan's rows, then up to N_CUTS more, each where the one before left an offset outside its
disc, in a QP with one cut row per gap (the gap's linearisation at the round before's point,
and its curvature) instead of the fan's rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import casadi as ca

from .cuts import N_CUTS, N_FAN, N_SLOTS, ROWS, Cuts, n_cone
from .kernel import StepKernel
from .layout import adding, named_function, switch, symbols_like
from .qp_symbols import friction_symbols, step_symbols


def with_cuts(kernel: StepKernel, build: Callable[..., ca.Function], cut_rows: bool) -> ca.Function:
    """(t, q, v, h, use, applied, normal, fdirs, released, warm) -> the QP's outputs after its
    rounds; `build(fan=...)`: one QP (step/qp_graph.py), with `cuts` an input under the vector
    linearisation, with or without the fan's rows; `build()` itself where it has no cut rows
    (the velocity stage's, step/qp_graph.py)."""
    if not cut_rows:
        return build()
    m = kernel.model
    args = {**step_symbols(m), **friction_symbols(m), "released": ca.MX.sym("released", m.n_gap)}
    dirs = ca.DM.zeros(ROWS * n_cone(m), N_SLOTS)
    one = build(fan=False)
    out = _first(kernel, build(fan=True), args)
    q, v, h, use = args["q"], args["v"], args["h"], args["use_curvature"]
    drift = kernel.offset_drift(q, v, h, use)

    def moved(v_new: Any) -> Any:
        q_new, _ = kernel.update(q, v_new, h)
        return q_new

    cuts = Cuts(m, q, h, args["released"], drift, moved, use)
    for k in range(N_CUTS):
        dirs, need = cuts.next(out["v_new"], dirs, out["lam"])
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
    out = fanned.call({**args, "cuts": ca.DM.zeros(ROWS * n_cone(m), N_SLOTS)})
    lam = out["lam_a_raw"]
    out["lam_a_raw"] = ca.vertcat(lam[:start], lam[start + N_FAN * n_cone(m) :])
    return out
