"""The friction rows of the QP step (step/qp_graph.py): per planar contact the tangent of its
plane and the split of its slip into p, n >= 0 whose cost h g_j (p + n) is the step's Tresca
term, exactly; per spatial contact the friction polygon of step/qp_cone.py; the friction bounds
g_j = mu_j lambda_j, and the friction forces and friction-law check read from the rows'
multipliers."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .layout import Layout
from .qp_cone import Cone

#: Curvature of the friction split variables p, n as a fraction of the lightest body's mass
#: (the Hessian entry is W_REG m_min, step/qp_graph.py): a force of up to W_REG m_min |p| / h,
#: which the checks allow for (|p|: a free contact's p is the slip, of either sign); and the
#: slack of the friction-law check relative to the largest friction bound (or 1 N).
W_REG = 1e-10
FRICTION_SLACK = 1e-6
#: Friction bounds below this fraction of the largest (or of 1 N) are taken as 0 (no friction).
FREE_BELOW = 1e-10
#: Slip speeds (m/s) below which the slip direction is not trusted for the tangent basis.
_TINY_SLIP = 1e-9


class Tangential:
    """The friction of every contact over x = [v; w] (module docstring). A contact slipping in
    a plane (k_j = 1 tangent, the plane's normal x d_j, exact) has a row t . (D_j v) - p_j +
    n_j = 0 with p, n >= 0, its split variables (p, n) in w, contact by contact; the spatial
    contacts follow with their friction polygons (step/qp_cone.py): one s_j each after the
    split variables, their rows after the split rows. `state`: the polygons' state of the round
    before (Cone)."""

    def __init__(self, m: Any, q: Any, vm: Any, v_free: Any, state: Any) -> None:
        nc, nv = m.n_gap, m.n_v
        D, planes = m.slip(q), m.slip_plane(q)
        d, _ = m.contact(q)
        self.D = [D[3 * j : 3 * j + 3, :] for j in range(nc)]
        self.slip_m = [ca.norm_2(Dj @ vm) for Dj in self.D]
        self.planar = [j for j in range(nc) if m.planar[j]]
        self.spatial = [j for j in range(nc) if not m.planar[j]]
        self.nw = 2 * len(self.planar) + len(self.spatial)
        self.basis, rows = [], []
        for i, j in enumerate(self.planar):
            t1 = ca.cross(planes[:, j], d[:, j])
            T = t1 / ca.fmax(ca.norm_2(t1), 1e-300)
            self.basis.append(T)
            split = ca.DM.zeros(1, self.nw)
            split[0, 2 * i : 2 * i + 2] = ca.DM([[-1, 1]])
            rows.append(ca.horzcat(T.T @ self.D[j], split))
        self.cone, self.state = None, state
        self.spatial_forces: list = []  # from forces, for mismatch
        if self.spatial:
            tangents = []
            normals = [d[:, j] / ca.fmax(ca.norm_2(d[:, j]), 1e-300) for j in self.spatial]
            for j, n in zip(self.spatial, normals, strict=True):
                t1 = _tangent(n, self.D[j] @ vm, self.D[j] @ v_free)
                tangents.append((t1, ca.cross(n, t1)))
            D_s = [self.D[j] for j in self.spatial]
            mass = float(np.max(m.masses))
            self.cone = Cone(D_s, normals, tangents, state, ca.DM(m.M_inv), mass)
            rows.append(self.cone.rows(self.nw, 2 * len(self.planar)))
        self.A = ca.vertcat(*rows) if rows else ca.MX(0, nv + self.nw)

    def _per_tangent(self, a: Any, times: int) -> Any:
        """A per-contact column (nc,) repeated `times` times for each planar contact."""
        return ca.vertcat(*[ca.repmat(a[j], times, 1) for j in self.planar])

    def _of_spatial(self, a: Any) -> Any:
        return ca.vertcat(*[a[j] for j in self.spatial])

    def extend(self, qp: dict, h: Any, bound: Any, objective: Any) -> dict:
        """The QP's H, g, lbx, ubx, A, lba, uba (by name) with friction's: the split variables'
        cost h g_j per unit and bounds (split_bounds), the split rows, equalities = 0; the
        polygons' s_j and rows (Cone.bounds), and their slip curvature (Cone.curvature) in H,
        in the objective's unknowns u (v = T u)."""
        zero = ca.DM.zeros(len(self.planar))
        lo, up = split_bounds(self._per_tangent(bound, 1))
        extra = {"g": self._per_tangent(h * bound, 2), "lbx": lo, "ubx": up, "A": self.A}
        extra.update(lba=zero, uba=zero)
        H = qp["H"]
        if self.cone is not None:
            spatial = self._of_spatial(bound)
            g, lbx, ubx, lba, uba = self.cone.bounds(h, spatial)
            cone = {"g": g, "lbx": lbx, "ubx": ubx, "lba": lba, "uba": uba}
            extra.update({k: ca.vertcat(extra[k], part) for k, part in cone.items()})
            T = objective.velocities(ca.DM.eye(self.A.shape[1] - self.nw))
            curvature = T.T @ self.cone.curvature(h, spatial) @ T
            H = H + ca.diagcat(curvature, ca.DM(self.nw, self.nw))
        return {"H": H, **{k: ca.vertcat(qp[k], part) for k, part in extra.items()}}

    def active_start(self, stick_speed: float) -> Any:
        """qrqp's initial active set for w (lam_x0): no slip (p = n = 0); s_j = 0 for a spatial
        contact slower than `stick_speed` at the step's start, else s_j free (qrqp fails to
        leave the wrong one of the two within its iterations)."""
        marks = [ca.DM([-1, -1]) for _ in self.planar]
        marks += [ca.if_else(self.slip_m[j] < stick_speed, -1, 0) for j in self.spatial]
        return ca.vertcat(*marks) if marks else ca.DM(0, 1)

    def _parts(self, y: Any) -> tuple[Any, list, Any]:
        """The multipliers of the split rows, the same per planar contact, and those of the
        polygons' rows."""
        n = len(self.planar)
        if self.cone is None:
            return y, [y[i : i + 1] for i in range(n)], None
        parts = Layout([("split", n), ("cone", self.cone.n * self.cone.rows_per_contact)])
        y_p, y_s = (y[s] for s in parts.slices.values())
        return y_p, [y_p[i : i + 1] for i in range(n)], y_s

    def forces(self, y: Any, bound: Any, bias: Any, v_new: Any, h: Any) -> tuple[Any, Any, Any]:
        """From the friction rows' multipliers / h: the friction force on each moving body
        (3, M), its generalised force, and 1 if every contact's force is within its bound g_j,
        up to `bias` (N; the split variables' curvature) (the QP's dual feasibility: a planar
        contact's component within g_j, a spatial one's force within the cone)."""
        y_p, y_c, y_s = self._parts(y)
        forces = [-T @ yj for T, yj in zip(self.basis, y_c, strict=True)]
        columns = dict(zip(self.planar, forces, strict=True))
        margin = bias + FRICTION_SLACK * ca.fmax(1.0, ca.mmax(bound))
        excess = ca.mmax(ca.fabs(y_p) - self._per_tangent(bound, 1)) if self.planar else -ca.inf
        if self.cone is not None:
            spatial = self.cone.forces(y_s, v_new, h, self._of_spatial(bound))
            self.spatial_forces = spatial
            columns.update(zip(self.spatial, spatial, strict=True))
            sizes = ca.vertcat(*[ca.norm_2(f) for f in spatial])
            excess = ca.fmax(excess, ca.mmax(sizes - self._of_spatial(bound)))
        fric = ca.horzcat(*[columns[j] for j in range(len(self.D))])
        generalised = sum(Dj.T @ fric[:, j] for j, Dj in enumerate(self.D))
        return fric, generalised, excess <= margin

    def mismatch(
        self, y: Any, bound: Any, own: Any, bias: Any, v_new: Any, h: Any, tolerance: Any
    ) -> tuple[Any, Any]:
        """(|generalised force| (N) by which the Tresca friction y (rows' multipliers / h) under
        the bounds `bound` misses Coulomb's law at the step's own bounds `own`, the polygons'
        state for the next round (Cone.law; `tolerance`: the EoM's, N); after `forces`). A planar
        component strictly inside both bounds sticks under either (0); any other is taken as
        slipping, off by |own - bound| (an upper bound for a sticking one at its bound).
        Spatial contacts: Cone.law."""
        margin = bias + FRICTION_SLACK * ca.fmax(1.0, ca.mmax(bound))
        y_p, _, y_s = self._parts(y)
        inner = self._per_tangent(ca.fmin(bound, own), 1) - margin
        e = ca.if_else(ca.fabs(y_p) < inner, 0, self._per_tangent(ca.fabs(own - bound), 1))
        e_c = [e[i : i + 1] for i in range(len(self.planar))]
        D_p = [self.D[j] for j in self.planar]
        total = sum(Dj.T @ (T @ ej) for Dj, T, ej in zip(D_p, self.basis, e_c, strict=True))
        if self.cone is None:
            return ca.norm_2(total), self.state
        bounds = (self._of_spatial(bound), self._of_spatial(own), margin)
        errors, state = self.cone.law(self.spatial_forces, y_s, bounds, v_new, h, tolerance)
        total = total + sum(self.D[j].T @ e for j, e in zip(self.spatial, errors, strict=True))
        return ca.norm_2(total), state


def _tangent(d: Any, slip_m: Any, slip_free: Any) -> Any:
    """A unit tangent at a contact of unit normal d (or 0): along the free slip (that of the
    step's end for a sliding point mass, the direction of the force that holds a sticking
    one), else along the slip at the step's start, else across d and the coordinate axis least
    aligned with it."""
    axes = [ca.DM([1, 0, 0]), ca.DM([0, 1, 0]), ca.DM([0, 0, 1])]
    a = ca.fabs(d)
    helper = ca.if_else(
        a[0] <= ca.fmin(a[1], a[2]), axes[0], ca.if_else(a[1] <= a[2], axes[1], axes[2])
    )
    across = ca.cross(d, helper)
    guess = ca.if_else(
        ca.norm_2(slip_free) > _TINY_SLIP,
        slip_free,
        ca.if_else(ca.norm_2(slip_m) > _TINY_SLIP, slip_m, across),
    )
    guess = guess - d @ (d.T @ guess)  # in the plane of a unit d
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
