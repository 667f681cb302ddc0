"""The rows of a result (io/schema.py) from what a step computes: one definition shared by the
Python loop's history (run/history.py) and the QP fast path's chunks (run/chunks.py)."""

from __future__ import annotations

import numpy as np

from ..io.schema import SCHEMA
from ..model.symbolic import SymbolicModel

#: The per-step arrays, in the order of History.add_step's row.
STEP_ARRAYS = tuple(s.name for s in SCHEMA if s.per == "step")


def point_arrays(
    model: SymbolicModel,
    *,
    t: np.ndarray,
    q: np.ndarray,
    v: np.ndarray,
    lam: np.ndarray,
    lam_eq: np.ndarray,
    gap: np.ndarray,
    eq_residual: np.ndarray,
    energy: np.ndarray,
    directions: np.ndarray,
    points: np.ndarray,
    joint_force: np.ndarray,
    friction: np.ndarray | None = None,
    compliant_gap: np.ndarray | None = None,
    compliant_force: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The per-point arrays of k time points from model.report's outputs (k rows each, in
    result shapes: directions and points (k, M, 3), joint_force (k, J, 3)) and the forces of
    the steps that led to them (None: the run has none)."""
    k, M, C, K = t.shape[0], model.n_gap, model.n_compliant, model.n_nodes
    every = slice(None)
    contact = lam[:, :, None] * directions
    node_force = np.zeros((k, 0, 3))  # called after every chunk: no einsum without nodes
    if K:
        node_force = np.einsum("km,tmd->tkd", model.node_contact, contact)
        if friction is not None:
            node_force += np.einsum("km,tmd->tkd", model.node_contact, friction)
        if compliant_force is not None:
            node_force += np.einsum("km,tmd->tkd", model.node_compliant, compliant_force)
    nq, nv = 7 * model.n_bodies, 6 * model.n_bodies
    if friction is not None:  # friction and compliant forces belong to their joints' totals
        np.add.at(joint_force, (every, model.gap_joint), friction)  # type: ignore[arg-type]
    if compliant_force is not None:
        np.add.at(joint_force, (every, model.compliant_joint), compliant_force)  # type: ignore[arg-type]
    return {
        "t": t,
        "q": q[:, :nq],
        "v": v[:, :nv],
        "node_q": q[:, nq:].reshape(k, K, 2),
        "node_v": v[:, nv:].reshape(k, K, 2),
        "node_force": node_force[:, :, :2],
        "lam": lam,
        "lam_eq": lam_eq,
        "gap": gap,
        "eq_residual": eq_residual,
        "energy": energy,
        "contact_force": contact,
        "contact_point": points,
        "joint_force": joint_force,
        "friction_force": np.zeros((k, M, 3)) if friction is None else friction,
        "compliant_gap": np.zeros((k, C)) if compliant_gap is None else compliant_gap,
        "compliant_force": np.zeros((k, C, 3)) if compliant_force is None else compliant_force,
    }
