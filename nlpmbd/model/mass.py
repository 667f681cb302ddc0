"""The constant block-diagonal mass matrix M (6N, 6N) of the rA bodies (docs/FORMULATION.md
section 2), its inverse and its Cholesky factor, built from the bodies' 3x3 blocks m I and J':
never a dense 6N factorisation or inverse."""

from __future__ import annotations

from collections.abc import Sequence

import casadi as ca
import numpy as np

from .bodies import RigidBody


def _blocks(bodies: Sequence[RigidBody]) -> list[np.ndarray]:
    """The 3x3 diagonal blocks of M, in order: m I, then J' (body frame), per body."""
    return [b for body in bodies for b in (body.mass * np.eye(3), np.asarray(body.inertia))]


def mass_matrix(bodies: Sequence[RigidBody]) -> np.ndarray:
    """M (6N, 6N) as a NumPy array."""
    M = np.zeros((6 * len(bodies), 6 * len(bodies)))
    for k, block in enumerate(_blocks(bodies)):
        M[3 * k : 3 * k + 3, 3 * k : 3 * k + 3] = block
    return M


def mass_inverse(bodies: Sequence[RigidBody]) -> ca.DM:
    """M^-1, sparse."""
    return ca.sparsify(ca.diagcat(*[ca.DM(np.linalg.inv(b)) for b in _blocks(bodies)]))


def mass_factor(M: np.ndarray, rigid: int | None = None) -> tuple[ca.DM, ca.DM]:
    """(R, R^-1), sparse, with M = R^T R (R upper triangular, block by block): u = R v turns
    1/2 v^T M v into 1/2 |u|^2, so that a QP solver's own factorisation of the Hessian is
    trivial. The first `rigid` rows (None: all) are the rigid bodies' 3x3 blocks; the rest, the
    flexible bodies' nodes, is factorised as one block."""
    n = M.shape[0] if rigid is None else rigid
    R = [np.linalg.cholesky(M[k : k + 3, k : k + 3]).T for k in range(0, n, 3)]
    if n < M.shape[0]:
        R.append(np.linalg.cholesky(M[n:, n:]).T)
    return ca.sparsify(ca.diagcat(*map(ca.DM, R))), ca.sparsify(
        ca.diagcat(*[ca.DM(np.linalg.inv(r)) for r in R])
    )
