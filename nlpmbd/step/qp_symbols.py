"""The symbols of the QP step's attempt Functions (step/qp_graph.py and the rounds around it):
the step's inputs, the friction fixed point's, and the attempt's outputs by name."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .qp_cone import Cone

#: Outputs of `attempt`, by name (friction: (3, M), the force on each contact's moving body).
ATTEMPT_OUT = (
    "q_new", "v_new", "lam", "lam_eq", "eom", "comp", "drift", "ok", "friction", "settled",
    "solves", "cold", "capped_cuts", "capped_releases", "capped_friction", "rounds",
)  # fmt: skip


#: The step inputs that predict its first-stage velocity (`step_symbols`), carried by the
#: chunks from step to step (run/chunk_graph.py) as the attempt's outputs `<name>_next`.
PREDICTOR = ("lag", "accel", "jerk")


def frictionless(m: Any) -> bool:
    """Whether the model has neither contact nor joint friction (its radial gaps take Newton's
    cut rounds, step/qp_cut_rounds.py cut_kind)."""
    return not (m.has_friction or m.joint_friction.n)


def predictor_size(m: Any) -> int:
    """The size of each PREDICTOR block: the velocities' where Newton's cut rounds use it (radial
    gaps, frictionless), else 0 (nothing carried)."""
    return m.n_v if np.any(m.cone > 0) and frictionless(m) else 0


def step_symbols(m: Any) -> dict:
    """t, q, v, h, use_curvature, applied; lag, accel and jerk, from which the cut rounds'
    first QP predicts the velocity of the step's first stage (step/qp_cut_rounds.py): the step
    before's first-stage velocity minus v (m/s, rad/s), its rate of change over the step
    before (m/s^2, rad/s^2) and that rate's (m/s^3, rad/s^3); 0 where none is known."""
    sizes = {"t": 1, "q": m.n_q, "v": m.n_v, "h": 1, "use_curvature": 1, "applied": m.n_v}
    sizes.update({n: predictor_size(m) for n in PREDICTOR})
    return {name: ca.MX.sym(name, n) for name, n in sizes.items()}


def friction_symbols(m: Any) -> dict:
    """normal (the friction bounds' normal forces), fdirs (friction polygons, step/qp_cone.py),
    joint_load (the loads of the joints' friction bounds, where they have any)."""
    rows = 3 * int(np.count_nonzero(~m.planar)) if m.has_friction else 0
    loads = m.joint_friction.n if m.joint_friction.coupled else 0
    return {
        "normal": ca.MX.sym("normal", m.n_gap),
        "fdirs": ca.MX.sym("fdirs", rows, Cone.columns),
        "joint_load": ca.MX.sym("joint_load", loads),
    }


def first_stage(args: dict, v_first: Any, v_end: Any) -> dict:
    """lag_next, accel_next and jerk_next, the next step's lag, accel and jerk (`step_symbols`):
    this step's first-stage velocity v_first against its end velocity v_end (the next step's
    start), its rate of change from the step before's and that rate's (args: this step's v,
    lag, accel, h); a rate whose predecessor is not known (0) is not differenced. Empty where
    the model carries no predictor (`predictor_size`)."""
    h, accel = args["h"], args["accel"]
    if accel.shape[0] == 0:
        return {f"{n}_next": ca.MX(0, 1) for n in PREDICTOR}
    rate = (v_first - (args["v"] + args["lag"])) / h
    known = ca.mmax(ca.vertcat(0, ca.fabs(accel))) > 0
    return {
        "lag_next": v_first - v_end,
        "accel_next": rate,
        "jerk_next": known * (rate - accel) / h,
    }


def predicted_velocity(args: dict) -> Any:
    """The step's first-stage velocity extrapolated quadratically from the steps before's
    (`step_symbols`: v + lag is the step before's, accel and jerk its rates); v where the
    model carries no predictor."""
    h, v = args["h"], args["v"]
    if args["lag"].shape[0] == 0:
        return v
    return v + args["lag"] + h * args["accel"] + h**2 * args["jerk"]
