"""The flexible bodies' share of the symbolic model (docs/FORMULATION.md section 17): their nodes'
poses, mass, stiffness and damping blocks, applied forces and energies, traced with the model's
q and v (SymbolicModel.build)."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .coordinates import Coordinates
from .system import System


def _block(matrices: list, nv_rigid: int) -> ca.DM:
    """blkdiag(0 (nv_rigid), matrices...) as a sparse DM."""
    import scipy.sparse as sp  # on first use: 0.2 s of every run's start otherwise

    total = sp.block_diag([sp.csr_matrix((nv_rigid, nv_rigid)), *matrices], format="csc")
    total.eliminate_zeros()
    n = total.shape[0]
    return ca.DM(ca.Sparsity(n, n, total.indptr.tolist(), total.indices.tolist()), total.data)


class NodeTerms:
    """Per flexible body, in system order: the nodes' poses and states (for joints and loads),
    the blocks of M, K and C, the reference positions X, and gravity plus point loads. Built
    only for a system with flexible bodies."""

    def __init__(
        self, system: System, coords: Coordinates, q: Any, v: Any, t: Any, poses: dict, states: dict
    ) -> None:
        """Adds the nodes' poses and states to the rigid bodies' `poses` and `states`."""
        self.coords = coords
        self.poses, self.states = coords.node_states(q, v)
        poses.update(self.poses)
        states.update(self.states)
        self.T = ca.SX.eye(2 * coords.n_nodes)  # q_dot = v for a node
        N = coords.n_rigid
        self.n_nodes = coords.n_nodes
        bodies = coords.flexible
        self.mass_blocks = [b.mass_matrix().toarray() for b in bodies]
        nv_rigid = 6 * N
        self.stiffness = _block([b.stiffness() for b in bodies], nv_rigid)
        self.damping = _block([b.damping() for b in bodies], nv_rigid)
        X = np.concatenate([b.reference.ravel() for b in bodies])
        x, xd = q[7 * N :], v[6 * N :]
        self.deformation = ca.vertcat(ca.SX.zeros(nv_rigid, 1), x - ca.DM(X))
        g = np.asarray(system.gravity, float)[:2]
        # gravity as body force: the nodal forces M (g, g, ...) (consistent or lumped)
        weight = np.concatenate([m @ np.tile(g, m.shape[0] // 2) for m in self.mass_blocks])
        self.Q = self._point_loads(system, t, x, xd, ca.SX(ca.DM(weight)))
        import scipy.sparse as sp

        M = ca.DM(sp.block_diag(self.mass_blocks).toarray())
        u = x - ca.DM(X)
        K = self.stiffness[nv_rigid:, nv_rigid:]
        self.kinetic = 0.5 * ca.dot(xd, M @ xd)
        self.potential = 0.5 * ca.dot(u, K @ u) - ca.dot(ca.DM(weight), x)

    def _point_loads(self, system: System, t: Any, x: Any, xd: Any, Q: Any) -> Any:
        for load in system.point_loads:
            start = self.coords.body_nodes(load.body).start
            n = load.body.n_nodes
            pos = [x[2 * (start + k) : 2 * (start + k) + 2] for k in range(n)]
            vel = [xd[2 * (start + k) : 2 * (start + k) + 2] for k in range(n)]
            for k, f in load.nodal(t, pos, vel):
                i = 2 * (start + k)
                Q[i] += f[0]
                Q[i + 1] += f[1]
        return Q

    def extend(self, Q: Any, S: Any, kinetic: Any, potential: Any, M: Any, M_inv: Any) -> tuple:
        """The rigid bodies' Q, S, energies, M and M^-1 with the nodes' blocks appended."""
        n = 2 * self.n_nodes
        return (
            ca.vertcat(Q, self.Q),
            ca.vertcat(S, ca.SX.zeros(n, 1)),
            kinetic + self.kinetic,
            potential + self.potential,
            self.mass(M),
            self.mass_inverse(M_inv),
        )

    def mass(self, rigid: np.ndarray) -> np.ndarray:
        """The whole M: the rigid bodies' (6N, 6N) block, then the nodes' blocks."""
        if not self.mass_blocks:
            return rigid
        import scipy.sparse as sp

        return np.asarray(sp.block_diag([rigid, *self.mass_blocks]).toarray())

    def mass_inverse(self, rigid: ca.DM) -> ca.DM:
        """M^-1, sparse: the rigid one's blocks, then each flexible body's inverse."""
        if not self.mass_blocks:
            return rigid
        inv = [ca.sparsify(ca.DM(np.linalg.inv(m))) for m in self.mass_blocks]
        return ca.diagcat(rigid, *inv)
