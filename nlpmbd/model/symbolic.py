"""Symbolic ingredients of the equations of motion (docs/FORMULATION.md sections 2-3).

`SymbolicModel.build(system)` traces the system once with CasADi SX symbols: mass matrix,
gyroscopic and applied terms, gaps, equalities and their velocity-space Jacobians (all by AD),
once per simulation (run/run.py); the step layer builds its graphs from it (step/kernel.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import casadi as ca
import numpy as np

from ..errors import InputError
from . import symbolic_parts as parts
from .bodies import GROUND, RigidBody
from .contact_terms import (
    compliant_function,
    contact_kinematics,
    hard_coefficients,
    slip_jacobian,
    slip_planes,
)
from .flexible_terms import NodeTerms
from .forces import Force, Torque
from .joint_friction import JointFrictionTerms, joint_friction_terms
from .mass import mass_inverse, mass_matrix
from .pose import BodyState, Pose, Poses
from .rotation import g_matrix, rotation_matrix
from .symbolic_parts import curvature_function
from .system import System


@dataclass(frozen=True)
class SymbolicModel:
    """CasADi Functions of (t, q, v) for one system; N rigid bodies, K nodes of flexible bodies
    (model/coordinates.py: q has 7N + 2K entries, v 6N + 2K), M gaps, E equalities."""

    n_bodies: int
    n_nodes: int
    n_gap: int
    n_eq: int
    n_joints: int
    M: np.ndarray  # (nv, nv) constant mass matrix
    M_inv: ca.DM  # its inverse, sparse, from the bodies' 3x3 blocks and the flexible blocks
    stiffness: ca.DM  # (nv, nv) sparse K of the flexible bodies (0 on the rigid bodies)
    damping: ca.DM  # (nv, nv) sparse Rayleigh C of the flexible bodies
    deformation: ca.Function  # (q) -> (nv) the nodes' displacements x - X (0 on rigid bodies)
    gravity: np.ndarray
    masses: np.ndarray
    # Functions: names are the docs/FORMULATION.md symbols
    S: ca.Function  # (q, v) -> gyroscopic terms (6N)
    Q: ca.Function  # (t, q, v) -> applied generalised forces (6N)
    Phi: ca.Function  # (q) -> gaps (M)
    Phi_v: ca.Function  # (q) -> (M, 6N)
    Phi_curv: ca.Function  # (q, v) -> d^2/ds^2 Phi(U(q, s v)) at s = 0 (M)
    cone: np.ndarray  # (M,) clearance c of each gap that is |d| - c (Joint.gap_offsets), else 0
    scales: np.ndarray  # (M,) clearance a gap's penetration is measured against (gap_scales)
    offset: ca.Function  # (q) -> (3M) the offsets d of those gaps (0 for the others)
    offset_v: ca.Function  # (q) -> (3M, 6N)
    offset_curv: ca.Function  # (q, v) -> (3M) d^2/ds^2 offset(U(q, s v)) at s = 0
    Phi_eq: ca.Function  # (q, t) -> equalities (E)
    Phi_eq_v: ca.Function  # (q, t) -> (E, 6N)
    Phi_eq_t: ca.Function  # (q, t) -> (E)
    Phi_eq_curv: ca.Function  # (q, t, v) -> d^2/ds^2 Phi_eq(U(q, s v), t + s) at s = 0 (E)
    contact: ca.Function  # (q) -> directions (3, M), points (3, M) of the hard contacts
    energy: ca.Function  # (q, v) -> [kinetic, potential]
    joint_force: ca.Function  # (q, t, lam, lam_eq) -> (3, J) constraint force on each child
    mu: np.ndarray  # (M,) kinetic friction coefficient per gap
    mu_static: np.ndarray  # (M,) static friction coefficient per gap
    restitution: np.ndarray  # (M,) Newton restitution per gap
    gap_laws: tuple  # (M,) the contact law of each gap (its rows: step/rows/)
    slip: ca.Function  # (q) -> (3M, 6N) tangential slip Jacobian D (contact_model.py)
    slip_plane: ca.Function  # (q) -> (3, M) normal of each contact's slip plane (0: spatial)
    planar: np.ndarray  # (M,) True for contacts that slip in a plane (one friction tangent)
    n_compliant: int  # compliant contacts C
    gap_joint: np.ndarray  # (M,) index in system.joints of each gap's joint
    compliant_joint: np.ndarray  # (C,) the same for the compliant contacts
    compliant_force: ca.Function  # (t, q, v, z) -> their forces (contact_model.compliant_function)
    report: ca.Function  # (q, v, t, lam, lam_eq) -> everything recorded per time point
    node_contact: np.ndarray  # (K, M) +1 where gap j's force acts on node k (its moving body)
    node_compliant: np.ndarray  # (K, C) the same for the compliant contacts
    joint_friction: JointFrictionTerms  # friction rows inside joints (model/joint_friction.py)

    @property
    def sizes(self) -> dict[str, int]:
        """The sizes the result schema counts in (io/schema.py): N bodies, M hard contacts, E
        equalities, J joints, C compliant contacts."""
        n = (self.n_bodies, self.n_gap, self.n_eq, self.n_joints, self.n_compliant, self.n_nodes)
        return dict(zip("NMEJCK", n, strict=True))

    @property
    def M_sparse(self) -> ca.DM:
        """M without its structural zeros: a product costs 36 flops per body, not (6N)^2."""
        return ca.sparsify(ca.DM(self.M))

    @property
    def n_q(self) -> int:
        return 7 * self.n_bodies + 2 * self.n_nodes

    @property
    def n_v(self) -> int:
        return 6 * self.n_bodies + 2 * self.n_nodes

    @property
    def flexible(self) -> bool:
        return self.n_nodes > 0

    def internal(self, q: Any, v: Any, h: Any) -> Any:
        """The flexible bodies' internal forces at the step's end, implicit in v (nv):
        K (x(qm) - X + h v) + C v (docs/FORMULATION.md section 17)."""
        return self.stiffness @ (self.deformation(q) + h * v) + self.damping @ v

    @property
    def has_friction(self) -> bool:
        return bool(np.any(self.mu_static > 0))

    @property
    def soft(self) -> np.ndarray:
        """(M,) True for the gaps whose law penetrates by design (HardContact.penetrates: a
        compliant row, implicit in the step)."""
        return np.array([law.penetrates for law in self.gap_laws], dtype=bool)

    @property
    def has_soft(self) -> bool:
        return bool(np.any(self.soft))

    @property
    def has_restitution(self) -> bool:
        return bool(np.any(self.restitution > 0))

    @staticmethod
    def build(system: System) -> SymbolicModel:
        N, coords = system.n_bodies, system.coordinates
        if N == 0 and not coords.n_nodes:
            raise InputError("system has no bodies; add at least one RigidBody")
        q, v, t = ca.SX.sym("q", coords.nq), ca.SX.sym("v", coords.nv), ca.SX.sym("t")
        b = _BodyTerms(system, q, v)
        b.add_loads(system, t)
        nodes = NodeTerms(system, coords, q, v, t, b.poses, b.states) if coords.n_nodes else None
        T = ca.diagcat(*b.T_blocks) if nodes is None else ca.diagcat(*b.T_blocks, nodes.T)
        pose_map = Poses(b.poses)
        Phi, Phi_eq, frames, offsets = _constraints(system, pose_map, b.states, t)
        d = ca.vertcat(ca.SX(0, 1), *[ca.SX.zeros(3) if o is None else o for o, _ in offsets])
        planes, planar = slip_planes(system, pose_map)
        compliant, n_compliant = compliant_function(
            system, coords, q, v, t, poses=pose_map, states=b.states
        )
        normals, points = parts.frame_columns(frames)
        joint_force = parts.joint_force_function(system, coords, q, t, Phi, Phi_eq)
        Q, S, kinetic, potential, M, M_inv, *flexible = _assembled(system, b, nodes, coords)
        return SymbolicModel(
            n_bodies=N,
            **_flexible_fields(system, coords, q, *flexible),
            n_gap=Phi.shape[0],
            n_eq=Phi_eq.shape[0],
            n_joints=len(system.joints),
            M=M,
            M_inv=M_inv,
            gravity=np.asarray(system.gravity, float),
            masses=np.array([b.mass for b in system.bodies] + [f.mass for f in system.flexible]),
            S=ca.Function("S", [q, v], [S]),
            Q=ca.Function("Q_A", [t, q, v], [Q]),
            Phi=ca.Function("Phi", [q], [Phi]),
            Phi_v=ca.Function("Phi_v", [q], [ca.jacobian(Phi, q) @ T]),
            Phi_curv=curvature_function(ca.Function("Phi", [q], [Phi]), q, v, N),
            cone=np.array([0.0 if o is None else c for o, c in offsets]),
            scales=np.array(system.gap_scales, dtype=float),
            offset=ca.Function("offset", [q], [d]),
            offset_v=ca.Function("offset_v", [q], [ca.jacobian(d, q) @ T]),
            offset_curv=curvature_function(ca.Function("offset", [q], [d]), q, v, N),
            Phi_eq=ca.Function("Phi_eq", [q, t], [Phi_eq]),
            Phi_eq_v=ca.Function("Phi_eq_v", [q, t], [ca.jacobian(Phi_eq, q) @ T]),
            Phi_eq_t=ca.Function("Phi_eq_t", [q, t], [ca.jacobian(Phi_eq, t)]),
            Phi_eq_curv=curvature_function(ca.Function("Phi_eq", [q, t], [Phi_eq]), q, v, N, t),
            contact=ca.Function("contact", [q], [normals, points]),
            energy=ca.Function("energy", [q, v], [ca.vertcat(kinetic, potential)]),
            joint_force=joint_force,
            **_coefficients(system),
            slip=ca.Function("slip", [q], [slip_jacobian(frames, v)]),
            slip_plane=ca.Function("slip_plane", [q], [planes]),
            planar=planar,
            n_compliant=n_compliant,
            gap_joint=_gap_owner(system, force_law=False),
            compliant_joint=_gap_owner(system, force_law=True),
            compliant_force=compliant,
            joint_friction=joint_friction_terms(system, (q, v, t), b.states, pose_map, joint_force),
            report=parts.report_function(
                q, v, t, Phi, Phi_eq, kinetic, potential, normals, points, joint_force
            ),
        )


class _BodyTerms:
    """Per body, in body order: pose and state (what joints and loads see), the blocks of T(q)
    (q_dot = T v: r_dot = r_dot, p_dot = 1/2 G(p)^T w'), gyroscopic terms, gravity, and the
    kinetic and potential energy."""

    def __init__(self, system: System, q: ca.SX, v: ca.SX) -> None:
        self.poses: dict = {}
        self.states: dict = {}
        self.T_blocks: list = []
        self.S_parts: list = []
        self.Q_parts: list = []
        self.kinetic: ca.SX | float = 0
        self.potential: ca.SX | float = 0
        g = ca.DM(system.gravity)
        for k, body in enumerate(system.bodies):
            r, p = q[7 * k : 7 * k + 3], q[7 * k + 3 : 7 * k + 7]
            rd, w = v[6 * k : 6 * k + 3], v[6 * k + 3 : 6 * k + 6]
            pose = Pose(r, rotation_matrix(p))
            self.poses[body] = pose
            self.states[body] = BodyState(pose, rd, w)
            J = ca.DM(body.inertia)
            self.S_parts += [ca.SX.zeros(3, 1), ca.cross(w, J @ w)]
            self.Q_parts.append([body.mass * g, ca.SX.zeros(3, 1)])
            self.T_blocks.append(ca.diagcat(ca.SX.eye(3), 0.5 * g_matrix(p).T))
            self.kinetic += 0.5 * body.mass * ca.dot(rd, rd) + 0.5 * ca.dot(w, J @ w)
            self.potential += -body.mass * ca.dot(g, r)

    def add_loads(self, system: System, t: ca.SX) -> None:
        """The applied forces and torques, and spring-dampers between bodies."""
        for load in system.loads:
            parts: list[tuple[Any, Any, Any]]
            if isinstance(load, (Force, Torque)):
                parts = [(load.body, *load.generalized(t, self.states[load.body]))]
            else:  # a spring-damper between two bodies
                parts = load.generalized(t, self.states)
            for body, F, tau in parts:
                assert isinstance(body, RigidBody)  # loads act on bodies; ground takes none
                k = system.body_index(body)
                self.Q_parts[k][0] = self.Q_parts[k][0] + F
                self.Q_parts[k][1] = self.Q_parts[k][1] + tau


def _coefficients(system: System) -> dict[str, Any]:
    """mu, mu_static, restitution and the law per hard gap (contact_terms)."""
    names = ("mu", "mu_static", "restitution")
    laws = tuple(j.contact for j in system.hard_joints for _ in range(j.n_gap))
    return {**dict(zip(names, hard_coefficients(system), strict=True)), "gap_laws": laws}


def _flexible_fields(
    system: System, coords: Any, q: Any, K_s: Any, C: Any, u: Any
) -> dict[str, Any]:
    """The SymbolicModel fields of the flexible bodies."""
    return {
        "n_nodes": coords.n_nodes,
        "stiffness": K_s,
        "damping": C,
        "deformation": ca.Function("deformation", [q], [u]),
        "node_contact": parts.node_map(system, coords, False),
        "node_compliant": parts.node_map(system, coords, True),
    }


def _assembled(system: System, b: _BodyTerms, nodes: NodeTerms | None, coords: Any) -> tuple:
    """(Q, S, kinetic, potential, M, M^-1, K_s, C, deformation) of rigid bodies and nodes."""
    Q = ca.vertcat(*[ca.vertcat(F, tau) for F, tau in b.Q_parts])
    S = ca.vertcat(*b.S_parts)
    M, M_inv = mass_matrix(system.bodies), mass_inverse(system.bodies)
    if nodes is None:
        zero = ca.DM(coords.nv, coords.nv)
        return Q, S, b.kinetic, b.potential, M, M_inv, zero, zero, ca.SX.zeros(coords.nv, 1)
    parts = nodes.extend(Q, S, b.kinetic, b.potential, M, M_inv)
    return (*parts, nodes.stiffness, nodes.damping, nodes.deformation)


def _constraints(system: System, poses: Poses, states: dict, t: ca.SX) -> tuple:
    """(gaps of the hard contacts, equalities, contact frames, (gap offset or None, clearance)
    per gap) of every joint, in joint order."""
    gap_list, eq_list, frames = [], [], []
    offsets: list[tuple[ca.SX | None, float]] = []
    for joint in system.joints:
        gj, ej, dj = joint.gaps(poses), joint.equalities(poses, t), joint.gap_offsets(poses)
        if (len(gj), len(ej), len(dj)) != (joint.n_gap, joint.n_eq, joint.n_gap):
            n = f"{joint.n_gap} gaps and gap offsets, {joint.n_eq} equalities"
            raise InputError(f"joint {joint.name!r} returned a wrong number of constraints ({n})")
        eq_list += ej
        if joint.n_gap and not joint.uses_force_law:
            gap_list += gj
            offsets += zip(dj, system.joint_clearances(joint), strict=True)
            # reports give the force on the moving body: the child, or else the parent (opposite)
            sign = -1.0 if joint.child is GROUND else 1.0
            frames += contact_kinematics(joint, poses, states, sign)
    Phi = ca.vertcat(*gap_list) if gap_list else ca.SX(0, 1)
    Phi_eq = ca.vertcat(*eq_list) if eq_list else ca.SX(0, 1)
    return Phi, Phi_eq, frames, offsets


def _gap_owner(system: System, force_law: bool) -> np.ndarray:
    """Per gap (hard contacts, or compliant ones), the index of its joint in system.joints."""
    owners = [i for i, j in enumerate(system.joints) if j.uses_force_law == force_law]
    return np.array([i for i in owners for _ in system.joints[i].gap_labels], dtype=int)
