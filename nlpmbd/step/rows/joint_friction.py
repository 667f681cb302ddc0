"""Friction inside ideal joints: a Tresca row on a joint's free motion (Joint.friction_rates),
the NLP form and the QP form side by side.

Row k resists the rate u_k = J_k v (rad/s or m/s: the child's spin about a revolute's axis, or
its slide along a prismatic's, relative to the parent) with the bound g_k = loss_k +
coefficient_k N_k (Joint.friction_losses: a breakaway torque, N m, or force, N; the coefficient
mu times the lever, the pin radius of a friction circle; N_k the joint's reaction across its
axis, Joint.friction_normals). Where a bound grows with N the step is a fixed point (the
reaction depends on the friction): the QP path solves it again with the loads of the solve
before, secant steps per row, until the bounds it used are its own (step/qp_joint_rounds.py).
The step's Tresca term h g_k |u_k| makes the row's force tau_k (N m or N, on the child; -tau_k
on the parent) satisfy |tau_k| <= g_k, and tau_k = -g_k u_k / |u_k| while it slides.

- QP (step/qp_graph.py): split variables p_k, n_k >= 0 with the row J_k v - p_k + n_k = 0 and
  the cost h g_k (p_k + n_k): exact, so a joint below its breakaway load does not move at all
  (true stick). tau_k = -y_k, y_k the row's multiplier over h; the split variables carry the
  small curvature W_REG m_min of the contacts' (step/qp_friction.py).
- NLP (step/graph.py): the smoothed Tresca term of FrictionRow.nlp_term, with the creep
  speed eps of the Friction settings: a sticking joint creeps at < eps.

Under the second-order scheme (step/verlet.py) the position stage, over h with half the smooth
forces' impulse, takes half the constant bound (`share`), and the velocity stage, over h/2, all
of it: the two stages' friction impulses then add up to at most h g_k, as a slide's does
exactly. The load-dependent part needs no share: a stage's reaction is its own share already
(the position stage's, over h, about half the joint's force).
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from ...errors import InputError
from .base import tresca_term

#: Curvature of the split variables relative to the lightest body's mass (as the contacts').
W_REG = 1e-10
#: Slack of the |tau_k| <= g_k check relative to the largest bound (or 1).
SLACK = 1e-6


class JointFrictionQP:
    """The QP's block of the friction rows inside joints (module docstring): F rows, 2F split
    variables after every other friction variable."""

    def __init__(self, m: Any, q: Any, share: Any, load: Any) -> None:
        """`load` (F,): the loads N of the bounds loss + coefficient * N (the round before's)."""
        terms = m.joint_friction
        self.J = terms.jacobian(q)  # (F, nv)
        self.loss, self.coefficient = ca.DM(terms.loss), ca.DM(terms.coefficient)
        self.share = share
        self.g = self.bound(load)
        self.n, self.nw = m.joint_friction.n, 2 * m.joint_friction.n
        self.weight = W_REG * float(np.min(m.masses))

    def bound(self, load: Any) -> Any:
        """g (F,) of the loads N: share * loss + coefficient * N (N, a force of the solve
        itself, is already its stage's share of the step's: module docstring)."""
        return self.share * self.loss + self.coefficient * load

    def mismatch(self, tau: Any, own: Any) -> Any:
        """|generalised force| (N) by which the forces tau under the bounds g miss the law at
        the step's own bounds `own` (its own loads'): a row strictly inside both sticks under
        either (0); any other is off by |own - g| (as the contacts', step/qp_friction.py)."""
        margin = SLACK * ca.fmax(1.0, ca.mmax(self.g))
        e = ca.if_else(ca.fabs(tau) < ca.fmin(self.g, own) - margin, 0, ca.fabs(own - self.g))
        return ca.norm_2(self.J.T @ e)

    def extend(self, qp: dict, h: Any) -> dict:
        """The QP's H, g, A, lba, uba, lbx, ubx with the block: columns for the split
        variables (cost h g per unit, >= 0), then the rows J v - p + n = 0."""
        n, nw = self.n, self.nw
        rows, cols = qp["A"].shape
        nv = self.J.shape[1]
        split = ca.DM(np.kron(np.eye(n), [[-1.0, 1.0]]))
        A_rows = ca.horzcat(self.J, ca.DM(n, cols - nv), split)
        return {
            "H": ca.diagcat(qp["H"], self.weight * ca.DM.eye(nw)),
            "g": ca.vertcat(qp["g"], ca.kron(h * self.g, ca.DM.ones(2))),
            "A": ca.vertcat(ca.horzcat(qp["A"], ca.DM(rows, nw)), A_rows),
            "lba": ca.vertcat(qp["lba"], ca.DM.zeros(n)),
            "uba": ca.vertcat(qp["uba"], ca.DM.zeros(n)),
            "lbx": ca.vertcat(qp["lbx"], ca.DM.zeros(nw)),
            "ubx": ca.vertcat(qp["ubx"], ca.inf * ca.DM.ones(nw)),
        }

    def forces(self, y: Any, split: Any, h: Any) -> tuple[Any, Any, Any]:
        """From the rows' multipliers over h: the torques or forces tau (F,), their generalised
        force J^T tau, and 1 if every |tau_k| <= g_k (up to the split variables' bias)."""
        tau = -y
        bias = self.weight * ca.mmax(ca.vertcat(0, split)) / h
        margin = bias + SLACK * ca.fmax(1.0, ca.mmax(self.g))
        within = ca.mmax(ca.fabs(tau) - self.g) <= margin
        return tau, self.J.T @ tau, within


def share(kick: float, use: Any) -> Any:
    """The share of the bound in a solve (module docstring): `kick` (StepKernel.kick) in a
    position stage or a first-order step, 1 in a velocity stage (`use` -1)."""
    return ca.if_else(use < 0, 1.0, kick)


def check_nlp(m: Any) -> None:
    """InputError where a joint's friction bound grows with its reaction on the NLP path (its
    Tresca terms take the constant part only: the reaction is a multiplier there, not a
    variable the bound can follow)."""
    terms = m.joint_friction
    if terms.coupled:
        raise InputError(
            "joint friction with mu > 0 needs the QP path, solver 'qp' (auto takes the NLP for "
            "step_control 'nlp' over an h range or formulation 'mpcc'); the NLP path has the "
            "constant frictionloss only"
        )


def nlp_terms(m: Any, q: Any, v: Any, c: Any, h: Any, creep: float, part: Any) -> tuple[Any, Any]:
    """(cost, generalised resistance J^T beta) of the friction rows in the NLP: per row the
    Tresca term (rows/base.py) of u_k = J_k v under `part` g_k; the rows' forces are -beta."""
    J, g = m.joint_friction.jacobian(q), m.joint_friction.loss
    cost, generalised = 0, ca.SX.zeros(m.n_v, 1)
    for k in range(m.joint_friction.n):
        term, beta = tresca_term(c, h, part * float(g[k]), J[k, :] @ v, creep)
        cost = cost + term
        generalised = generalised + J[k, :].T @ beta
    return cost, generalised


def qp_rows(k: Any, q: Any, use: Any, load: Any) -> JointFrictionQP | None:
    """The joints' friction rows (step/rows/joint_friction.py) under the loads `load` where
    their bounds have any (else their constant parts), or None."""
    terms = k.model.joint_friction
    if not terms.n:
        return None
    given = load if terms.coupled else ca.DM.zeros(terms.n)
    return JointFrictionQP(k.model, q, share(k.kick, use), given)


def qp_loads(k: Any, args: dict, jf: Any, tau: Any, f: Any, tol: Any) -> dict:
    """joint_load_next (this solve's own loads of the joints' friction bounds) and
    joint_settled (its friction within the EoM tolerance of the law at them)."""
    terms = k.model.joint_friction
    if jf is None or not terms.coupled:
        return {"joint_load_next": ca.MX(0, 1), "joint_settled": ca.MX(1)}
    own = terms.load(args["q"], args["t"], f.lam, f.lam_eq)
    return {"joint_load_next": own, "joint_settled": jf.mismatch(tau, jf.bound(own)) <= tol}
