"""The mathematics every step solver shares (docs/FORMULATION.md section 4), written once.

A step from (t, qm, vm) with step size h finds the new velocities v and enforces, linearised at
qm [eqs. 23-24],

    gaps        Phi(qm) + h Phi_v(qm) v + T2 <= 0,
    equalities  Phi_eq(qm, t) + h (Phi_eq,v v + Phi_eq,t) = 0,

then updates the positions, q = advance(qm, v, h) (model/kinematics.py). T2 is the second-order
term h^2/2 d^2Phi/ds^2 along the previous velocity: it pre-compensates the O(h^2 w^2 l) drift of
the true gap within the step. It only holds near contact (the curvature of a radial gap is
~V^2/|d|, huge and meaningless while a pin passes the hole's centre), so it is used where
Phi(qm) >= -c/2, and it is capped at c/2 (a larger term means the step sweeps much of the
clearance, where Taylor does not hold; the projection does the rest). A step that still
penetrates by more than `curvature_guard` of a clearance is solved again without it (the guard,
step/retry.py and the QP's whole step).

Under the second-order scheme (Integrator.VERLET, step/verlet.py) the equalities get their own
second-order term, h^2/2 d^2Phi_eq/ds^2 along the previous velocity, the smooth forces kick by
h/2 (`kick`), and `use` -1 marks the scheme's velocity stage: gaps min(Phi, 0), no T2.

The kernel also owns the acceptance test of a solver's point (one set of tolerances,
Verification) and the penetration fraction max_j Phi_j / c_j, and the gap projection.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import casadi as ca
import numpy as np

from ..errors import InputError
from ..model.clearance import gap_fractions, smallest_clearance
from ..model.kinematics import advance, normalized
from ..model.symbolic import SymbolicModel
from .config import (
    DEFAULT_VERIFICATION,
    GapCorrection,
    GapLinearization,
    Integrator,
    Verification,
)
from .dependent import equality_regularisation
from .numeric import Numeric
from .projection import GapProjection
from .rows import GapRows


def force_scale(inertia: Any, rest: Any) -> Any:
    """The size of the forces at play (N), >= 1, from the inertia force M (v - vm) / h and the
    other forces of the equations of motion: EoM residuals are tested relative to it (a 5000
    rpm mechanism carries ~1e3 N, where 1e-8 N absolute is below what double precision
    resolves)."""
    return ca.fmax(1, ca.norm_2(inertia) + ca.norm_2(rest))


def _vector_cone(model: SymbolicModel, compliant: np.ndarray) -> np.ndarray:
    """The radial gaps bounded as vectors: all but those whose law is stated along Phi_v, which
    keep the scalar row. Newton's impact law (under the cuts an elastic pin lost up to 95 % of
    its energy) and the SpringDamperContact's (its row's slack, soft_terms: the cuts and fan,
    rows without the slack, held its pin in the disc as a hard one, 1.9e-10 m at 18.7 N on the
    QP path where the NLP path gave 1.7e-5 m and m g / 2K is 4.9e-4 m)."""
    scalar = (np.asarray(model.restitution) > 0) | compliant
    return np.where(scalar, 0.0, model.cone)


class StepKernel:
    """Built once per simulation from the symbolic model; solvers build their graphs from it."""

    def __init__(
        self,
        model: SymbolicModel,
        *,
        correction: GapCorrection = GapCorrection.CURVATURE_PROJECTION,
        renormalize: bool = True,
        verification: Verification = DEFAULT_VERIFICATION,
        curvature_guard: float = 0.1,
        linearization: GapLinearization = GapLinearization.SCALAR,
        integrator: Integrator = Integrator.EULER,
        q0: np.ndarray | None = None,
    ) -> None:
        #: each gap's rows (step/rows/)
        self.rows = GapRows(model.gap_laws)
        if linearization is GapLinearization.VECTOR:
            model = dataclasses.replace(model, cone=_vector_cone(model, self.rows.compliant))
        correction = correction.resolved(model.has_restitution)
        self.correction = correction
        self.model = model
        self._used: dict[str, ca.Function] = {}
        nc = model.n_gap
        self.scales = model.scales  # each gap's clearance (System.gap_scales), checked there
        self.renormalize = renormalize
        self.verification = verification
        self.curvature_guard = curvature_guard
        self.uses_curvature = correction.curvature and nc > 0
        #: radial gaps bounded as vectors: by cutting planes on the QP path (step/cuts.py), as
        #: convex rows on the NLP path (vector_rows)
        self.vector = linearization is GapLinearization.VECTOR and bool(np.any(model.cone > 0))
        self.clearance = smallest_clearance(self.scales.tolist())
        #: the equality rows' compliance (step/dependent.py): 0 unless dependent at q0, the start
        self.eq_rho = 0.0 if q0 is None else equality_regularisation(model, q0)
        first_order = bool(
            model.flexible or model.n_compliant or self.rows.any_compliant or model.has_restitution
        )
        self.integrator = integrator.resolved(first_order)
        self.verlet = self.integrator is Integrator.VERLET
        #: the share of a step's smooth-force impulse in its first solve (step/verlet.py)
        self.kick = 0.5 if self.verlet else 1.0
        #: `use` of a first attempt: 1 where any second-order term exists (gaps or equalities)
        self.use = 1.0 if (self.uses_curvature or self.verlet) else 0.0
        if self.verlet and model.flexible:
            raise InputError(
                "integrator must be euler for a system with flexible bodies, got verlet "
                "(their implicit internal forces are first order)"
            )
        q = ca.SX.sym("q", model.n_q)
        self.penetration = ca.Function(
            "penetration", [q], [self._penetration(q)], ["q"], ["fraction"]
        )
        self._penetration_numeric = Numeric(self.penetration)
        #: gaps with compliant rows (GapRow.compliant): no T2, not projected (soft_terms)
        self.soft = self.rows.compliant
        self.has_soft = self.rows.any_compliant
        hard = np.flatnonzero(~self.soft)
        self.projection = (
            GapProjection(model, self.clearance, rows=hard if self.has_soft else None)
            if correction.projection and hard.size > 0
            else None
        )

    def used(self, f: ca.Function) -> ca.Function:
        """f where its first input (`use` > 0) is 1, else zeros, evaluated only then
        (Function.if_else, one per f): the second-order terms are off in the velocity stage
        and the guard's re-solve, whose graphs still hold them (use is an input)."""
        if f.name() not in self._used:
            ins = [ca.MX.sym(f.name_in(i), f.sparsity_in(i)) for i in range(f.n_in())]
            zeros = [ca.MX(*f.sparsity_out(i).shape) for i in range(f.n_out())]
            off = ca.Function(f"{f.name()}_off", ins, zeros)
            self._used[f.name()] = ca.Function.if_else(f"{f.name()}_used", f, off)
        return self._used[f.name()]

    # ---- constraints ---------------------------------------------------------------------
    def second_order_term(self, q: Any, v: Any, h: Any, use: Any) -> Any:
        """T2 of the module docstring, with `use` (1 or 0) switching it off."""
        m = self.model
        use = ca.fmax(use, 0)  # -1: the velocity stage (module docstring)
        scale = ca.DM(self.scales)
        near = ca.if_else(m.Phi(q) >= -0.5 * scale, use, 0.0)
        cap = ca.if_else(scale > 0, 0.5 * scale, ca.inf)
        T2 = near * ca.fmin(0.5 * h**2 * self.used(m.Phi_curv)(use > 0, q, v), cap)
        if not self.vector:
            return T2
        # radial gaps: the offset's own drift along their direction, not the norm's
        # curvature (the cuts bound the slide round the seat, step/cuts.py)
        d, drift, rows = m.offset(q), self.offset_drift(q, v, h, use), []
        for j, c in enumerate(m.cone):
            dj, sj = d[3 * j : 3 * j + 3], drift[3 * j : 3 * j + 3]
            norm = ca.sqrt(ca.dot(dj, dj) + (1e-3 * c) ** 2)
            rows.append(T2[j] if c == 0 else ca.dot(dj, sj) / norm)
        return ca.vertcat(*rows)

    def offset_drift(self, q: Any, v: Any, h: Any, use: Any) -> Any:
        """h^2/2 d^2 offset/ds^2 along v (3M): the second-order part of the radial gaps'
        offset vectors over a step (vector linearisation), 0 without the curvature term."""
        if not self.uses_curvature:
            return ca.DM.zeros(3 * self.model.n_gap)
        curv = self.used(self.model.offset_curv)(use > 0, q, v)
        return ca.fmax(use, 0) * 0.5 * h**2 * curv

    def gap_rows(self, q: Any, vm: Any, h: Any, v: Any, use: Any) -> Any:
        """The linearised gaps in metres, Phi(qm) + h Phi_v v (+ T2); a soft gap's Phi(qm)
        scaled by a (soft_terms), without T2."""
        m = self.model
        rows = self._soft_scaled(self._gaps(q, use), h) + h * m.Phi_v(q) @ v
        if self.uses_curvature:
            rows = rows + self._rigid_only(self.second_order_term(q, vm, h, use))
        return rows

    def soft_terms(self, h: Any) -> tuple[Any, Any]:
        """Per gap (a, k) of its row a Phi + h Phi_v v - k lambda <= 0 (step/rows/base.py): 1
        and 0 for a hard gap; a SpringDamperContact's a = K h / (K h + chi), k = h / (K h +
        chi) (m/N), whose force is then lambda = max(K (Phi + h Phi_v v) + chi Phi_v v, 0)."""
        return self.rows.scale(h), self.rows.compliance(h)

    def friction_coefficient(self, slip_speed: Any, stick_speed: float) -> Any:
        """mu_j of a step per contact from its slip speed |D_j vm| (m/s) at the step's start:
        its friction row's (step/rows/tresca.py), the one stick/slip switch of both paths."""
        return self.rows.coefficients(slip_speed, stick_speed)

    def _soft_scaled(self, phi: Any, h: Any) -> Any:
        if not self.has_soft:
            return phi
        a, _ = self.soft_terms(h)
        return a * phi

    def _rigid_only(self, T2: Any) -> Any:
        return ca.DM((~self.soft).astype(float)) * T2 if self.has_soft else T2

    def vector_rows(self, q: Any, vm: Any, h: Any, v: Any, use: Any) -> tuple[Any, Any]:
        """(gap rows (m), G): the NLP path's rows under the vector linearisation. A radial gap's
        row is |d(qm) + drift + h D v| - c (norm smoothed by 1e-3 c; a convex row, which IPOPT
        takes as it is, where the QP path needs cuts), any other is `gap_rows`'. G, the rows'
        gradient in v over h (Phi_v for a scalar row), carries each gap's force into the
        equations of motion: along the offset at the step's end, not at its start."""
        m = self.model
        rows, G = self.gap_rows(q, vm, h, v, use), m.Phi_v(q)
        if not self.vector:
            return rows, G
        d, D, drift = m.offset(q), m.offset_v(q), self.offset_drift(q, vm, h, use)
        parts, grads = [], []
        for j, c in enumerate(m.cone):
            if c == 0:
                parts.append(rows[j])
                grads.append(G[j, :])
                continue
            Dj = D[3 * j : 3 * j + 3, :]
            d1 = d[3 * j : 3 * j + 3] + drift[3 * j : 3 * j + 3] + h * Dj @ v
            norm = ca.sqrt(ca.dot(d1, d1) + (1e-3 * c) ** 2)
            parts.append(norm - c)
            grads.append((d1 / norm).T @ Dj)
        return ca.vertcat(*parts), ca.vertcat(*grads)

    def gap_bound(self, q: Any, v: Any, h: Any, use: Any) -> Any:
        """Phi(qm) (+ T2): the velocity-free part of the linearised gaps; in the velocity
        stage (use -1) min(Phi, 0): a closed contact may not close further, and a penetration
        is not pushed out through the velocity (that is the projection's job)."""
        phi = self._soft_scaled(self._gaps(q, use), h)
        if self.uses_curvature:
            phi = phi + self._rigid_only(self.second_order_term(q, v, h, use))
        return phi

    def _gaps(self, q: Any, use: Any) -> Any:
        phi = self.model.Phi(q)
        return ca.if_else(use < 0, ca.fmin(phi, 0), phi) if self.verlet else phi

    def equality_bound(self, q: Any, t: Any, v: Any, h: Any, use: Any) -> Any:
        """Phi_eq(qm, t), plus under the second-order scheme its h^2/2 second derivative along
        (v, 1) (use 1): the equalities' linearisation error over a step is then O(h^3)."""
        phi = self.model.Phi_eq(q, t)
        if not self.verlet or self.model.n_eq == 0:
            return phi
        curv = self.used(self.model.Phi_eq_curv)(use > 0, q, t, v)
        return phi + ca.fmax(use, 0) * 0.5 * h**2 * curv

    def equality_rows(self, q: Any, t: Any, vm: Any, h: Any, v: Any, use: Any, give: Any) -> Any:
        """The linearised equalities in metres, equality_bound + h (Phi_eq,v v + Phi_eq,t), less
        `give` (m) where they are compliant (eq_rho > 0, step/dependent.py: rho h^2 lambda)."""
        m = self.model
        rows = self.equality_bound(q, t, vm, h, use) + h * (m.Phi_eq_v(q, t) @ v + m.Phi_eq_t(q, t))
        return rows - give if self.eq_rho > 0 else rows

    # ---- update --------------------------------------------------------------------------
    def update(self, q: Any, v: Any, h: Any) -> tuple[Any, Any]:
        """(q after the step, Euler-parameter drift before renormalisation)."""
        return advance(q, v, h, self.renormalize, self.model.n_bodies)

    def normalized(self, q_new: Any) -> tuple[Any, Any]:
        """(q_new with unit Euler parameters if renormalising, drift before)."""
        return normalized(q_new, self.renormalize, self.model.n_bodies)

    # ---- acceptance ------------------------------------------------------------------------
    @staticmethod
    def eom_scale(inertia: Any, K: Any) -> Any:
        """force_scale of a step whose EoM residual is K (inertia force included)."""
        return force_scale(inertia, K - inertia)

    def accepts(self, viol: Any, eom: Any, eom_scale: Any, comp: Any, lam: Any) -> Any:
        """1 if a point solves the step (Verification), else 0; symbolic or numeric (floats and
        a NumPy lam: plain Python, no DM operations). An infinite EoM residual fails (it would
        pass its limit, which scales with the forces)."""
        tol = self.verification
        if isinstance(lam, np.ndarray):
            return float(
                viol <= tol.constraints
                and eom < np.inf
                and eom <= tol.eom * eom_scale
                and comp <= tol.complementarity
                and min([0.0, *lam.tolist()]) >= -tol.complementarity
            )
        return (
            (viol <= tol.constraints)
            * (eom < ca.inf)
            * (eom <= tol.eom * eom_scale)
            * (comp <= tol.complementarity)
            * (ca.mmin(ca.vertcat(0, lam)) >= -tol.complementarity)
        )

    # ---- penetration ---------------------------------------------------------------------
    def _penetration(self, q: Any) -> Any:
        if not np.any(self.scales > 0):
            return ca.SX(0)
        return ca.mmax(gap_fractions(self.model.Phi(q), self.scales))

    def penetration_fraction(self, q: np.ndarray) -> float:
        """max_j Phi_j(q) / c_j over the gaps that close a clearance (0 if none)."""
        return float(self._penetration_numeric.named(q=q)["fraction"])
