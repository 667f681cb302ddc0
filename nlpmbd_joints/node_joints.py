"""Joints of a flexible body's nodes (nlpmbd/model/flexible.py): a node against a guide's face,
and a node pinned to a rigid body."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import GROUND, Body, RigidBody, initial_local_point, initial_local_vector
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.flexible import Node
from nlpmbd.model.joint import ContactJoint, IdealJoint
from nlpmbd.validation import location, short_repr, unit_vector


def _node(name: str, node: object) -> Node:
    if not isinstance(node, Node):
        raise InputError(f"{name}.node must be a Node of a FlexibleBody, got {short_repr(node)}")
    return node


class NodeContact(ContactJoint):
    """A node of a flexible body that may not pass through a plane face of a guide.

    Geometry: the face passes through `face_point` (global at t = 0, m) with unit `normal`
    (global at t = 0) pointing to the side the node may occupy; both are fixed in `guide` (GROUND
    or a RigidBody). One gap, Phi = -(x_node - P_face) . n (m): negative while the node is clear
    of the face, positive = penetration. The contact force lambda >= 0 acts on the node along n,
    at the node; friction (the contact law's) acts in the flexible body's plane, whose normal is
    the global z axis: one tangent, exact (slip_planes). `clearance` (m) is the play of the
    guide the gap belongs to, for reporting penetration as a fraction of it; by default the
    node's distance from the face at t = 0.
    """

    def __init__(
        self,
        name: str,
        guide: Body,
        node: Node,
        face_point: ArrayLike,
        normal: ArrayLike,
        contact: ContactLaw | None = None,
        clearance: float | None = None,
    ) -> None:
        node = _node(name, node)
        super().__init__(name, guide, node, contact)
        point = location(f"{name}.face_point", face_point)
        n = unit_vector(f"{name}.normal", normal)
        if abs(n[2]) > 1e-12:
            raise InputError(
                f"{name}.normal must lie in the body's plane (z = 0), got {n.tolist()}"
            )
        self.s_face = initial_local_point(guide, point)
        self.n_face = initial_local_vector(guide, n)
        start = float(-np.dot(node.position - point, n))  # > 0: the node starts clear
        self.clearance = start if clearance is None else float(clearance)

    @property
    def gap_labels(self):
        return ("gap",)

    def _face(self, poses):
        P = poses[self.parent]
        return P.point(self.s_face), P.vector(self.n_face)

    def gaps(self, poses):
        p, n = self._face(poses)
        return [-ca.dot(poses[self.child].r - p, n)]

    def contact_frames(self, poses):
        _, n = self._face(poses)
        return [(n, poses[self.child].r)]

    def slip_planes(self, poses):
        return [ca.DM([0.0, 0.0, 1.0])]

    @property
    def gap_scales(self):
        return (self.clearance,) if self.clearance > 0 else ()


def node_contacts(
    name: str,
    guide: Body,
    nodes: list[Node],
    face_point: ArrayLike,
    normal: ArrayLike,
    contact: ContactLaw | None = None,
    clearance: float | None = None,
) -> list[NodeContact]:
    """One NodeContact per node against the same face, named `name` + the node's number."""
    return [
        NodeContact(f"{name}{n.index}", guide, n, face_point, normal, contact, clearance)
        for n in nodes
    ]


class NodePin(IdealJoint):
    """A node of a flexible body pinned to a rigid body (or the ground): an ideal revolute pin
    about the global z axis, exact (two equalities), where the paper uses a penalty spring.

    Geometry: the pin is where the node is at t = 0; its offset in `body`'s frame is fixed.
    Equalities (x_node - P_body)_x = 0 and (x_node - P_body)_y = 0 in global axes (m); their
    multipliers are the in-plane reaction on the node (N). The body's motion out of the plane
    is for its other joints to hold.
    """

    def __init__(self, name: str, body: Body, node: Node) -> None:
        node = _node(name, node)
        if body is not GROUND and not isinstance(body, RigidBody):
            raise InputError(f"{name}.body must be a RigidBody or GROUND, got {short_repr(body)}")
        super().__init__(name, body, node)
        self.s_body = initial_local_point(body, node.position)

    @property
    def eq_labels(self):
        return ("dx", "dy")

    def equalities(self, poses, t):
        d = poses[self.child].r - poses[self.parent].point(self.s_body)
        return [d[0], d[1]]
