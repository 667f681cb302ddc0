"""Symbolic pieces of friction, restitution and compliant contact (contact.py's laws), traced
with the model's symbols by SymbolicModel.build.

Every contact j has a global direction d_j (the force on the joint's moving body: its child, or
its parent when the child is GROUND) and a point x_j (Joint.contact_frames). The slip velocity
is the velocity of the moving body's material point at x_j relative to the other body's,
projected on the tangent plane: D_j(q) v with D_j = (I - d_j d_j^T) W_j(q), a (3, 6N) matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .bodies import GROUND
from .contact import ForceLaw, HardContact
from .coordinates import Coordinates
from .flexible import Node
from .joint import ContactJoint
from .pose import BodyState, Poses
from .system import System


def _point_velocity(state: BodyState | None, x: ArrayLike) -> ca.SX:
    """Global velocity of the body's material point now at global position x (0 for ground)."""
    if state is None:
        return ca.SX.zeros(3, 1)
    omega = state.rotation @ state.angular_velocity
    return state.velocity + ca.cross(omega, x - state.position)


def _moving(joint):
    """(moving body, other body) of a joint's contacts, as in the model's force directions."""
    if joint.child is GROUND:
        return joint.parent, joint.child
    return joint.child, joint.parent


def per_gap(joint: Any, hook: str, items: Sequence[Any]) -> Sequence[Any]:
    """`items`, which a joint's `hook` gives per gap; InputError when their number is not its
    gap count (a shorter or longer list would shift every later gap's data)."""
    if len(items) != joint.n_gap:
        raise InputError(
            f"joint {joint.name!r}: {hook} must give one entry per gap ({joint.n_gap}), "
            f"got {len(items)}"
        )
    return items


def contact_kinematics(joint: Any, poses: Poses, states: dict, sign: float) -> list[tuple]:
    """Per gap of `joint`: (direction d on the moving body, point x, relative velocity at x)."""
    b1, b2 = _moving(joint)
    out = []
    for d, x in per_gap(joint, "contact_frames", joint.contact_frames(poses)):
        v_rel = _point_velocity(states.get(b1), x) - _point_velocity(states.get(b2), x)
        out.append((sign * d, x, v_rel))
    return out


def hard_coefficients(system: System) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per hard gap: (mu, mu_static, restitution)."""
    rows = []
    for j in system.hard_joints:
        c = j.contact
        assert isinstance(c, HardContact)
        rows += [(c.mu, c.mu_static, c.restitution)] * j.n_gap
    a = np.array(rows, dtype=float).reshape(-1, 3)
    return a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy()


def slip_planes(system: System, poses: Poses) -> tuple[ca.SX, np.ndarray]:
    """((3, M) per hard gap the normal of the plane its contact slips in (Joint.slip_planes;
    0 for spatial contacts), (M,) True where there is one)."""
    columns: list[ca.SX] = []
    planar: list[bool] = []
    for j in system.hard_joints:
        if not isinstance(j, ContactJoint) or not j.n_gap:
            continue
        planes = j.slip_planes(poses)
        if planes is not None:
            per_gap(j, "slip_planes", planes)
        columns += planes if planes is not None else [ca.SX.zeros(3, 1)] * j.n_gap
        planar += [planes is not None] * j.n_gap
    return (ca.horzcat(*columns) if columns else ca.SX(3, 0)), np.array(planar, dtype=bool)


def slip_jacobian(frames: list, v: ca.SX) -> ca.SX:
    """Stacked (3M, 6N) tangential slip Jacobian of the hard gaps (see the module docstring)."""
    if not frames:
        return ca.SX(0, v.shape[0])
    rows = []
    for d, _, v_rel in frames:
        rows.append(v_rel - d * ca.dot(d, v_rel))
    return ca.jacobian(ca.vertcat(*rows), v)


def _apply(Q: list, body: Any, f: Any, x: Any, states: dict, coords: Coordinates) -> None:
    """Add the force f at the global point x to the body's block of Q (rigid bodies first, then
    nodes; nothing for GROUND)."""
    if body is GROUND:
        return
    if isinstance(body, Node):  # a node: its in-plane force
        k = coords.n_rigid + coords.node_number(body)
        Q[k] = Q[k] + f[:2]
        return
    st = states[body]
    k = coords.rigid.index(body)
    Q[k] = Q[k] + ca.vertcat(f, st.rotation.T @ ca.cross(x - st.position, f))


def compliant_function(
    system: System, coords: Coordinates, *syms: Any, poses: Poses, states: dict
) -> tuple:
    """(Function (t, q, v, z) -> generalised force (nv), gap (C), rate (C), normal force (C),
    force vectors on the moving bodies (3, C), points (3, C); number of contacts C).
    z holds each contact's penetration speed when it began (the stepper keeps it). syms: q, v, t."""
    q, v, t = syms
    N = system.n_bodies
    Q = [ca.SX.zeros(6, 1) for _ in range(N)] + [ca.SX.zeros(2, 1) for _ in range(coords.n_nodes)]
    gaps, rates, normals, forces, points, z_syms = [], [], [], [], [], []
    for joint in system.compliant_joints:
        law = joint.contact
        assert isinstance(law, ForceLaw)
        b1, b2 = _moving(joint)
        sign = -1.0 if joint.child is GROUND else 1.0
        for phi, (d, x, v_rel) in zip(
            joint.gaps(poses), contact_kinematics(joint, poses, states, sign), strict=True
        ):
            z = ca.SX.sym("z")
            delta = ca.fmax(phi, 0)
            rate = -ca.dot(d, v_rel)  # d/dt Phi: the moving body approaches against d
            f_n = ca.if_else(phi > 0, ca.fmax(law.normal_force(delta, rate, z), 0), 0)
            F = f_n * d
            tangential = law.tangential_force(f_n, v_rel - d * ca.dot(d, v_rel))
            if tangential is not None:
                F = F + tangential
            for body, f in ((b1, F), (b2, -F)):
                _apply(Q, body, f, x, states, coords)
            gaps.append(phi)
            rates.append(rate)
            normals.append(f_n)
            forces.append(F)
            points.append(x)
            z_syms.append(z)
    zs = ca.vertcat(*z_syms) if z_syms else ca.SX(0, 1)
    C = len(gaps)

    def cat(parts, rows=None):
        if not parts:
            return ca.SX(rows or 0, 0) if rows else ca.SX(0, 1)
        return ca.horzcat(*parts) if rows else ca.vertcat(*parts)

    fn = ca.Function(
        "compliant",
        [t, q, v, zs],
        [
            ca.vertcat(*Q),
            cat(gaps),
            cat(rates),
            cat(normals),
            cat(forces, 3),
            cat(points, 3),
        ],
        ["t", "q", "v", "z"],
        ["Q", "gap", "rate", "normal", "force", "point"],
    )
    return fn, C
