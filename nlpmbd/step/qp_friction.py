"""The friction rows of the QP step (step/qp_graph.py): a tangent basis per contact that turns
with the slip, the split of each slip component into p, n >= 0 whose cost h g_j (p + n) is the
Tresca term of the step, the friction bounds g_j = mu_j lambda_j, and the friction forces and
friction-law check read from the split rows' multipliers."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

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
    """The friction of every contact over x = [v; w] (module docstring): per contact j its
    tangents T_j, k_j = 1 of them for a contact slipping in a plane (the plane's normal x d_j,
    exact) or 2 (t1, t2) for a spatial one, and per tangent a row t_i . (D_j v) - p_ij + n_ij
    = 0 with p, n >= 0, the split variables w ordered (p, n) per tangent, contact by contact."""

    def __init__(self, m: Any, q: Any, vm: Any, v_free: Any) -> None:
        nc, nv = m.n_gap, m.n_v
        D, planes = m.slip(q), m.slip_plane(q)
        d, _ = m.contact(q)
        self.D = [D[3 * j : 3 * j + 3, :] for j in range(nc)]
        self.slip_m = [ca.norm_2(Dj @ vm) for Dj in self.D]
        self.k = [1 if m.planar[j] else 2 for j in range(nc)]
        self.nw = 2 * sum(self.k)
        self.basis, rows, col = [], [], 0
        for j, Dj in enumerate(self.D):
            if m.planar[j]:
                t1 = ca.cross(planes[:, j], d[:, j])
                T = t1 / ca.fmax(ca.norm_2(t1), 1e-300)
            else:
                t1 = _tangent(d[:, j], Dj @ vm, Dj @ v_free)
                T = ca.horzcat(t1, ca.cross(d[:, j], t1))  # (3, 2)
            self.basis.append(T)
            split = ca.DM.zeros(self.k[j], self.nw)
            for i in range(self.k[j]):
                split[i, col : col + 2] = ca.DM([[-1, 1]])
                col += 2
            rows.append(ca.horzcat(T.T @ Dj, split))
        self.A = ca.vertcat(*rows) if rows else ca.MX(0, nv + self.nw)

    def _per_tangent(self, a: Any, times: int) -> Any:
        """A per-contact column (nc,) repeated `times` x k_j times for contact j."""
        return ca.vertcat(*[ca.repmat(a[j], times * k, 1) for j, k in enumerate(self.k)])

    def extension(self, h: Any, bound: Any) -> tuple[Any, ...]:
        """What friction adds to the QP (g, lbx, ubx, A, lba, uba): the split variables' cost
        h g_j per unit and bounds (split_bounds), the split rows, equalities = 0."""
        zero = ca.DM.zeros(sum(self.k))
        lo, up = split_bounds(self._per_tangent(bound, 1))
        return self._per_tangent(h * bound, 2), lo, up, self.A, zero, zero

    def active_start(self) -> ca.DM:
        """qrqp's initial active set for w (lam_x0): no slip along t1 (p = n = 0)."""
        marks = [ca.DM([-1, -1] + [0, 0] * (k - 1)) for k in self.k]
        return ca.vertcat(*marks) if marks else ca.DM(0, 1)

    def _components(self, y: Any) -> list:
        """The split rows' multipliers (sum k_j,) cut per contact."""
        cuts = list(np.cumsum([0, *self.k]))
        return [y[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    def forces(self, y: Any, bound: Any, bias: Any) -> tuple[Any, Any, Any]:
        """From the split rows' multipliers / h (k_j per contact): the friction force on each
        moving body -T_j y_j (3, M), its generalised force, and 1 if every component is within
        its bound g_j, up to `bias` (N; the split variables' curvature) (the QP's dual
        feasibility: the friction law)."""
        y_c = self._components(y)
        fric = ca.horzcat(*[-T @ yj for T, yj in zip(self.basis, y_c, strict=True)])
        generalised = sum(Dj.T @ fric[:, j] for j, Dj in enumerate(self.D))
        excess = ca.mmax(ca.fabs(y) - self._per_tangent(bound, 1))
        return fric, generalised, excess <= bias + FRICTION_SLACK * ca.fmax(1.0, ca.mmax(bound))

    def mismatch(self, y: Any, bound: Any, own: Any, bias: Any) -> Any:
        """|generalised force| (N) by which the Tresca friction y (split rows' multipliers / h)
        under the bounds `bound` misses Coulomb's law at the step's own bounds `own`: a component
        strictly inside both bounds sticks under either (0); any other is taken as slipping,
        off by |own - bound| (an upper bound for a sticking one at its bound)."""
        margin = bias + FRICTION_SLACK * ca.fmax(1.0, ca.mmax(bound))
        inner = self._per_tangent(ca.fmin(bound, own), 1) - margin
        e = ca.if_else(ca.fabs(y) < inner, 0, self._per_tangent(ca.fabs(own - bound), 1))
        e_c = self._components(e)
        return ca.norm_2(
            sum(Dj.T @ (T @ ej) for Dj, T, ej in zip(self.D, self.basis, e_c, strict=True))
        )


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
    """Bounds of the split variables (p, n per tangent; `bound` given per tangent): p, n >= 0,
    except where the friction bound is 0 and slip costs nothing: there p = slip, n = 0 (else
    p = n + slip would be fixed only by the tiny W_REG curvature, and DAQP's proximal
    iterations crawl)."""
    free = bound == 0
    lower = ca.if_else(ca.kron(free, ca.DM([1, 0])), -ca.inf, 0)
    upper = ca.if_else(ca.kron(free, ca.DM([0, 1])), 0, ca.inf)
    return lower, upper
