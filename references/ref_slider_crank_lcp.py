"""Independent reference: slider-crank with a translational clearance joint, Moreau + LCP.

This module re-implements, with numpy/scipy only (no ``nlpmbd`` import), the method of

    P. Flores, R. Leine, C. Glocker, "Modeling and Analysis of Rigid Multibody Systems with
    Translational Clearance Joints Based on the Nonsmooth Dynamics Approach"
    ([R2] of docs/FORMULATION.md, referred to below as "the paper"; equation numbers are the
    paper's).

Model (paper section "Demonstrative Application to a Slider-Crank Mechanism")
-----------------------------------------------------------------------------
Three rigid bodies move in a vertical plane: crank (1), connecting rod (2), slider (3).  The
generalized coordinates are the three absolute angles ``q = (theta1, theta2, theta3)``, eq. (87):

* the crank turns about the fixed pivot O = (0, 0); its tip is ``l1 (cos theta1, sin theta1)``;
* the rod is pinned to the crank tip; its far end is ``l1 e(theta1) + l2 e(theta2)``;
* the rod-slider pin coincides with the slider centre (this is implied by the gap functions
  (98)-(105), which place the slider centre at the rod end, and by the mass matrix (90)-(94),
  where m3 appears only as a point mass at the rod end and the slider rotation only through J3);
* every centre of mass is at mid-length of its body (paper text before Fig. 7), the slider's at
  its geometric centre; theta3 is the slider's own (small) rotation.

The slider is a 2a x 2b rectangle inside a guide whose centre line is the x axis through the
crank pivot; the guide surfaces are y = +d/2 and y = -d/2 with d = 2 b + 2 c, i.e. the clearance
c is the free play on each side when the slider is centred (the companion paper by the same
group, flores_et_al_2008, eq. (7), defines c = (H - W)/2 with the same wording).  Gravity acts
along -y, i.e. perpendicular to the guide (sign of the gravity terms in (95)-(96)).  Without
contact the system is a free double pendulum whose end carries a rotating slider: 3 DOF.

Corner numbering (slider-fixed coordinates, x along the slider's length), from (98)-(105):

    corner 1: (-a, +b)  can hit the upper surface   g_N1 = d/2 - y_1
    corner 2: (+a, +b)  can hit the upper surface   g_N2 = d/2 - y_2
    corner 3: (-a, -b)  can hit the lower surface   g_N3 = y_3 + d/2
    corner 4: (+a, -b)  can hit the lower surface   g_N4 = y_4 + d/2

Gap sign convention: ``g_Ni > 0`` open, ``g_Ni = 0`` touching, ``g_Ni < 0`` penetration.  The
tangential direction of every contact is +x (the guide axis), eqs. (99)-(113).

Time stepping (paper section 5, eqs. (36)-(44), (60)-(85))
-----------------------------------------------------------
Moreau's midpoint scheme on [t_A, t_E]: q_M = q_A + h u_A / 2; the contacts with g_N(q_M) <= 0
are the active set; M, h-vector (at u_A) and the force directions are frozen at q_M; one LCP
(eq. (85) with conditions (76)) gives the normal impulses P_N and the friction saturations
P_R = mu P_N + P_T; then u_E follows from (80) and q_E = q_M + h u_E / 2.  Newton's restitution
e_N acts on the normal velocity (xi_N = gamma_NE + e_N gamma_NA), Coulomb friction on
xi_T = gamma_TE + e_T gamma_TA (e_T = 0 in the paper).  No position projection is applied (the
paper only mentions projection as an option for very small clearances).

The LCP is solved by Lemke's complementary pivoting with a lexicographic ratio test (no
cycling); if it ever ends on a secondary ray, a brute-force enumeration of all complementary
bases (at most 2^12 for four contacts) is used instead.

Step size: the paper does not state its step size.  ``DEFAULT_H = 1e-5 s`` is our choice (it is
the integration step of the same group's companion paper flores_et_al_2008, Table 2); see the
``__main__`` block for the step-size dependence.

Initial state (Table 1): all three angles zero, i.e. crank and rod collinear along +x (outer dead
centre), slider centre at (l1 + l2, 0), centred in the guide and aligned with it; crank speed
150 rad/s and rod speed -75 rad/s, which makes the rod end (and the slider) start at rest.  No
driving torque acts afterwards, so the crank speed varies strongly over a revolution (about
65-150 rad/s) and decays slowly through impacts and friction.

Behaviour of this model, worth knowing when comparing with other codes:

* the slider rotation theta3 is dynamically decoupled (M13 = M23 = 0, h3 = 0) and starts at
  zero; the first impacts are flat (corners 1 and 2 together), and with both corners in the
  LCP the post-impact relative rotation is -e_N times the pre-impact one, i.e. zero.  So the
  slider never tilts (|theta3| ~ 1e-14): corners 1/2 and 3/4 move in pairs.  This symmetric
  motion is unstable: a tilt of 1e-9 rad grows to ~3e-3 rad within two revolutions through
  single-corner activations in the micro-bouncing phases, although the three compared
  quantities hardly change for tilts <= 1e-6 rad;
* per half revolution the slider crosses the clearance, hits the opposite surface, rebounds a
  few times with decreasing height, then stays in contact with that surface (see
  ``permanent_contact_angle``); the first impact is on the upper surface at ~20 deg of crank.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

# ----------------------------------------------------------------------------------------------
# Parameters
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliderCrankParams:
    """Every number of the paper's Table 1, plus the derived guide width.

    Units: SI (m, kg, kg m^2, s, rad).
    """

    # -- geometry (Table 1, "Geometrical characteristics"; symbols defined with Fig. 7) --------
    l1: float = 0.1530  #: crank length, Table 1
    l2: float = 0.3060  #: connecting-rod length, Table 1
    a: float = 0.0500  #: half length of the slider (slider length 2a), Table 1 / Fig. 7
    b: float = 0.0250  #: half width of the slider (slider width 2b), Table 1 / Fig. 7
    c: float = 0.0010  #: clearance = free play on EACH side when centred, Table 1 / Fig. 7 text
    # -- inertia (Table 1, "Inertial properties"; J about the centre of mass, text after (86)) --
    m1: float = 0.0380  #: crank mass, Table 1
    m2: float = 0.0380  #: rod mass, Table 1
    m3: float = 0.0760  #: slider mass, Table 1
    J1: float = 7.4e-5  #: crank moment of inertia about its centre, Table 1
    J2: float = 5.9e-4  #: rod moment of inertia about its centre, Table 1
    J3: float = 2.7e-6  #: slider moment of inertia about its centre, Table 1
    # -- force elements (Table 1); direction -y from the gravity terms of (95)-(96) -------------
    g: float = 9.81  #: gravitational acceleration, Table 1
    # -- contact parameters (Table 1, "Contact parameters"), identical for the four corners ----
    eps_N: float = 0.4  #: normal (Newton) restitution coefficient, Table 1
    eps_T: float = 0.0  #: tangential restitution coefficient, Table 1
    mu: float = 0.01  #: Coulomb friction coefficient, Table 1
    # -- initial conditions (Table 1, "Initial conditions") ------------------------------------
    theta10: float = 0.0  #: crank angle: crank along +x (outer/top dead centre), Table 1
    theta20: float = 0.0  #: rod angle: rod along +x, so slider centre at (l1 + l2, 0), Table 1
    theta30: float = 0.0  #: slider rotation: aligned with (and centred in) the guide, Table 1
    omega10: float = 150.0  #: crank speed; the crank is NOT driven afterwards, Table 1
    omega20: float = -75.0  #: rod speed, Table 1 (= -l1 omega10 / l2: rod end starts at rest)
    omega30: float = 0.0  #: slider angular speed, Table 1

    @property
    def d(self) -> float:
        """Distance between the two guide surfaces, d = 2 b + 2 c (c on each side)."""
        return 2.0 * (self.b + self.c)

    @property
    def q0(self) -> np.ndarray:
        return np.array([self.theta10, self.theta20, self.theta30])

    @property
    def u0(self) -> np.ndarray:
        return np.array([self.omega10, self.omega20, self.omega30])


PARAMS = SliderCrankParams()

#: Our choice of step (the paper gives none); see the module docstring.
DEFAULT_H = 1.0e-5

#: slider-fixed corner coordinates (sx * a, sy * b), corners 1..4 of eqs. (98)-(105)
CORNER_SX = (-1.0, 1.0, -1.0, 1.0)
CORNER_SY = (1.0, 1.0, -1.0, -1.0)


# ----------------------------------------------------------------------------------------------
# LCP solvers:  find z >= 0 with w = A z + b >= 0 and z . w = 0
# ----------------------------------------------------------------------------------------------


def lemke(A: np.ndarray, b: np.ndarray, max_pivots: int | None = None) -> np.ndarray | None:
    """Lemke's complementary pivoting algorithm with covering vector e = (1, ..., 1).

    The tableau stores the system  I w - A z - e z0 = b  (columns: w, z, z0, right-hand side).
    Starting from the trivial basis {w}, z0 enters so that all basic values become >= 0; after
    that the entering variable is always the complement of the one that just left, until z0
    leaves (solution found) or no pivot row exists (secondary ray: returns None).  Ties in the
    ratio test are broken lexicographically using the current basis inverse, which is exactly the
    w-block of the tableau; this rules out cycling on degenerate problems (our friction LCP has
    a zero right-hand side block, so degeneracy is the normal case, not an exception).
    """
    b = np.asarray(b, dtype=float)
    n = b.size
    if np.all(b >= 0.0):
        return np.zeros(n)
    A = np.asarray(A, dtype=float)
    rhs = 2 * n + 1
    tab = np.hstack([np.eye(n), -A, -np.ones((n, 1)), b[:, None]])
    basis = list(range(n))  # variable index basic in each row: w_i -> i, z_i -> n+i, z0 -> 2n
    z0 = 2 * n
    max_pivots = max_pivots or 50 * (n + 1)

    def pivot(row: int, col: int) -> None:
        tab[row] /= tab[row, col]
        others = np.arange(n) != row
        tab[others] -= np.outer(tab[others, col], tab[row])
        basis[row] = col

    # first pivot: z0 replaces the w with the most negative right-hand side
    row = int(np.argmin(tab[:, rhs]))
    leaving = basis[row]
    pivot(row, z0)
    entering = leaving + n  # complement of w_i is z_i
    scale = max(1.0, float(np.max(np.abs(A))))
    for _ in range(max_pivots):
        col = tab[:, entering]
        rows = np.flatnonzero(col > 1e-12 * scale)
        if rows.size == 0:
            return None  # secondary ray
        # lexicographic minimum ratio: compare (rhs, B^-1 row) / pivot-column entry
        keys = np.hstack([tab[rows, rhs : rhs + 1], tab[rows, :n]]) / col[rows, None]
        # prefer letting z0 leave when it ties on the ratio: the algorithm then terminates
        best = rows[np.lexsort(keys.T[::-1])[0]]
        ratio_best = tab[best, rhs] / col[best]
        for r in rows:
            if basis[r] == z0 and tab[r, rhs] / col[r] <= ratio_best + 1e-14 * scale:
                best = r
                break
        leaving = basis[best]
        pivot(best, entering)
        if leaving == z0:
            z = np.zeros(n)
            for r, var in enumerate(basis):
                if n <= var < 2 * n:
                    z[var - n] = tab[r, rhs]
            return np.maximum(z, 0.0)
        entering = leaving + n if leaving < n else leaving - n
    return None


def lcp_enumerate(A: np.ndarray, b: np.ndarray, tol: float = 1e-9) -> list[np.ndarray]:
    """All solutions of the LCP by enumeration of the 2^n complementary index sets.

    For an index set S the variables z_S are basic (w_S = 0) and z elsewhere is zero; a solution
    needs z_S >= 0 and w >= 0.  Exponential, so only for small n (tests and fallback).
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    n = b.size
    scale = max(1.0, float(np.max(np.abs(b))), float(np.max(np.abs(A))))
    sols = []
    for k in range(n + 1):
        for S in itertools.combinations(range(n), k):
            z = np.zeros(n)
            if k:
                idx = list(S)
                sub = A[np.ix_(idx, idx)]
                try:
                    zS = np.linalg.solve(sub, -b[idx])
                except np.linalg.LinAlgError:
                    zS, *_ = np.linalg.lstsq(sub, -b[idx], rcond=None)
                z[idx] = zS
            w = A @ z + b
            if z.min() >= -tol * scale and w.min() >= -tol * scale:
                if abs(z @ w) <= tol * scale * scale:
                    sols.append(np.maximum(z, 0.0))
    return sols


#: how often solve_lcp was called and how often Lemke had to be replaced by enumeration
LCP_STATS = {"calls": 0, "enumerated": 0}


def solve_lcp(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Lemke first; exhaustive enumeration if Lemke ends on a secondary ray.

    Lemke is only guaranteed to succeed for special matrix classes (e.g. copositive-plus), which
    the friction LCP (85) is not; random tests showed rare ray terminations even though a
    solution exists (typically: contacts separating while sliding).  Among several enumerated
    solutions the one with the smallest complementarity residual is returned.
    """
    LCP_STATS["calls"] += 1
    z = lemke(A, b)
    if z is not None:
        return z
    LCP_STATS["enumerated"] += 1
    sols = lcp_enumerate(A, b)
    if not sols:
        raise RuntimeError("LCP has no solution (neither Lemke nor enumeration found one)")

    def residual(s: np.ndarray) -> float:
        w = A @ s + b
        return float(max(-w.min(), 0.0) + abs(s @ w))

    return min(sols, key=residual)


# ----------------------------------------------------------------------------------------------
# Mechanics in minimal coordinates q = (theta1, theta2, theta3), eqs. (89)-(114)
# ----------------------------------------------------------------------------------------------


def mass_matrix(q: np.ndarray, p: SliderCrankParams = PARAMS) -> np.ndarray:
    """Generalized mass matrix, eqs. (90)-(94)."""
    k12 = (0.5 * p.m2 + p.m3) * p.l1 * p.l2 * math.cos(q[1] - q[0])
    return np.array(
        [
            [p.J1 + (0.25 * p.m1 + p.m2 + p.m3) * p.l1**2, k12, 0.0],
            [k12, p.J2 + (0.25 * p.m2 + p.m3) * p.l2**2, 0.0],
            [0.0, 0.0, p.J3],
        ]
    )


def force_vector(q: np.ndarray, u: np.ndarray, p: SliderCrankParams = PARAMS) -> np.ndarray:
    """Gyroscopic + gravity generalized forces h(q, u), eqs. (95)-(97)."""
    k = (0.5 * p.m2 + p.m3) * p.l1 * p.l2 * math.sin(q[1] - q[0])
    return np.array(
        [
            k * u[1] ** 2 - (0.5 * p.m1 + p.m2 + p.m3) * p.g * p.l1 * math.cos(q[0]),
            -k * u[0] ** 2 - (0.5 * p.m2 + p.m3) * p.g * p.l2 * math.cos(q[1]),
            0.0,
        ]
    )


def slider_pose(q: np.ndarray, p: SliderCrankParams = PARAMS) -> tuple[float, float, float]:
    """Slider centre (x, y) and rotation phi = theta3."""
    x = p.l1 * math.cos(q[0]) + p.l2 * math.cos(q[1])
    y = p.l1 * math.sin(q[0]) + p.l2 * math.sin(q[1])
    return x, y, q[2]


def corners(q: np.ndarray, p: SliderCrankParams = PARAMS) -> np.ndarray:
    """World coordinates of the four corners, shape (4, 2)."""
    x, y, phi = slider_pose(q, p)
    cp, sp = math.cos(phi), math.sin(phi)
    out = np.empty((4, 2))
    for i in range(4):
        px, py = CORNER_SX[i] * p.a, CORNER_SY[i] * p.b
        out[i] = (x + px * cp - py * sp, y + px * sp + py * cp)
    return out


def normal_gaps(q: np.ndarray, p: SliderCrankParams = PARAMS) -> np.ndarray:
    """g_N1..g_N4 of eqs. (98), (100), (102), (104); > 0 open, < 0 penetration."""
    yc = corners(q, p)[:, 1]
    half = 0.5 * p.d
    return np.array([half - yc[0], half - yc[1], half + yc[2], half + yc[3]])


def force_directions(q: np.ndarray, p: SliderCrankParams = PARAMS) -> tuple[np.ndarray, ...]:
    """W_N and W_T (3 x 4): columns are the gradients dg_Ni/dq and dg_Ti/dq, eqs. (106)-(113).

    Corner i sits at (x, y) + R(theta3) (sx a, sy b); its y-derivative w.r.t. theta3 is
    sx a cos - sy b sin and its x-derivative is -(sx a sin + sy b cos).  Upper-surface gaps are
    d/2 - y_i (sign -1), lower-surface gaps d/2 + y_i (sign +1); tangential "gaps" are x_i.
    """
    c1, s1 = math.cos(q[0]), math.sin(q[0])
    c2, s2 = math.cos(q[1]), math.sin(q[1])
    c3, s3 = math.cos(q[2]), math.sin(q[2])
    WN = np.empty((3, 4))
    WT = np.empty((3, 4))
    for i in range(4):
        px, py = CORNER_SX[i] * p.a, CORNER_SY[i] * p.b
        sign = -1.0 if i < 2 else 1.0
        WN[:, i] = (sign * p.l1 * c1, sign * p.l2 * c2, sign * (px * c3 - py * s3))
        WT[:, i] = (-p.l1 * s1, -p.l2 * s2, -(px * s3 + py * c3))
    return WN, WT


def energy(q: np.ndarray, u: np.ndarray, p: SliderCrankParams = PARAMS) -> float:
    """Kinetic + gravitational potential energy (zero potential at y = 0)."""
    T = 0.5 * u @ mass_matrix(q, p) @ u
    V = p.g * (
        (0.5 * p.m1 + p.m2 + p.m3) * p.l1 * math.sin(q[0])
        + (0.5 * p.m2 + p.m3) * p.l2 * math.sin(q[1])
    )
    return float(T + V)


# ----------------------------------------------------------------------------------------------
# One Moreau midpoint step with the frictional contact LCP (85)
# ----------------------------------------------------------------------------------------------


def moreau_step(
    q: np.ndarray, u: np.ndarray, h: float, p: SliderCrankParams = PARAMS
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Advance (q_A, u_A) by one step h; returns (q_E, u_E, P_N, P_T) with 4-vectors P_N, P_T.

    Unknowns of the LCP for the k active contacts (all 3k-vectors are stacked per block):

        x = (P_N, P_R, xi_L),   y = (xi_N, xi_R, P_L) = A x + b,   0 <= y  _|_  x >= 0

    where P_R = mu P_N + P_T and P_L = mu P_N - P_T are the distances of the friction impulse to
    the two ends of the Coulomb interval, and xi_T = xi_R - xi_L splits the tangential velocity
    measure into its positive and negative parts.  With G_XY = W_X^T M^-1 W_Y:

        A = [[G_NN - G_NT mu,  G_NT,  0],      b = [W_N^T u_free + e_N gamma_NA,
             [G_TN - G_TT mu,  G_TT,  I],           W_T^T u_free + e_T gamma_TA,
             [2 mu,            -I,    0]]           0]

    with u_free = u_A + M^-1 h_M h (the contact-free end velocity) and gamma_XA = W_X^T u_A
    (the rheonomic terms w~ of (114) vanish).
    """
    qM = q + 0.5 * h * u
    M = mass_matrix(qM, p)
    f = force_vector(qM, u, p)
    # M is block-diagonal: 2x2 (crank, rod) and J3 (slider); solve without a general LU
    det = M[0, 0] * M[1, 1] - M[0, 1] ** 2
    Minv = np.array(
        [
            [M[1, 1] / det, -M[0, 1] / det, 0.0],
            [-M[0, 1] / det, M[0, 0] / det, 0.0],
            [0.0, 0.0, 1.0 / p.J3],
        ]
    )
    u_free = u + h * (Minv @ f)
    PN = np.zeros(4)
    PT = np.zeros(4)
    gM = normal_gaps(qM, p)
    act = np.flatnonzero(gM <= 0.0)  # active set H at the midpoint (paper, after (44))
    if act.size == 0:
        uE = u_free
    else:
        k = act.size
        WN_all, WT_all = force_directions(qM, p)
        WN, WT = WN_all[:, act], WT_all[:, act]
        mu = p.mu * np.eye(k)
        I = np.eye(k)
        MWN, MWT = Minv @ WN, Minv @ WT
        GNN, GNT = WN.T @ MWN, WN.T @ MWT
        GTN, GTT = WT.T @ MWN, WT.T @ MWT
        A = np.zeros((3 * k, 3 * k))
        A[:k, :k] = GNN - GNT @ mu
        A[:k, k : 2 * k] = GNT
        A[k : 2 * k, :k] = GTN - GTT @ mu
        A[k : 2 * k, k : 2 * k] = GTT
        A[k : 2 * k, 2 * k :] = I
        A[2 * k :, :k] = 2.0 * mu
        A[2 * k :, k : 2 * k] = -I
        bvec = np.concatenate(
            [
                WN.T @ u_free + p.eps_N * (WN.T @ u),
                WT.T @ u_free + p.eps_T * (WT.T @ u),
                np.zeros(k),
            ]
        )
        if np.all(bvec[:k] >= 0.0):
            # Every active contact separates at the contact-free velocity: x = (0, 0, xi_L) with
            # xi_L = max(-b_T, 0) solves (85) exactly (first block: b_N >= 0; second block:
            # b_T + xi_L >= 0 against P_R = 0; third: P_L = 0 against xi_L).  Handled directly
            # because Lemke can end on a ray for exactly this sliding-away case.
            x = np.zeros(3 * k)
        else:
            x = solve_lcp(A, bvec)
        pn = x[:k]
        pt = x[k : 2 * k] - p.mu * pn
        uE = u_free + MWN @ pn + MWT @ pt
        PN[act] = pn
        PT[act] = pt
    qE = qM + 0.5 * h * uE
    return qE, uE, PN, PT


# ----------------------------------------------------------------------------------------------
# Simulation and results
# ----------------------------------------------------------------------------------------------


@dataclass
class Result:
    """Time histories on the grid t_k = k h.  Row k of P_N / P_T holds the impulses of the step
    that ENDS at t_k (row 0 is zero); lambda_N / lambda_T = P / h are the step-averaged forces.
    Gaps follow the convention of the module docstring (>0 open, <0 penetration)."""

    t: np.ndarray  #: (n,) times [s]
    q: np.ndarray  #: (n, 3) generalized coordinates (theta1, theta2, theta3) [rad]
    u: np.ndarray  #: (n, 3) generalized velocities [rad/s]
    theta: np.ndarray  #: (n,) crank angle, unwrapped [rad]
    omega: np.ndarray  #: (n,) crank speed [rad/s]
    x: np.ndarray  #: (n,) slider centre x [m]
    y: np.ndarray  #: (n,) slider centre y (0 = guide centre line) [m]
    phi: np.ndarray  #: (n,) slider rotation [rad]
    vx: np.ndarray  #: (n,) slider centre x-velocity [m/s]
    vy: np.ndarray  #: (n,) slider centre y-velocity [m/s]
    phidot: np.ndarray  #: (n,) slider angular velocity [rad/s]
    gaps: np.ndarray  #: (n, 4) normal gaps g_N1..g_N4 [m]
    P_N: np.ndarray  #: (n, 4) normal impulses per step [N s]
    P_T: np.ndarray  #: (n, 4) tangential impulses per step (along +x) [N s]
    lambda_N: np.ndarray  #: (n, 4) P_N / h [N]
    lambda_T: np.ndarray  #: (n, 4) P_T / h [N]
    energy: np.ndarray  #: (n,) kinetic + potential energy [J]
    h: float
    wall_time: float
    lcp_calls: int = 0  #: steps whose LCP had to be solved (some active contact not separating)
    lcp_enumerated: int = 0  #: of those, how many needed the enumeration fallback
    params: SliderCrankParams = field(default=PARAMS)


def simulate(
    h: float = DEFAULT_H,
    t_end: float | None = None,
    params: SliderCrankParams = PARAMS,
    max_time: float = 1.0,
) -> Result:
    """Run the paper's case with Moreau's midpoint scheme and the LCP (85).

    With ``t_end=None`` the run stops at the first step where the crank has advanced by two full
    revolutions (4 pi) from its initial angle; ``max_time`` guards against a stalled crank.
    """
    p = params
    t0 = time.perf_counter()
    stats0 = dict(LCP_STATS)
    n_max = int(math.ceil((t_end if t_end is not None else max_time) / h - 1e-9))
    q = p.q0.astype(float)
    u = p.u0.astype(float)
    Q = [q.copy()]
    U = [u.copy()]
    PNs = [np.zeros(4)]
    PTs = [np.zeros(4)]
    target = p.theta10 + 4.0 * math.pi
    for _ in range(n_max):
        q, u, PN, PT = moreau_step(q, u, h, p)
        Q.append(q)
        U.append(u)
        PNs.append(PN)
        PTs.append(PT)
        if t_end is None and q[0] >= target:
            break
    else:
        if t_end is None:
            raise RuntimeError(f"crank did not complete two revolutions within {max_time} s")
    Q = np.array(Q)
    U = np.array(U)
    PN = np.array(PNs)
    PT = np.array(PTs)
    t = h * np.arange(Q.shape[0])
    c1, s1 = np.cos(Q[:, 0]), np.sin(Q[:, 0])
    c2, s2 = np.cos(Q[:, 1]), np.sin(Q[:, 1])
    gaps = np.array([normal_gaps(qk, p) for qk in Q])
    en = np.array([energy(qk, uk, p) for qk, uk in zip(Q, U, strict=True)])
    return Result(
        t=t,
        q=Q,
        u=U,
        theta=Q[:, 0].copy(),
        omega=U[:, 0].copy(),
        x=p.l1 * c1 + p.l2 * c2,
        y=p.l1 * s1 + p.l2 * s2,
        phi=Q[:, 2].copy(),
        vx=-p.l1 * s1 * U[:, 0] - p.l2 * s2 * U[:, 1],
        vy=p.l1 * c1 * U[:, 0] + p.l2 * c2 * U[:, 1],
        phidot=U[:, 2].copy(),
        gaps=gaps,
        P_N=PN,
        P_T=PT,
        lambda_N=PN / h,
        lambda_T=PT / h,
        energy=en,
        h=h,
        wall_time=time.perf_counter() - t0,
        lcp_calls=LCP_STATS["calls"] - stats0["calls"],
        lcp_enumerated=LCP_STATS["enumerated"] - stats0["enumerated"],
        params=p,
    )


# ----------------------------------------------------------------------------------------------
# Quantities compared by the tests
# ----------------------------------------------------------------------------------------------


def first_impact_time(res: Result) -> float:
    """Time at which a slider corner first reaches a guide surface.

    The first step with a positive normal impulse is located; inside it, the contact time is
    taken where the corner's gap, extrapolated linearly from the step start with its pre-impact
    normal velocity gamma_NA = w_N^T u_A, reaches zero (clipped to the step).  This is O(h^2)
    accurate in free flight, whereas the step index alone is only O(h).
    """
    k = np.flatnonzero(res.P_N.max(axis=1) > 0.0)
    if k.size == 0:
        return math.nan
    kE = int(k[0])
    kA = kE - 1
    i = int(np.argmax(res.P_N[kE]))
    WN, _ = force_directions(res.q[kA], res.params)
    g = res.gaps[kA, i]
    rate = float(WN[:, i] @ res.u[kA])
    dt = g / -rate if rate < 0.0 else 0.5 * res.h
    return float(res.t[kA] + min(max(dt, 0.0), res.h))


def contact_mask(res: Result, tol: float | None = None) -> np.ndarray:
    """(n,) True where at least one corner is closed: its gap is below ``tol`` (default 1 % of
    the clearance c) or it received a normal impulse in the step ending there."""
    tol = 0.01 * res.params.c if tol is None else tol
    return (res.gaps.min(axis=1) <= tol) | (res.P_N.max(axis=1) > 0.0)


def permanent_contact_angle(
    res: Result, tol: float | None = None, min_span: float = math.radians(10.0)
) -> float:
    """Crank angle (rad, measured from the initial crank angle) at which the slider first enters
    permanent contact with the guide.

    What the paper describes (text with Figs. 10 and 11): the slider first flies freely, then
    hits a guide surface and rebounds a few times, and then stays in "permanent contact" with
    the surface for a long stretch of the motion, where the crank and rod speeds vary smoothly.
    In this model that pattern repeats every half crank revolution (contact alternates between
    the upper and the lower surface); this function returns the start of the FIRST permanent
    contact stretch, i.e. the end of the first impact-rebound sequence.

    Numerical definition.  A sample counts as "in contact" when some corner's gap is at most
    ``tol`` (default 1 % of the clearance c, i.e. 10 micrometres; invisible on the paper's
    corner plots) or a normal impulse acted in the step (see ``contact_mask``).  Permanent
    contact starts at the first sample from which the contact flag stays set without
    interruption for at least ``min_span`` of crank rotation (default 10 degrees).  Reasons:
    with e_N = 0.4 the rebound heights shrink by roughly e_N^2 per bounce, so the sequence
    accumulates at a finite crank angle; bounces lower than ``tol`` are counted as contact,
    which makes the result insensitive to the numerical micro-bounces of the Moreau scheme
    (their height scales with h^2 and is ~1e-4 c at h = 1e-5 s) and to the exact impact
    resolution of other methods.  The earlier, higher rebounds break the contact flag, so they
    are not mistaken for permanent contact.  Returns NaN if there is no such stretch.
    """
    mask = contact_mask(res, tol)
    th = res.theta - res.theta[0]
    n = mask.size
    k = 0
    while k < n:
        if not mask[k]:
            k += 1
            continue
        j = k
        while j + 1 < n and mask[j + 1]:
            j += 1
        if th[j] - th[k] >= min_span:
            return float(th[k])
        k = j + 1
    return math.nan


def revolution_time(res: Result, n: int = 2) -> float:
    """Time at which the crank has turned by n * 2 pi from its start (linear interpolation)."""
    target = res.theta[0] + 2.0 * math.pi * n
    k = np.flatnonzero(res.theta >= target)
    if k.size == 0:
        return math.nan
    j = int(k[0])
    if j == 0:
        return float(res.t[0])
    th0, th1 = res.theta[j - 1], res.theta[j]
    return float(res.t[j - 1] + (target - th0) / (th1 - th0) * (res.t[j] - res.t[j - 1]))


def corner_paths(res: Result) -> tuple[np.ndarray, np.ndarray]:
    """Dimensionless corner coordinates (X, Y), each of shape (n, 4), corners 1..4.

    X_i = (x_i - x_i_bdc) / (2 l1): 0 when the ideal mechanism is at its inner (bottom) dead
    centre, 1 at its outer (top) dead centre, i.e. the stroke fraction (the normalisation the
    same group uses for slider paths in flores_et_al_2008, Fig. 9d).
    Y_i = (y_i - y_i_centred) / c: the corner's lateral excursion in units of the clearance,
    so that Y = +1 means an upper corner (1, 2) touches the upper surface and Y = -1 a lower
    corner (3, 4) the lower one; a centred, aligned slider has Y = 0 for all corners.
    """
    p = res.params
    X = np.empty((res.t.size, 4))
    Y = np.empty((res.t.size, 4))
    c3, s3 = np.cos(res.phi), np.sin(res.phi)
    for i in range(4):
        px, py = CORNER_SX[i] * p.a, CORNER_SY[i] * p.b
        xi = res.x + px * c3 - py * s3
        yi = res.y + px * s3 + py * c3
        X[:, i] = (xi - (p.l2 - p.l1 + px)) / (2.0 * p.l1)
        Y[:, i] = (yi - py) / p.c
    return X, Y


def summary(res: Result) -> dict[str, float]:
    return {
        "first_impact_time": first_impact_time(res),
        "permanent_contact_angle": permanent_contact_angle(res),
        "revolution_time": revolution_time(res, 2),
        "wall_time": res.wall_time,
    }


if __name__ == "__main__":
    # The paper states no step size: DEFAULT_H (our choice) and two smaller steps.
    print(
        f"{'h [s]':>8} {'1st impact [ms]':>15} {'perm. contact [deg]':>19} "
        f"{'2 revs [ms]':>11} {'omega_end':>9} {'LCPs':>6} {'enum':>4} {'wall [s]':>8}"
    )
    for step in (DEFAULT_H, 5e-6, 1e-6):
        r = simulate(step)
        s = summary(r)
        print(
            f"{step:8.1e} {1e3 * s['first_impact_time']:15.4f} "
            f"{math.degrees(s['permanent_contact_angle']):19.2f} "
            f"{1e3 * s['revolution_time']:11.4f} {r.omega[-1]:9.3f} {r.lcp_calls:6d} "
            f"{r.lcp_enumerated:4d} {s['wall_time']:8.2f}"
        )
