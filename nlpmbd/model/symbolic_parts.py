"""Helpers of SymbolicModel.build (symbolic.py): the report, joint-force and curvature Functions."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .bodies import GROUND
from .coordinates import Coordinates
from .flexible import Node
from .kinematics import advance
from .system import System


def report_function(
    q: Any,
    v: Any,
    t: Any,
    Phi: Any,
    Phi_eq: Any,
    kinetic: Any,
    potential: Any,
    normals: Any,
    points: Any,
    joint_force: ca.Function,
) -> ca.Function:
    """One call per recorded time point (the stepping loop's hot path): gaps, |Phi_eq|,
    [kinetic, potential, total], contact directions and points (3, M), joint forces (3, J)."""
    lam = ca.SX.sym("lam", Phi.shape[0])
    lam_eq = ca.SX.sym("lam_eq", Phi_eq.shape[0])
    return ca.Function(
        "report",
        [q, v, t, lam, lam_eq],
        [
            Phi,
            ca.norm_2(Phi_eq),
            ca.vertcat(kinetic, potential, kinetic + potential),
            normals,
            points,
            joint_force(q, t, lam, lam_eq),
        ],
        ["q", "v", "t", "lam", "lam_eq"],
        ["gap", "eq_residual", "energy", "directions", "points", "joint_force"],
    )


def joint_force_function(
    system: System, coords: Coordinates, q: Any, t: Any, Phi: Any, Phi_eq: Any
) -> ca.Function:
    """Translational constraint force of each joint on its child body (global, N):
    -(dc/dr_child)^T mu summed over the joint's gaps and equalities (docs/FORMULATION.md section 3).
    A joint whose child is GROUND reports the force on its parent instead (the moving body); on a
    flexible body's node, the in-plane force (z: 0)."""
    lam = ca.SX.sym("lam", Phi.shape[0])
    lam_eq = ca.SX.sym("lam_eq", Phi_eq.shape[0])
    columns, i_gap, i_eq = [], 0, 0
    for joint in system.joints:
        gaps = slice(i_gap, i_gap + (0 if joint.uses_force_law else joint.n_gap))
        eqs = slice(i_eq, i_eq + joint.n_eq)
        i_gap, i_eq = gaps.stop, eqs.stop
        body = joint.parent if joint.child is GROUND else joint.child
        r, n = coords.position_symbols(body, q)
        force = ca.SX.zeros(n, 1)
        if gaps.stop > gaps.start:
            force -= ca.jacobian(Phi[gaps], r).T @ lam[gaps]
        if joint.n_eq:
            force -= ca.jacobian(Phi_eq[eqs], r).T @ lam_eq[eqs]
        columns.append(force if n == 3 else ca.vertcat(force, 0))
    out = ca.horzcat(*columns) if columns else ca.SX(3, 0)
    return ca.Function("joint_force", [q, t, lam, lam_eq], [out])


def curvature_function(
    Phi: ca.Function, q: Any, v: Any, n_rigid: int, t: Any = None
) -> ca.Function:
    """Second derivative of the gaps along the position update with velocity v:
    d^2/ds^2 Phi(U(q, s v)) at s = 0, where U moves r by s r_dot and p by s/2 G(p)^T w' and
    renormalises p (the update of docs/FORMULATION.md section 4). h^2/2 times it is the second-order
    term of the gap after a step of size h: the O(h^2 w^2 l) penetration of the linearised gap.
    With `t`, Phi is Phi(q, t) and time moves with s too: (q, t, v) -> d^2/ds^2 Phi(U, t + s)."""
    s = ca.SX.sym("s")
    moved = advance(q, s * v, n_rigid=n_rigid)[0]
    phi_s = Phi(moved) if t is None else Phi(moved, t + s)
    d2 = ca.substitute(ca.jacobian(ca.jacobian(phi_s, s), s), s, 0)
    inputs = [q, v] if t is None else [q, t, v]
    return ca.Function(Phi.name() + "_curv", inputs, [d2])


def node_map(system: System, coords: Coordinates, force_law: bool) -> np.ndarray:
    """(K, gaps) with +1 where a gap's force acts on node k as the moving body, -1 where node k
    is the other body (hard contacts, or with `force_law` the compliant ones)."""
    joints = system.compliant_joints if force_law else system.hard_joints
    columns = []
    for joint in joints:
        moving, other = (
            (joint.parent, joint.child) if joint.child is GROUND else (joint.child, joint.parent)
        )
        column = np.zeros(coords.n_nodes)
        for body, sign in ((moving, 1.0), (other, -1.0)):
            if isinstance(body, Node):
                column[coords.node_number(body)] = sign
        columns += [column] * joint.n_gap
    return np.array(columns).T.reshape(coords.n_nodes, len(columns))


def frame_columns(frames: list) -> tuple[Any, Any]:
    """(3, M) contact directions and (3, M) contact points of the hard gaps' frames."""
    return tuple(ca.horzcat(*[f[i] for f in frames]) if frames else ca.SX(3, 0) for i in (0, 1))
