"""The compliant rows' slacks, the NLP form and the QP form side by side (rows/base.py).

A compliant row a Phi + h Phi_v v - k lambda <= 0 (GapRow.compliant: k > 0) yields k lambda
through a slack whose cost makes it k lambda at the optimum, so that the row stays a plain
inequality for IPOPT and for the QP solvers:

- NLP (implicit form, step/graph.py): sigma (m) per compliant gap, the row minus sigma, the cost
  c sigma^2 / (h^2 k) (c the Gauss objective's scale, whose multiplier-to-force map is
  lambda = h^2 y / (2c)); the MPCC form has lambda explicit and subtracts k lambda itself.
- QP (step/qp_graph.py, rows in m/s): s (m/s) per compliant gap, the row Phi_v v - s <= -a Phi /
  h, the cost w s^2 / 2 (GapRow.slack_weight, w = h^2 / k), so that h s = k lambda. The same
  block carries the slacks of compliant equality rows (step/dependent.py: rho, cost s^2 /
  (2 rho)), which come first in the QP's rows.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np


def spread(compliant: np.ndarray, values: Any) -> Any:
    """Values of the compliant gaps (one each, in gap order; any after them are not gaps')
    spread over all gaps, 0 elsewhere."""
    index = np.flatnonzero(compliant)
    S = np.zeros((compliant.size, values.shape[0]))
    S[index, np.arange(index.size)] = 1.0
    return ca.DM(S) @ values


def nlp_give(kernel: Any, h: Any, lam: Any, sigma: Any, mpcc: bool) -> Any:
    """What the compliant rows yield (m, per gap; 0 for the others) in the NLP: k lambda (MPCC)
    or the slacks sigma (implicit form)."""
    _, k = kernel.soft_terms(h)
    return k * lam if mpcc else spread(kernel.soft, sigma)


def nlp_cost(kernel: Any, c: float, h: Any, sigma: Any) -> Any:
    """The slacks' cost c sigma^2 / (h^2 k) in the NLP's objective (implicit form)."""
    _, k = kernel.soft_terms(h)
    k = k[np.flatnonzero(kernel.soft).tolist()]
    return c * ca.sum1(sigma**2 / k) / h**2


class QPSlacks:
    """The QP's slack variables of the compliant rows, after the velocities and the friction
    split variables: the compliant gaps' first, then, in a system whose equalities are dependent
    (kernel.eq_rho > 0), one per equality row (module docstring)."""

    def __init__(self, kernel: Any, h: Any, n_rows: int, gap_start: int) -> None:
        m = kernel.model
        self.compliant = kernel.soft
        self.index = np.flatnonzero(kernel.soft) if kernel.has_soft else np.zeros(0, dtype=int)
        ns = int(self.index.size)
        ne = m.n_eq if kernel.eq_rho > 0 else 0
        self.n = ns + ne
        cols = np.zeros((n_rows, self.n))
        cols[gap_start + self.index, np.arange(ns)] = -1.0
        cols[np.arange(ne), ns + np.arange(ne)] = -1.0  # the equality rows come first
        self.columns = ca.sparsify(ca.DM(cols))
        weights = [ca.diag(kernel.rows.slack_weights(h))] if ns else []
        if ne:
            weights.append(ca.DM.eye(ne) / kernel.eq_rho)
        self.weight = ca.diagcat(*weights) if weights else ca.DM(0, 0)

    def extend(self, qp: dict) -> dict:
        """The QP's H, g, A, lbx, ubx (by name) with the slacks' block (unbounded, cost
        weight); lba, uba as they are."""
        if not self.n:
            return qp
        free = ca.inf * ca.DM.ones(self.n)
        return {
            **qp,
            "H": ca.diagcat(qp["H"], self.weight),
            "g": ca.vertcat(qp["g"], ca.DM.zeros(self.n)),
            "A": ca.horzcat(qp["A"], self.columns),
            "lbx": ca.vertcat(qp["lbx"], -free),
            "ubx": ca.vertcat(qp["ubx"], free),
        }

    def gaps(self, h: Any, phi: Any, slacks: Any) -> Any:
        """The gap rows' velocity-free parts phi less what the compliant ones yield, h s (m)."""
        return phi - h * spread(self.compliant, slacks) if self.n else phi
