"""Independent reference: the stick-slip oscillator with a FLEXIBLE slider of Zheng and Wang,
[R5] of docs/FORMULATION.md (section 4.1, Fig. 6, Table 1). numpy and scipy only; it never
imports nlpmbd. ``references/ref_stick_slip.py`` is the rigid-slider version of the same example.

Model
-----
* Units SI (m, kg, s, N). Planar, Oxy fixed to the ground, x along the guide, y up. Gravity
  acts along -y (the paper does not say so; the slider's weight must press it on the lower face).
* The slider is an a x h = 0.6 x 0.5 m rectangle of unit thickness and areal density 1/3 kg/m^2
  (m = 0.1 kg), meshed with nx x ny bilinear Q4 plane-stress elements (default 5 x 5 = 25, as
  the paper), E = 1000 Pa, nu = 0.3, 2 x 2 Gauss integration. The mass matrix is LUMPED (row
  sums of the consistent matrix), as the paper does (section 3.2). Damping is Rayleigh,
  C = alpha M + beta K with alpha = 0.010, beta = 0.544 (Eq. (6)). Small displacements: the
  paper's slider only translates (section 2.1), so linear elasticity in the ground frame holds.
* The guide is a fixed channel: the lower surface is y = 0, where the undeformed slider's lower
  face starts (u = 0, u_dot = 0 at t = 0, Table 1), and the upper surface is y = h + c with
  c = 2.5 mm. Every node of the lower and upper faces has its own contact, Eq. (1):
  F_N = max(K delta + chi delta_dot, 0) if delta >= 0 else 0, K = 1e4 N/m, chi = 1e3 N s/m,
  delta = -u_y (lower) or u_y - c (upper). F_N pushes a lower node up (+y) and an upper node
  down (-y), Eqs. (10)-(11).
* Friction at each surface node acts along x only, Eq. (12), on v = u_x_dot (the guide is fixed):
  f = -F_N mu(v) tanh(v / v_eps), mu(v) = mu + (mu_s - mu) exp(-(v / v_s)^2), mu = 0.15,
  mu_s = 0.20. This is a smooth regularisation of the paper's Coulomb law with a static
  coefficient (Eq. (2)), chosen over a Karnopp switch because it is C-infinity, so the stiff
  implicit integrator keeps its Newton convergence and step-size control without events at 36
  nodes. Near v = 0 it acts as a very stiff viscous "stick" (slope mu_s F_N / v_eps); it peaks
  close to mu_s F_N at |v| of a few v_eps and falls to mu F_N for |v| >> v_s. Defaults:
  v_eps = 1e-5 m/s (the paper's zero-velocity tolerance, section 3.2), v_s = 1e-3 m/s.
  "Stick" is therefore a creep of order v_eps, not exact rest.
* Loads: weight (lumped nodal forces m_i g along -y); F(t) = F_max sin(Omega t) along +x with
  F_max = 1.5 N, Omega = pi/10 rad/s, applied on the right face at s = 0.05 m BELOW ITS TOP
  (y = h - s = 0.45 m; ASSUMED, the paper does not say where s is measured from). This choice
  differs from ref_stick_slip.py (s above mid-height, y = 0.3 m) because only a high line of
  action reproduces what the paper reports: with y = 0.45 m the upper corners 1 and 6 hit the
  upper guide and nodes 2-5 never touch it; with y = 0.3 m the soft slider tilts by less than
  0.5 mm and never reaches the upper guide. ``force_height`` sets it.
  A spring k = 1.0 N/m (Table 1 prints "N/s") joins the ground to the left face at
  mid-height, horizontal and unstretched at t = 0 (ASSUMED). A load point between two nodes
  takes the linear edge interpolation, so the spring acts on u_x of the mid-edge point.
* Node numbering follows the paper: nodes 1..nx+1 form the upper row (left to right), the last
  nx+1 nodes the lower row; for 5 x 5, nodes 1, 6, 31, 36 are the corners.

Sign conventions of the output: ``normal`` >= 0 is the magnitude of F_N; ``friction`` is the x
force of the guide on the node (positive = +x). Net vertical guide force = sum(lower F_N) -
sum(upper F_N); it equals m g when the slider is at rest.

What the paper reports (section 4.1): the slider sticks and slips (Fig. 7); the y velocities of
nodes 1 and 6 drop to zero "when the corresponding nodes impact with the upper guide" (Fig. 8);
the friction at the upper inner nodes 2-5 is always zero, "these nodes are never in contact
with the guide" (Fig. 10), while Fig. 10(c, d) plots nonzero friction on the whole lower row
31-36; the two left corners (1, 31) and the two right corners (6, 36) obey complementarity
(Fig. 11). The paper gives no time span; its figures span tens of seconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

PARAMS: dict = {
    "width": 0.6,  # a [m] (Table 1)
    "height": 0.5,  # h [m] (Table 1)
    "clearance": 2.5e-3,  # c [m] (Table 1)
    "force_height": 0.45,  # y [m] of F on the right face: h - s, s = 0.05 m (Table 1; ASSUMED)
    "areal_density": 1.0 / 3.0,  # rho [kg/m^2] (Table 1), unit thickness
    "young": 1000.0,  # E [Pa] (Table 1)
    "poisson": 0.3,  # nu (Table 1)
    "rayleigh_alpha": 0.010,  # (Table 1)
    "rayleigh_beta": 0.544,  # (Table 1)
    "contact_stiffness": 1.0e4,  # K [N/m] per node (Table 1, Eq. (1))
    "contact_damping": 1.0e3,  # chi [N s/m] per node (Table 1, Eq. (1))
    "mu_kinetic": 0.15,  # mu (Table 1)
    "mu_static": 0.20,  # mu' (Table 1)
    "force_amplitude": 1.5,  # F_max [N] (Table 1)
    "force_frequency": np.pi / 10.0,  # Omega [rad/s] (Table 1)
    "spring_stiffness": 1.0,  # k [N/m] (Table 1)
    "gravity": 9.81,  # g [m/s^2] (Table 1)
    "nx": 5,  # elements along x (section 4.1: 25 elements)
    "ny": 5,  # elements along y
    "v_eps": 1.0e-5,  # [m/s] tanh regularisation width (paper's zero-velocity tolerance)
    "v_stribeck": 1.0e-3,  # [m/s] decay speed from mu' to mu (not in the paper)
}


@dataclass
class FlexibleSliderResult:
    t: np.ndarray  # (nt,) [s]
    positions: np.ndarray  # (nt, n_nodes, 2) current nodal positions [m], paper numbering
    velocities: np.ndarray  # (nt, n_nodes, 2) [m/s]
    surface_nodes: np.ndarray  # (2 (nx+1),) paper numbers: upper row, then lower row
    normal: np.ndarray  # (nt, n_surface) F_N >= 0 [N]
    friction: np.ndarray  # (nt, n_surface) x force of the guide on each node [N]
    applied_force: np.ndarray  # F(t) [N]
    spring_force: np.ndarray  # x force of the spring on the slider [N]
    mass: float  # [kg]
    n_lower: int  # the last n_lower surface nodes are on the lower face
    wall_time: float  # [s]
    nodal_mass: np.ndarray  # (n_nodes,) lumped nodal masses [kg], paper numbering

    @property
    def mean_velocity_x(self) -> np.ndarray:
        """Mass-weighted mean x velocity = that of the centre of mass (uniform lumped mesh)."""
        return self.velocities[:, :, 0] @ self.nodal_mass / self.nodal_mass.sum()


def q4_matrices(a: float, h: float, nx: int, ny: int, young: float, nu: float, rho: float):
    """Stiffness and lumped mass of an nx x ny Q4 plane-stress mesh of the rectangle [0,a]x[0,h].

    Internal numbering: node (i, j) -> j (nx + 1) + i, j = 0 the lower row; dofs (2n, 2n+1) =
    (u_x, u_y). Returns (K, m_nodal, xy).
    """
    nnx = nx + 1
    nn = nnx * (ny + 1)
    xs, ys = np.linspace(0.0, a, nnx), np.linspace(0.0, h, ny + 1)
    xy = np.array([(x, y) for y in ys for x in xs])
    d = young / (1.0 - nu**2) * np.array([[1.0, nu, 0.0], [nu, 1.0, 0.0], [0.0, 0.0, (1 - nu) / 2]])
    kg = np.zeros((2 * nn, 2 * nn))
    mlump = np.zeros(nn)
    gp = np.array([-1.0, 1.0]) / np.sqrt(3.0)
    xi_n = np.array([-1.0, 1.0, 1.0, -1.0])
    eta_n = np.array([-1.0, -1.0, 1.0, 1.0])
    for j in range(ny):
        for i in range(nx):
            lo, up = j * nnx + i, (j + 1) * nnx + i
            conn = np.array([lo, lo + 1, up + 1, up])
            xe = xy[conn]
            ke = np.zeros((8, 8))
            me = np.zeros((4, 4))
            for xi in gp:
                for eta in gp:
                    n = 0.25 * (1 + xi * xi_n) * (1 + eta * eta_n)
                    dn = 0.25 * np.array([xi_n * (1 + eta * eta_n), eta_n * (1 + xi * xi_n)])
                    jac = dn @ xe
                    det = np.linalg.det(jac)
                    dxy = np.linalg.solve(jac, dn)
                    b = np.zeros((3, 8))
                    b[0, 0::2] = dxy[0]
                    b[1, 1::2] = dxy[1]
                    b[2, 0::2] = dxy[1]
                    b[2, 1::2] = dxy[0]
                    ke += b.T @ d @ b * det
                    me += rho * np.outer(n, n) * det
            dofs = np.ravel(np.column_stack([2 * conn, 2 * conn + 1]))
            kg[np.ix_(dofs, dofs)] += ke
            mlump[conn] += me.sum(axis=1)  # row-sum lumping: positive for bilinear elements
    return kg, mlump, xy


def _edge_weights(ys: np.ndarray, y: float) -> tuple[int, int, float]:
    """Rows (j0, j1) bracketing height y on a vertical edge and the weight of row j1."""
    j1 = int(np.clip(np.searchsorted(ys, y), 1, len(ys) - 1))
    w = (y - ys[j1 - 1]) / (ys[j1] - ys[j1 - 1])
    return j1 - 1, j1, float(w)


class _Model:
    def __init__(self, p: dict):
        self.p = p
        a, h, nx, ny = p["width"], p["height"], p["nx"], p["ny"]
        self.k, self.m, self.xy = q4_matrices(
            a, h, nx, ny, p["young"], p["poisson"], p["areal_density"]
        )
        nnx = nx + 1
        self.nn = nnx * (ny + 1)
        self.ndof = 2 * self.nn
        ys = np.linspace(0.0, h, ny + 1)
        mdof = np.repeat(self.m, 2)
        self.minv = 1.0 / mdof
        self.c = p["rayleigh_alpha"] * np.diag(mdof) + p["rayleigh_beta"] * self.k
        # Spring (left face, mid-height) and force (right face, mid-height + s): x-dof weights.
        self.spring_w = np.zeros(self.ndof)
        j0, j1, w = _edge_weights(ys, 0.5 * h)
        self.spring_w[2 * (j0 * nnx)] += 1 - w
        self.spring_w[2 * (j1 * nnx)] += w
        self.force_w = np.zeros(self.ndof)
        j0, j1, w = _edge_weights(ys, p["force_height"])
        self.force_w[2 * (j0 * nnx + nx)] += 1 - w
        self.force_w[2 * (j1 * nnx + nx)] += w
        # The spring is linear, so it joins the constant stiffness of the ODE.
        self.kt = self.k + p["spring_stiffness"] * np.outer(self.spring_w, self.spring_w)
        self.gravity = np.zeros(self.ndof)
        self.gravity[1::2] = -self.m * p["gravity"]
        self.upper = (ny * nnx + np.arange(nnx)).astype(int)
        self.lower = np.arange(nnx)
        self.surface = np.concatenate([self.upper, self.lower])
        # +1: the guide pushes +y (lower face), -1: -y (upper face).
        self.nsign = np.concatenate([-np.ones(nnx), np.ones(nnx)])
        self.gap0 = np.concatenate([np.full(nnx, p["clearance"]), np.zeros(nnx)])
        # Linear part of the first-order system y' = A y + b(t) + contact(y).
        n = self.ndof
        self.a_lin = np.zeros((2 * n, 2 * n))
        self.a_lin[:n, n:] = np.eye(n)
        self.a_lin[n:, :n] = -self.minv[:, None] * self.kt
        self.a_lin[n:, n:] = -self.minv[:, None] * self.c
        # Paper numbering: upper row first, left to right.
        self.paper_order = np.array([j * nnx + i for j in range(ny, -1, -1) for i in range(nnx)])

    def applied(self, t):
        return self.p["force_amplitude"] * np.sin(self.p["force_frequency"] * t)

    def contact(self, u, v):
        """Normal magnitudes, friction, and their partial derivatives for the surface nodes."""
        p = self.p
        uy, vy, vx = u[2 * self.surface + 1], v[2 * self.surface + 1], v[2 * self.surface]
        # Penetration: lower delta = -u_y; upper delta = u_y - c; i.e. delta = -s u_y - gap0.
        delta = -self.nsign * uy - self.gap0
        ddelta = -self.nsign * vy
        raw = p["contact_stiffness"] * delta + p["contact_damping"] * ddelta
        on = (delta >= 0.0) & (raw > 0.0)
        fn = np.where(on, raw, 0.0)
        dfn_duy = np.where(on, -self.nsign * p["contact_stiffness"], 0.0)
        dfn_dvy = np.where(on, -self.nsign * p["contact_damping"], 0.0)
        ve, vs = p["v_eps"], p["v_stribeck"]
        mus, muk = p["mu_static"], p["mu_kinetic"]
        ex = np.exp(-((vx / vs) ** 2))
        mu = muk + (mus - muk) * ex
        dmu = (mus - muk) * ex * (-2.0 * vx / vs**2)
        th = np.tanh(vx / ve)
        phi = mu * th
        dphi = dmu * th + mu * (1.0 - th**2) / ve
        ft = -fn * phi
        return fn, ft, dfn_duy, dfn_dvy, -fn * dphi, -phi

    def rhs(self, t, y):
        n = self.ndof
        u, v = y[:n], y[n:]
        fn, ft, *_ = self.contact(u, v)
        f = self.gravity + self.applied(t) * self.force_w
        np.add.at(f, 2 * self.surface + 1, self.nsign * fn)
        np.add.at(f, 2 * self.surface, ft)
        out = self.a_lin @ y
        out[n:] += self.minv * f
        return out

    def jac(self, t, y):
        n = self.ndof
        u, v = y[:n], y[n:]
        fn, ft, dfn_duy, dfn_dvy, dft_dvx, dft_dfn = self.contact(u, v)
        j = self.a_lin.copy()
        ix, iy = 2 * self.surface, 2 * self.surface + 1
        mx, my = self.minv[ix], self.minv[iy]
        # Normal force on the y dof.
        j[n + iy, iy] += my * self.nsign * dfn_duy
        j[n + iy, n + iy] += my * self.nsign * dfn_dvy
        # Friction on the x dof: through F_N (y, v_y) and directly through v_x.
        j[n + ix, iy] += mx * dft_dfn * dfn_duy
        j[n + ix, n + iy] += mx * dft_dfn * dfn_dvy
        j[n + ix, n + ix] += mx * dft_dvx
        return j


def simulate(
    t_end: float = 20.0,
    params: dict | None = None,
    dt_out: float = 0.01,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    method: str = "Radau",
) -> FlexibleSliderResult:
    """Integrate the flexible-slider oscillator from rest (u = 0, u_dot = 0) over [0, t_end]."""
    p = dict(PARAMS)
    if params:
        p.update(params)
    mod = _Model(p)
    y0 = np.zeros(2 * mod.ndof)
    t_eval = np.linspace(0.0, t_end, int(round(t_end / dt_out)) + 1)
    tic = time.perf_counter()
    sol = solve_ivp(
        mod.rhs,
        (0.0, t_end),
        y0,
        method=method,
        t_eval=t_eval,
        jac=mod.jac,
        rtol=rtol,
        atol=atol,
    )
    wall = time.perf_counter() - tic
    if not sol.success:
        raise RuntimeError(sol.message)
    n = mod.ndof
    u, v = sol.y[:n].T, sol.y[n:].T
    nt = len(sol.t)
    fn = np.empty((nt, len(mod.surface)))
    ft = np.empty_like(fn)
    for k in range(nt):
        fn[k], ft[k] = mod.contact(u[k], v[k])[:2]
    order = mod.paper_order
    pos = (mod.xy[None, :, :] + u.reshape(nt, -1, 2))[:, order]
    vel = v.reshape(nt, -1, 2)[:, order]
    inv = np.empty_like(order)
    inv[order] = np.arange(len(order))
    res = FlexibleSliderResult(
        t=sol.t,
        positions=pos,
        velocities=vel,
        surface_nodes=inv[mod.surface] + 1,
        normal=fn,
        friction=ft,
        applied_force=mod.applied(sol.t),
        spring_force=-p["spring_stiffness"] * (u @ mod.spring_w),
        mass=float(mod.m.sum()),
        n_lower=p["nx"] + 1,
        wall_time=wall,
        nodal_mass=mod.m[order],
    )
    return res


def intervals(t: np.ndarray, mask: np.ndarray) -> list[tuple[float, float]]:
    """Maximal [start, end] time intervals where ``mask`` is True on the sample grid."""
    out, start = [], None
    for k, flag in enumerate(mask):
        if flag and start is None:
            start = t[k]
        if not flag and start is not None:
            out.append((float(start), float(t[k - 1])))
            start = None
    if start is not None:
        out.append((float(start), float(t[-1])))
    return out


def stick_mask(res: FlexibleSliderResult, v_tol: float = 1e-3) -> np.ndarray:
    """Samples where the slider's mean x velocity is below ``v_tol`` [m/s] ("stick")."""
    return np.abs(res.mean_velocity_x) < v_tol


def main(t_end: float = 20.0) -> FlexibleSliderResult:
    tic = time.perf_counter()
    res = simulate(t_end)
    total = time.perf_counter() - tic
    stick = stick_mask(res)
    g = PARAMS["gravity"]
    print(f"flexible slider, {PARAMS['nx']} x {PARAMS['ny']} Q4, t in [0, {t_end}] s")
    print(f"mass {res.mass:.4f} kg, weight m g = {res.mass * g:.4f} N")
    print("stick intervals [s] (|mean v_x| < 1e-3 m/s):")
    for a, b in intervals(res.t, stick):
        print(f"  {a:7.2f} - {b:7.2f}")
    print("slip intervals [s]:")
    for a, b in intervals(res.t, ~stick):
        print(f"  {a:7.2f} - {b:7.2f}")
    print("surface nodes that touch the guide (paper numbering), max F_N and max |f|:")
    nl = res.n_lower
    for k, node in enumerate(res.surface_nodes):
        face = "lower" if k >= len(res.surface_nodes) - nl else "upper"
        if res.normal[:, k].max() > 0.0:
            print(
                f"  node {node:3d} ({face}): max F_N = {res.normal[:, k].max():.4f} N, "
                f"max |f| = {np.abs(res.friction[:, k]).max():.4f} N"
            )
    untouched = [int(n) for k, n in enumerate(res.surface_nodes) if res.normal[:, k].max() == 0]
    print(f"  never in contact: {untouched}")
    slip = ~stick
    first_slip = np.argmax(slip & (res.t > 0)) if slip.any() else len(res.t)
    ftot = res.friction.sum(axis=1)
    peak = np.abs(ftot[:first_slip]).max() if first_slip > 0 else float("nan")
    print(
        f"peak static friction before the first slip (t < {res.t[first_slip]:.2f} s): "
        f"{peak:.4f} N (rigid limit mu' m g = {PARAMS['mu_static'] * res.mass * g:.4f} N)"
    )
    print(f"wall time: {total:.1f} s (integration {res.wall_time:.1f} s)")
    return res


if __name__ == "__main__":
    main()
