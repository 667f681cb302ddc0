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


def step_symbols(m: Any) -> dict:
    """t, q, v, h, use_curvature, applied."""
    sizes = {"t": 1, "q": m.n_q, "v": m.n_v, "h": 1, "use_curvature": 1, "applied": m.n_v}
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
