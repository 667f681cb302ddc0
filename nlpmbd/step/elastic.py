"""The Gauss objective of the NLP step (step/graph.py), with the flexible bodies' block.

c K^T M^-1 K [eqs. 17-19] has the gradient (2c/h) K in v only while dK/dv = M / h. The flexible
bodies' implicit internal forces (model/symbolic.py, SymbolicModel.internal) add C + h K_s to
dK/dv, so their block is written (c/h) z^T A z with A = M/h + C + h K_s and extra unknowns z
held by the rows A z = K_nodes (z scaled, `elastic`): through the rows' multipliers its
gradient in v is (2c/h) K again, and the step's KKT conditions stay the equations of motion
(docs/FORMULATION.md section 17). Rigid systems have no z: the objective is the plain one.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np


def gauss(m: Any, K: Any, z: Any, h: Any, c: float, h_max: float) -> Any:
    """The objective's Gauss term for residual K, unknowns z (size 0: no flexible block)."""
    if not z.shape[0]:
        return c * ca.dot(K, m.M_inv @ K)
    nr = 6 * m.n_bodies
    K_r = K[:nr]
    rigid = c * ca.dot(K_r, m.M_inv[:nr, :nr] @ K_r)
    A, _, a = elastic(m, K, z, h, h_max)
    return rigid + (c / (h * a)) * ca.dot(z, A @ z)  # (c/h) z_o^T A_o z_o, z_o = z / a


def elastic(m: Any, K: Any, z: Any, h: Any, h_max: float) -> tuple[Any, Any, float]:
    """(A / a, the rows (A z / a - K_nodes) / (m g), in units of the system's weight, a), with z
    in units of 1 / a, a the largest diagonal entry of A at h_max: A's entries reach
    beta E ~ 1e6 N s/m for a stiff strip with the paper's Rayleigh beta, against M / h ~ 10
    kg/s, and z = A^-1 K, unscaled, would be as small as 1e-7 N s/kg, below IPOPT's
    tolerances."""
    nr = 6 * m.n_bodies
    M, C, K_s = (ca.DM(a)[nr:, nr:] for a in (m.M, m.damping, m.stiffness))
    a = float(np.max(np.diag(np.asarray(M / h_max + C + h_max * K_s))))
    A = (M / h + C + h * K_s) / a
    weight = max(float(np.sum(m.masses)) * 9.81, 1e-12)
    return A, (A @ z - K[nr:]) / weight, a
