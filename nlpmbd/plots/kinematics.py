"""Body poses and orientation angles from a result's q, for figures (NumPy only).

Conventions (io/schema.py): per body q = (x, y, z, e0, e1, e2, e3), the Euler parameters being a
scalar-first unit quaternion, A(p) maps body-frame vectors to global ones, and v holds the
angular velocity w' in body axes. The ground ("ground") is the global frame: r = 0, A = I.
"""

from __future__ import annotations

import numpy as np

from ..io.result import SimulationResult

#: Name of the fixed frame in joint descriptions (model/bodies.py GROUND.name).
GROUND_NAME = "ground"
#: Cardan sequences tried (intrinsic, scipy's upper-case convention), first preferred, and the
#: largest middle angle (rad) a sequence may reach to be taken (away from gimbal lock at 90 deg).
SEQUENCES = ("XYZ", "ZXY", "YZX")
GIMBAL_MARGIN = np.radians(60.0)


def rotation_matrices(p: np.ndarray) -> np.ndarray:
    """(n, 3, 3) rotation matrices A(p) = (2 e0^2 - 1) I + 2 (e e^T + e0 e~) of (n, 4) Euler
    parameters (used as given: a result's p is unit to the solver's tolerance)."""
    e0, e = p[:, 0], p[:, 1:4]
    A = (2.0 * e0**2 - 1.0)[:, None, None] * np.eye(3)
    A = A + 2.0 * e[:, :, None] * e[:, None, :]
    skew = np.zeros_like(A)
    skew[:, 0, 1], skew[:, 0, 2], skew[:, 1, 2] = -e[:, 2], e[:, 1], -e[:, 0]
    skew[:, 1, 0], skew[:, 2, 0], skew[:, 2, 1] = e[:, 2], -e[:, 1], e[:, 0]
    return A + 2.0 * e0[:, None, None] * skew


def body_pose(result: SimulationResult, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(r (n+1, 3), A (n+1, 3, 3)) of body `name`; the ground gives zeros and identities."""
    n = result.t.shape[0]
    if name == GROUND_NAME:
        return np.zeros((n, 3)), np.broadcast_to(np.eye(3), (n, 3, 3))
    q = result.body_q(name)
    return q[:, 0:3], rotation_matrices(q[:, 3:7])


def global_points(result: SimulationResult, name: str, local: np.ndarray) -> np.ndarray:
    """(n+1, 3) global positions of the body point with body-frame coordinates `local`."""
    r, A = body_pose(result, name)
    return r + A @ np.asarray(local, dtype=float)


def to_body_axes(result: SimulationResult, name: str, vectors: np.ndarray) -> np.ndarray:
    """(n+1, 3) components in the axes of body `name` of global vectors (n+1, 3)."""
    _, A = body_pose(result, name)
    return np.einsum("nji,nj->ni", A, vectors)


def cardan_angles(p: np.ndarray, seq: str | None = None) -> tuple[np.ndarray, str]:
    """((n, 3) unwrapped intrinsic Cardan angles (rad), sequence) of (n, 4) Euler parameters:
    A = R_i(a) R_j(b) R_k(c) for the sequence "ijk" (scipy's upper-case convention). Without a
    `seq`, the first of `SEQUENCES` whose middle angle stays away from +-90 degrees (gimbal
    lock; `best_sequence`); for a rotation about one body axis only, that axis's angle is the
    joint angle."""
    seq = seq or best_sequence([p])
    i, j, k = ("XYZ".index(c) for c in seq)  # a cyclic order: the signs below hold
    A = rotation_matrices(p)
    middle = np.arcsin(np.clip(A[:, i, k], -1.0, 1.0))
    first = np.arctan2(-A[:, j, k], A[:, k, k])
    last = np.arctan2(-A[:, i, j], A[:, i, i])
    return np.unwrap(np.column_stack([first, middle, last]), axis=0), seq


def best_sequence(ps: list[np.ndarray]) -> str:
    """The first sequence of `SEQUENCES` whose middle angle stays within GIMBAL_MARGIN of zero
    for all the (n, 4) Euler parameter histories `ps`, else the one whose largest |middle
    angle| is smallest."""
    worst = []
    for seq in SEQUENCES:
        i, k = "XYZ".index(seq[0]), "XYZ".index(seq[2])
        sine = max(
            (np.max(np.abs(rotation_matrices(p)[:, i, k]), initial=0.0) for p in ps), default=0.0
        )
        worst.append(float(np.arcsin(min(sine, 1.0))))
        if worst[-1] <= GIMBAL_MARGIN:
            return seq
    return SEQUENCES[int(np.argmin(worst))]
