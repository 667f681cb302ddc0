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
from ..step.layout import Layout
from ..step.nlp import NLPStep
from ..step.predictor import takes_h_max
from ..step.qp import QPStep, extrapolate
from .controller import ControlLaw
from .grid import end_tolerance, step_size
from .options import SimulationOptions


def chunk_layout(model: SymbolicModel) -> dict[str, int]:
    """Names and per-step row counts of the chunk function's record, in order."""
    M, E, J, C = model.n_gap, model.n_eq, model.n_joints, model.n_compliant
    return {
        "q": model.n_q,
        "v": model.n_v,
        "lam": M,
        "lam_eq": E,
        "gap": M,
        "eq_residual": 1,
        "energy": 3,
        "directions": 3 * M,
        "points": 3 * M,
        "joint_force": 3 * J,
        "eom_residual": 1,
        "comp_residual": 1,
        "norm_residual": 1,
        "gap_uncorrected": 1,
        "iterations": 1,
        "qp_ok": 1,
        "projection_ok": 1,
        "q_raw": model.n_q,
        "friction": 3 * M,
        "compliant_gap": C,
        "compliant_force": 3 * C,
        "h": 1,
        "accepted": 1,
        "error": 1,
        "predicted": 1,
    }


def state_layout(m: SymbolicModel) -> Layout:
    """X, what a chunk carries from one step to the next: t, q, v; the normal forces of the
    last three steps (lam, lam1, lam2: they start the next step's friction fixed point, see
    step/qp.py, extrapolate); the compliant contacts' memory z (run/contact_memory.py, their
    force is held over each step); the controller's next h and whether it rejected an attempt
    of the step under way; the attempts made in this chunk."""
    M = m.n_gap
    blocks = [("t", 1), ("q", m.n_q), ("v", m.n_v), ("lam", M), ("lam1", M), ("lam2", M)]
    return Layout([*blocks, ("z", m.n_compliant), ("h_next", 1), ("rejected", 1), ("column", 1)])


#: The chunk's run parameters, one column per step (the same in every column): they are
#: inputs rather than constants so that one compiled chunk serves every t_end and step range;
#: `columns`, the attempts this evaluation may make (the rest is padding: after a chunk that
#: stopped early the next one is shorter, so that little is computed and thrown away).
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
    """n steps in one Function (mapaccum): (X0, P (PARAMETERS x n)) -> (X_n, R (rows x n)).

    Each column decides its own h as the Python loop would (run/stepping.py; Sizing): a
    controlled step may be rejected (too large an error estimate, or penetration above the
    limit): the state keeps (t, q, v), h_next shrinks, and the column records accepted = 0;
    a PREDICTED step records predicted = 0 when `nlp` would choose another h. Column k of R
    is step k's record in chunk_layout order, stacked: the state after the step, the
    time-point report (model.report), the step diagnostics, h, the acceptance, the local error
    estimate (ControlLaw.error) and the prediction. Columns past t_end are padding: the state
    passes through unchanged and the record is zero, h = 0 (a switch, Function.if_else, which
    computes no step: an MX if_else would compute one and drop it)."""
    X = ca.MX.sym("X", state_layout(step.kernel.model).size)
    P = ca.MX.sym("P", PARAMETERS.size)
    taken = _one_step(step, X, P, law, sizing, nlp)
    zero = ca.MX.zeros(taken.sparsity_out(1))
    padding = ca.Function("qp_chunk_padding", [X, P], [X, zero])
    switch = ca.Function.if_else("qp_chunk_switch", taken, padding)
    t_end, h_min = P[PARAMETERS["t_end"]], P[PARAMETERS["limits"]][0]
    column = state_layout(step.kernel.model)["column"].start
    active = (X[0] < t_end - end_tolerance(h_min)) * (X[column] < P[PARAMETERS["columns"]])
    one = ca.Function("qp_chunk_step", [X, P], switch(active, X, P))
    return one.mapaccum("qp_chunk", n)


def _one_step(
    step: QPStep, X: ca.MX, P: ca.MX, law: ControlLaw, sizing: Sizing, nlp: NLPStep | None
) -> ca.Function:
    """(X, P) -> (the state after one step, its record); see chunk_function."""
    k = step.kernel
    m = k.model
    s, p = state_layout(m).split(X), PARAMETERS.split(P)
    t, q, v, z = s["t"], s["q"], s["v"], s["z"]
    limits = p["limits"]
    h_min, h_max = limits[0], limits[1]
    controlled = sizing is Sizing.CONTROLLED
    h, landing = step_size(p["t_end"] - t, h_min, s["h_next"] if controlled else h_max)
    Qc, gap_c, _, _, force_c, _ = m.compliant_force(t, q, v, z)
    normal = ca.fmax(extrapolate(s["lam"], s["lam1"], s["lam2"]), 0)
    o = step.whole_step(t=t, q=q, v=v, h=h, normal=normal, applied=Qc)
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
        kkt = takes_h_max(nlp, t, q, v, k.use, h, o) * (1 - o["guarded"])
        predicted = ca.logic_or(landing, kkt)
    _, gap_new, rate_new, *_ = m.compliant_force(t_new, q_new, v_new, z)
    # a contact that begins now keeps its penetration speed; an open one forgets it
    z_new = ca.if_else(gap_new > 0, ca.if_else(gap_c > 0, z, ca.fmax(rate_new, 0)), 0)
    record = ca.vertcat(
        q_new,
        v_new,
        *_reported(m, o, q_new, v_new, t_new),
        o["q_raw"],
        ca.densify(ca.vec(o["friction"])),
        gap_new,
        ca.vec(force_c),
        h,
        accepted,
        err,
        predicted,
    )
    after = ca.vertcat(t_new, q_new, v_new, o["lam"], s["lam"], s["lam1"], z_new)
    before = X[: after.shape[0]]
    state = ca.vertcat(ca.if_else(accepted, after, before), h_next, 1 - accepted, s["column"] + 1)
    return ca.Function("qp_chunk_taken", [X, P], [state, record])


def _reported(m: SymbolicModel, o: dict, q: ca.MX, v: ca.MX, t: ca.MX) -> list:
    """The record's rows from lam to projection_ok (chunk_layout)."""
    gap, eq, energy, directions, points, forces = m.report(q, v, t, o["lam"], o["lam_eq"])
    diagnostics = ("eom", "comp", "drift", "gap_raw", "n_qp", "qp_ok", "projection_ok")
    return [
        o["lam"],
        o["lam_eq"],
        gap,
        eq,
        energy,
        ca.vec(directions),
        ca.vec(points),
        ca.vec(forces),
        *(o[k] for k in diagnostics),
    ]
