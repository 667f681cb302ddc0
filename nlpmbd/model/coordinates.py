"""Where each body's coordinates sit in q and v (docs/FORMULATION.md sections 1 and 11).

q = (r_1, p_1, ..., r_N, p_N, x_nodes), v = (r_dot_1, w'_1, ..., r_dot_N, w'_N, x_dot_nodes):
the N rigid bodies first (7 and 6 entries each, in body order), then the nodes of each flexible
body in system order, two entries each (x, y) in node-number order (model/fem.py). A node's pose,
as joints and loads see it, is its position in the body's plane with the identity rotation.
"""

from __future__ import annotations

from typing import Any

import casadi as ca

from .bodies import GROUND, RigidBody
from .flexible import FlexibleBody, Node
from .pose import BodyState, Pose


class Coordinates:
    """The layout of q and v for a system's rigid and flexible bodies."""

    def __init__(self, rigid: list[RigidBody], flexible: list[FlexibleBody]) -> None:
        self.rigid = list(rigid)
        self.flexible = list(flexible)
        self.n_rigid = len(self.rigid)
        self._start: dict[FlexibleBody, int] = {}
        k = 0
        for body in self.flexible:
            self._start[body] = k
            k += body.n_nodes
        self.n_nodes = k

    @property
    def nq(self) -> int:
        return 7 * self.n_rigid + 2 * self.n_nodes

    @property
    def nv(self) -> int:
        return 6 * self.n_rigid + 2 * self.n_nodes

    def node_number(self, node: Node) -> int:
        """The node's place among all nodes of the system (0..n_nodes - 1)."""
        return self._start[node.body] + node.index

    def q_index(self, node: Node) -> int:
        """Index of the node's x in q (y follows)."""
        return 7 * self.n_rigid + 2 * self.node_number(node)

    def v_index(self, node: Node) -> int:
        """Index of the node's x velocity in v (y follows)."""
        return 6 * self.n_rigid + 2 * self.node_number(node)

    def body_nodes(self, body: FlexibleBody) -> slice:
        """The body's nodes among all nodes."""
        return slice(self._start[body], self._start[body] + body.n_nodes)

    def node_states(self, q: Any, v: Any) -> tuple[dict, dict]:
        """(poses, states) of every node: position (x, y, z_plane), identity rotation."""
        poses: dict[Node, Pose] = {}
        states: dict[Node, BodyState] = {}
        for body in self.flexible:
            z = float(body.position[2])
            for k in range(body.n_nodes):
                node = body.node(k)
                a, b = self.q_index(node), self.v_index(node)
                pose = Pose(ca.vertcat(q[a], q[a + 1], z), ca.SX.eye(3))
                poses[node] = pose
                states[node] = BodyState(pose, ca.vertcat(v[b], v[b + 1], 0), ca.SX.zeros(3, 1))
        return poses, states

    def generalized(self, body: Any, f: Any, x: Any, state: BodyState) -> tuple[slice, Any]:
        """(where in v, generalised force) of a global force f at the global point x on a body:
        (f, A^T (x - r) x f) for a rigid body, f's in-plane part for a node."""
        if isinstance(body, Node):
            b = self.v_index(body)
            return slice(b, b + 2), f[:2]
        assert body is not GROUND
        k = self.rigid.index(body)
        torque = state.rotation.T @ ca.cross(x - state.position, f)
        return slice(6 * k, 6 * k + 6), ca.vertcat(f, torque)

    def position_symbols(self, body: Any, q: Any) -> tuple[Any, int]:
        """(q's entries of the body's position, how many of its 3 axes they are: 3 or 2)."""
        if isinstance(body, Node):
            a = self.q_index(body)
            return q[a : a + 2], 2
        k = self.rigid.index(body)
        return q[7 * k : 7 * k + 3], 3
