"""The friction rows of the QP step (step/qp_graph.py): a tangent basis per contact that turns
with the slip, the split of each slip component into p, n >= 0 whose cost h g_j (p + n) is the
Tresca term of the step, the friction bounds g_j = mu_j lambda_j, and the friction forces and
friction-law check read from the split rows' multipliers."""

from __future__ import annotations

from typing import Any

import casadi as ca

#: Curvature of the friction split variables p, n as a fraction of the lightest body's mass
#: (the Hessian entry is W_REG m_min, step/qp_graph.py), and the slack of the friction-law
#: check relative to the largest friction bound (or 1 N).
W_REG = 1e-10
FRICTION_SLACK = 1e-6
#: Friction bounds below this fraction of the largest (or of 1 N) are taken as 0 (no friction).
FREE_BELOW = 1e-10
#: Slip speeds (m/s) below which the slip direction is not trusted for the tangent basis.
_TINY_SLIP = 1e-9


class Tangential:
    """The friction of every contact over x = [v; w] (module docstring): the tangent basis
    (t1, t2) and, per contact, two rows t_i . (D_j v) - p_ij + n_ij = 0 with p, n >= 0."""

    def __init__(self, m: Any, q: Any, vm: Any, v_free: Any) -> None:
        nc, nv = m.n_gap, 6 * m.n_bodies
        D = m.slip(q)
        d, _ = m.contact(q)
        self.D = [D[3 * j : 3 * j + 3, :] for j in range(nc)]
        self.slip_m = [ca.norm_2(Dj @ vm) for Dj in self.D]
        self.basis, rows = [], []
        for j, Dj in enumerate(self.D):
            t1 = _tangent(d[:, j], Dj @ vm, Dj @ v_free)
            T = ca.horzcat(t1, ca.cross(d[:, j], t1))  # (3, 2)
            self.basis.append(T)
            split = ca.DM.zeros(2, 4 * nc)
            split[0, 4 * j : 4 * j + 2] = ca.DM([[-1, 1]])
            split[1, 4 * j + 2 : 4 * j + 4] = ca.DM([[-1, 1]])
            rows.append(ca.horzcat(T.T @ Dj, split))
        self.A = ca.vertcat(*rows) if rows else ca.MX(0, nv + 4 * nc)

    def extension(self, h: Any, bound: Any) -> tuple[Any, ...]:
        """What friction adds to the QP (g, lbx, ubx, A, lba, uba): the split variables' cost
        h g_j per unit and bounds (split_bounds), the split rows, equalities = 0."""
        nc = len(self.D)
        zero = ca.DM.zeros(2 * nc)
        lo, up = split_bounds(bound)
        return ca.kron(h * bound, ca.DM.ones(4)), lo, up, self.A, zero, zero

    def forces(self, y: Any, bound: Any, bias: Any) -> tuple[Any, Any, Any]:
        """From the split rows' multipliers / h (2 per contact): the friction force on each
        moving body -(y1 t1 + y2 t2) (3, M), its generalised force, and 1 if every component
        is within its bound g_j, up to `bias` (N; the split variables' curvature) (the QP's dual
        feasibility: the friction law)."""
        nc = len(self.D)
        y_f = ca.reshape(y, 2, nc)
        fric = ca.horzcat(*[-self.basis[j] @ y_f[:, j] for j in range(nc)])
        generalised = sum(self.D[j].T @ fric[:, j] for j in range(nc))
        excess = ca.mmax(ca.fabs(y_f) - ca.repmat(bound.T, 2, 1))
        return fric, generalised, excess <= bias + FRICTION_SLACK * ca.fmax(1.0, ca.mmax(bound))

    def mismatch(self, y: Any, bound: Any, own: Any, bias: Any) -> Any:
        """|generalised force| (N) by which the Tresca friction y (split rows' multipliers / h)
        under the bounds `bound` misses Coulomb's law at the step's own bounds `own`: a component
        strictly inside both bounds sticks under either (0); any other is taken as slipping,
        off by |own - bound| (an upper bound for a sticking one at its bound)."""
        nc = len(self.D)
        y_f = ca.fabs(ca.reshape(y, 2, nc))
        margin = bias + FRICTION_SLACK * ca.fmax(1.0, ca.mmax(bound))
        inner = ca.repmat(ca.fmin(bound, own).T, 2, 1) - margin
        e = ca.if_else(y_f < inner, 0, ca.repmat(ca.fabs(own - bound).T, 2, 1))
        return ca.norm_2(sum(self.D[j].T @ (self.basis[j] @ e[:, j]) for j in range(nc)))


def _tangent(d: Any, slip_m: Any, slip_free: Any) -> Any:
    """A unit tangent at a contact of normal d: along the slip at the step's start, else along
    the free slip, else across d and the coordinate axis least aligned with it."""
    axes = [ca.DM([1, 0, 0]), ca.DM([0, 1, 0]), ca.DM([0, 0, 1])]
    a = ca.fabs(d)
    helper = ca.if_else(
        a[0] <= ca.fmin(a[1], a[2]), axes[0], ca.if_else(a[1] <= a[2], axes[1], axes[2])
    )
    across = ca.cross(d, helper)
    guess = ca.if_else(
        ca.norm_2(slip_m) > _TINY_SLIP,
        slip_m,
        ca.if_else(ca.norm_2(slip_free) > _TINY_SLIP, slip_free, across),
    )
    return guess / ca.fmax(ca.norm_2(guess), 1e-300)  # 0 where d = 0 (no tangent plane)


def friction_bound(mu: Any, normal: Any) -> Any:
    """g_j = mu_j lambda_j (N), 0 below FREE_BELOW of the largest (or 1 N): the normal forces of
    open contacts are QP multipliers at rounding level (~1e-13 N), not forces."""
    g = mu * ca.fmax(normal, 0)
    return ca.if_else(g <= FREE_BELOW * ca.fmax(1.0, ca.mmax(g)), 0, g)


def split_bounds(bound: Any) -> tuple[Any, Any]:
    """Bounds of the split variables (p1, n1, p2, n2 per contact): p, n >= 0, except at a contact
    without friction bound, whose slip costs nothing: there p = slip, n = 0 (else p = n + slip
    would be fixed only by the tiny W_REG curvature, and DAQP's proximal iterations crawl)."""
    free = ca.kron(bound == 0, ca.DM([1, 0, 1, 0]))
    lower = ca.if_else(free, -ca.inf, 0)
    upper = ca.if_else(ca.kron(bound == 0, ca.DM([0, 1, 0, 1])), 0, ca.inf)
    return lower, upper
