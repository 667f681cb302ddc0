"""The graph of a chunk: n QP steps in one CasADi Function (run/chunks.py evaluates it).

Each step is the QP's whole step (step/qp.py: attempt, curvature guard, projection) with its h
chosen in the graph as the Python loop chooses it (run/stepping.py): the largest step that lands
on t_end below h_max, or below the error controller's next h (run/controller.py), whose
rejections are taken in the graph too. The state a chunk carries between steps and the record
of each step are named layouts.
"""

from __future__ import annotations

import enum

import casadi as ca
import numpy as np

from ..model.symbolic import SymbolicModel
from ..step.adoption import takes_h_max
from ..step.layout import Layout, named_function
from ..step.nlp import NLPStep
from ..step.qp import CAPS, QPStep, extrapolate
from ..step.qp_symbols import PREDICTOR, predictor_size
from .controller import LIMITS, ControlLaw
from .grid import end_tolerance, step_size
from .options import SimulationOptions


def record_layout(model: SymbolicModel) -> Layout:
    """A chunk's record of one step (one column of R): the state after the step, the time
    point's report (model.report), the step's diagnostics, h, the acceptance, the local error
    estimate (ControlLaw.error) and the prediction."""
    M, E, J, C = model.n_gap, model.n_eq, model.n_joints, model.n_compliant
    return Layout(
        [
            ("q", model.n_q),
            ("v", model.n_v),
            ("lam", M),
            ("lam_eq", E),
            ("gap", M),
            ("energy", 3),
            ("directions", 3 * M),
            ("points", 3 * M),
            ("joint_force", 3 * J),
            ("q_raw", model.n_q),
            ("friction", 3 * M),
            ("compliant_gap", C),
            ("compliant_force", 3 * C),
            *((name, 1) for name in SCALARS),
        ]
    )


#: The record's last columns, one number each, which Python reads after every chunk (which
#: attempts were made, taken, passed their checks; the steps' rows of the result): next to
#: each other, so that one pass over the record reads them all.
FLAGS = ("h", "accepted", "qp_ok", "projection_ok", "predicted")
SCALARS = (
    "eq_residual", "eom_residual", "comp_residual", "norm_residual", "gap_uncorrected",
    "iterations", "error", *FLAGS,
)  # fmt: skip


#: The blocks of the chunk state that a step's outcome replaces (an accepted step) or keeps.
CARRIED = ("t", "q", "v", "lam", "lam1", "lam2", *PREDICTOR, "z", "counts")
#: The meta counters the chunk state counts over its accepted steps (its `counts` block).
CHUNK_COUNTERS = ("qp_cold_solves", *(f"steps_{c}" for c in CAPS))


def state_layout(m: SymbolicModel) -> Layout:
    """X, the chunk state: what a chunk carries from one step to the next, and what the run
    loop hands to the next chunk (the one description of it). t, q, v; lam, lam1, lam2, the
    normal forces of the last three steps, newest first (they start the next step's friction
    fixed point, step/qp.py extrapolate, and after the chunk the next Python step's: chunks.py
    chunk_end); lag, accel, jerk (PREDICTOR), the last step's first-stage velocity and its
    rates (they predict the next step's, step/qp_symbols.py); z, the compliant contacts'
    memory (run/contact_memory.py; their force is held over each step); h_next, the
    controller's next h; rejected, 1 when the controller rejected an attempt of the step
    under way; column, the attempts made in this chunk so far; failed, 1 once an attempt
    failed a check (the columns after it compute nothing: Python takes that step, and the
    next chunk starts after it); counts, the CHUNK_COUNTERS of the steps taken since the
    chunk's start (QP solves made cold, caps reached: step/qp.py)."""
    M = m.n_gap
    blocks = [("t", 1), ("q", m.n_q), ("v", m.n_v), ("lam", M), ("lam1", M), ("lam2", M)]
    blocks += [(n, predictor_size(m)) for n in PREDICTOR]
    rest = [("h_next", 1), ("rejected", 1), ("column", 1), ("failed", 1)]
    counts = ("counts", len(CHUNK_COUNTERS))
    return Layout([*blocks, ("z", m.n_compliant), counts, *rest])


#: The chunk's run parameters, one column per step (the same in every column): they are
#: inputs rather than constants so that one compiled chunk serves every t_end and step range;
#: `columns`, the attempts this evaluation may make (the rest is padding: the FMU's chunks stop
#: at a communication point, apps/fmu_session.py).
PARAMETERS = Layout([("t_end", 1), ("limits", 3), ("penetration", 1), ("columns", 1)])


def chunk_parameters(options: SimulationOptions, law: ControlLaw) -> np.ndarray:
    """The PARAMETERS column of a run: t_end, the control law's limits [h_min, h_max,
    target], the penetration (fraction of c) above which the controller halves h."""
    return PARAMETERS.stack(
        {
            "t_end": options.time.t_end,
            "limits": law.limits(options),
            "penetration": options.tolerances.controller_penetration,
            "columns": options.path.chunk_steps,
        }
    )


class Sizing(enum.Enum):
    """How a chunk's steps get their h: FIXED, the largest step that lands on t_end below h_max;
    CONTROLLED, the same below the error controller's next h, which the step may reject;
    PREDICTED, h_max as FIXED, but a step leaves the chunk (for IPOPT, in Python) unless the
    NLP, whose h ranges over [h_min, h_max], would take h_max too (Predictor's test)."""

    FIXED = "fixed"
    CONTROLLED = "controlled"
    PREDICTED = "predicted"


def chunk_function(
    step: QPStep, n: int, law: ControlLaw, sizing: Sizing, nlp: NLPStep | None = None
) -> ca.Function:
    """n steps in one Function (mapaccum): (X0 (state_layout), P (PARAMETERS x n)) -> (X_n,
    R (record_layout x n)).

    Each column decides its own h as the Python loop would (run/stepping.py; Sizing): a
    controlled step may be rejected (too large an error estimate, or penetration above the
    limit): the state keeps its CARRIED blocks, h_next shrinks, and the column records
    accepted = 0; a PREDICTED step records predicted = 0 when `nlp` would choose another h.
    Column k of R is step k's record. Columns past t_end, or after an attempt that failed a
    check, are padding: the state passes through unchanged and the record is zero, h = 0 (a
    switch, Function.if_else, which computes no step: an MX if_else would compute one and
    drop it)."""
    X = ca.MX.sym("X", state_layout(step.kernel.model).size)
    P = ca.MX.sym("P", PARAMETERS.size)
    taken = _one_step(step, X, P, law, sizing, nlp)
    zero = ca.MX.zeros(taken.sparsity_out("record"))
    padding = named_function("qp_chunk_padding", {"X": X, "P": P}, {"state": X, "record": zero})
    switch = ca.Function.if_else("qp_chunk_switch", taken, padding)
    s, p = state_layout(step.kernel.model).split(X), PARAMETERS.split(P)
    t_end, h_min = p["t_end"], LIMITS.split(p["limits"])["h_min"]
    active = (s["t"] < t_end - end_tolerance(h_min)) * (s["column"] < p["columns"])
    active = active * (s["failed"] == 0)
    out = dict(zip(taken.name_out(), switch.call([active, X, P]), strict=True))
    one = named_function("qp_chunk_step", {"X": X, "P": P}, out)
    return one.mapaccum("qp_chunk", n)  # the state (first input and output) accumulates


def _one_step(
    step: QPStep, X: ca.MX, P: ca.MX, law: ControlLaw, sizing: Sizing, nlp: NLPStep | None
) -> ca.Function:
    """(X, P) -> (the state after one step, its record); see chunk_function."""
    k = step.kernel
    m = k.model
    layout = state_layout(m)
    s, p = layout.split(X), PARAMETERS.split(P)
    t, q, v, z = s["t"], s["q"], s["v"], s["z"]
    limits = p["limits"]
    lim = LIMITS.split(limits)
    h_min, h_max = lim["h_min"], lim["h_max"]
    controlled = sizing is Sizing.CONTROLLED
    h, landing = step_size(p["t_end"] - t, h_min, s["h_next"] if controlled else h_max)
    compliant = m.compliant_force.call({"t": t, "q": q, "v": v, "z": z})
    Qc, gap_c, force_c = compliant["Q"], compliant["gap"], compliant["force"]
    normal = ca.fmax(extrapolate(s["lam"], s["lam1"], s["lam2"]), 0)
    o = step.whole_step(
        t=t, q=q, v=v, h=h, normal=normal, applied=Qc, **{n: s[n] for n in PREDICTOR}
    )
    t_new = t + h
    q_new, v_new = o["q_new"], o["v_new"]
    err = law.error(h, q, v, o["q_raw"], v_new)
    if controlled:
        free = 1 - landing
        too_large = free * law.too_large(h, err, limits)
        penetrates = free * (h > h_min) * (k.penetration(o["q_raw"]) > p["penetration"])
        accepted = (1 - too_large) * (1 - penetrates)
        smaller = ca.if_else(too_large, law.next(h, err, 1, limits), ca.fmax(h_min, 0.5 * h))
        h_next = ca.if_else(accepted, law.next(h, err, s["rejected"], limits), smaller)
    else:
        accepted, h_next = ca.MX(1), s["h_next"]
    predicted = ca.MX(1)
    if sizing is Sizing.PREDICTED:  # a step the guard solved again is left to Python too
        assert nlp is not None
        kkt = takes_h_max(nlp.graph, nlp.h_max, t, q, v, k.use, h, o) * (1 - o["guarded"])
        predicted = ca.logic_or(landing, kkt)
    after = m.compliant_force.call({"t": t_new, "q": q_new, "v": v_new, "z": z})
    gap_new, rate_new = after["gap"], after["rate"]
    # a contact that begins now keeps its penetration speed; an open one forgets it
    z_new = ca.if_else(gap_new > 0, ca.if_else(gap_c > 0, z, ca.fmax(rate_new, 0)), 0)
    record = {"q": q_new, "v": v_new, **_reported(m, o, q_new, v_new, t_new)}
    record.update(q_raw=o["q_raw"], friction=ca.densify(ca.vec(o["friction"])))
    record.update(compliant_gap=gap_new, compliant_force=ca.vec(force_c))
    record.update(h=h, accepted=accepted, error=err, predicted=predicted)
    new = {"t": t_new, "q": q_new, "v": v_new, "lam": o["lam"], "lam1": s["lam"]}
    new.update(
        lam2=s["lam1"],
        **{n: o[f"{n}_next"] for n in PREDICTOR},
        z=z_new,
        counts=s["counts"] + ca.vertcat(o["n_cold"], o["capped"]),
    )
    state = {k: ca.if_else(accepted, new[k], s[k]) for k in CARRIED}
    state.update(h_next=h_next, rejected=1 - accepted, column=s["column"] + 1)
    state["failed"] = 1 - (o["qp_ok"] > 0.5) * (o["projection_ok"] > 0.5) * (predicted > 0.5)
    outputs = {"state": layout.symbolic_stack(state)}
    outputs["record"] = record_layout(m).symbolic_stack(record)
    return named_function("qp_chunk_taken", {"X": X, "P": P}, outputs)


def _reported(m: SymbolicModel, o: dict, q: ca.MX, v: ca.MX, t: ca.MX) -> dict:
    """The record's blocks from lam to projection_ok (record_layout)."""
    report = m.report.call({"q": q, "v": v, "t": t, "lam": o["lam"], "lam_eq": o["lam_eq"]})
    out = {"lam": o["lam"], "lam_eq": o["lam_eq"], "gap": report["gap"]}
    out["eq_residual"], out["energy"] = report["eq_residual"], report["energy"]
    out.update({k: ca.vec(report[k]) for k in ("directions", "points", "joint_force")})
    names = {"eom": "eom_residual", "comp": "comp_residual", "drift": "norm_residual"}
    names.update(gap_raw="gap_uncorrected", n_qp="iterations")
    names.update(qp_ok="qp_ok", projection_ok="projection_ok")
    out.update({record: o[k] for k, record in names.items()})
    return out
