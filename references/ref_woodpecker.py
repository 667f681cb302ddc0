"""Independent reference: Glocker's woodpecker toy in minimal coordinates, Moreau + LCP.

Numpy only (the LCP solver is references/ref_slider_crank_lcp.py's Lemke); no nlpmbd import.

The model is the one of Pfeiffer and Glocker (1996) and Leine, Glocker and van Campen (2003),
as the Siconos tutorial `examples/mechanics/Woodpecker` states it: q = (y, phi_M, phi_S), the
sleeve's height, the sleeve's tilt and the bird's tilt (both counter-clockwise, the pole at
x = 0 on the left of the bird). The sleeve's centre stays on the pole's axis (its horizontal
play is neglected); the bird hangs on a pin at l_M to the right of the sleeve's centre, its
centre of mass l_G further, and a torsion spring c_phi (rest angle 0) joins the two tilts. The
beak is the bird point (-l_S, h_S) from its centre of mass; the sleeve touches the pole with
the two right edges of its hole, (r_M, -h_M) and (r_M, +h_M) in the sleeve's frame, against the
pole's surface x = r_O. Tangential directions: +y (vertical) at all three contacts.

Two forms of the same bodies:

* ``linear=True``: the small-angle form the Siconos reference integrates (constant mass
  matrix, linear gaps g_N1 = l_M + l_G - l_S - r_O - h_S phi_S, g_N2,3 = r_M - r_O +- h_M phi_M,
  constant W_T, gravity's generalised forces at zero angles);
* ``linear=False``: the rigid bodies at finite angles (the mass matrix of the bird's centre's
  Jacobian, its velocity term, the gaps and directions of the three points at finite angles).

``contacts_linear`` (default: ``linear``) sets the form of the contacts' gaps and directions
apart from that of the dynamics (mass matrix and forces), to tell which part of the
linearisation moves the limit cycle.

Time stepping: Moreau's midpoint scheme with one frictional LCP per step (Flores, Leine and
Glocker's eq. (85), as in ref_slider_crank_lcp.moreau_step): q_M = q_A + h u_A / 2, the contacts
with g_N(q_M) <= 0 active, Newton's restitution per contact on the normal velocity, Coulomb
friction with tangential restitution 0, q_E = q_M + h u_E / 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from references.ref_slider_crank_lcp import solve_lcp


@dataclass(frozen=True)
class WoodpeckerParams:
    """The Siconos tutorial's WoodPeckerConsts.h (SI units)."""

    m_M: float = 0.0003  #: sleeve mass
    m_S: float = 0.0045  #: bird mass
    J_M: float = 5.0e-9  #: sleeve moment of inertia about its centre
    J_S: float = 7.0e-7  #: bird moment of inertia about its centre of mass
    r_O: float = 0.0025  #: pole radius
    r_M: float = 0.0031  #: sleeve hole radius
    h_M: float = 0.0058  #: half height of the sleeve
    l_M: float = 0.010  #: sleeve centre to the bird's pin
    l_G: float = 0.015  #: pin to the bird's centre of mass
    h_S: float = 0.02  #: beak above the bird's centre of mass
    l_S: float = 0.0201  #: beak towards the pole from the bird's centre of mass
    c_phi: float = 0.0056  #: torsion spring (N m / rad)
    g: float = 9.81
    mu: float = 0.3  #: Coulomb friction, all three contacts
    e_beak: float = 0.5  #: Newton restitution of the beak
    e_sleeve: float = 0.0  #: Newton restitution of the sleeve's edges
    q0: tuple[float, float, float] = (0.0, -0.1036, -0.2788)
    u0: tuple[float, float, float] = (-0.3411, 0.0, -7.4583)


PARAMS = WoodpeckerParams()


def sleeve_touching_angle(p: WoodpeckerParams = PARAMS) -> float:
    """The tilt phi_M < 0 at which the lower edge (r_M, -h_M) touches the pole at finite angles:
    r_M cos phi + h_M sin phi = r_O."""
    radius, angle = math.hypot(p.r_M, p.h_M), math.atan2(p.h_M, p.r_M)
    return angle - math.acos(p.r_O / radius)


class Model:
    """Mass matrix, forces, gaps and contact directions of one form (linear or finite angles)."""

    def __init__(
        self, p: WoodpeckerParams = PARAMS, linear: bool = True, contacts_linear: bool | None = None
    ) -> None:
        self.p, self.linear = p, linear
        self.contacts_linear = linear if contacts_linear is None else contacts_linear
        self.e = np.array([p.e_beak, p.e_sleeve, p.e_sleeve])

    def _bird(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The bird centre's Jacobian (2 x 3) and its velocity-product vector (per u^2)."""
        p = self.p
        if self.linear:
            return np.array([[0.0, 0.0, 0.0], [1.0, p.l_M, p.l_G]]), np.zeros((2, 3))
        sa, ca, sb, cb = math.sin(q[1]), math.cos(q[1]), math.sin(q[2]), math.cos(q[2])
        jac = np.array([[0.0, -p.l_M * sa, -p.l_G * sb], [1.0, p.l_M * ca, p.l_G * cb]])
        curv = np.array([[0.0, -p.l_M * ca, -p.l_G * cb], [0.0, -p.l_M * sa, -p.l_G * sb]])
        return jac, curv

    def mass(self, q: np.ndarray) -> np.ndarray:
        p = self.p
        jac = self._bird(q)[0]
        return np.diag([p.m_M, p.J_M, p.J_S]) + p.m_S * jac.T @ jac

    def forces(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Gravity, spring and (finite angles) the bird's centripetal term."""
        p = self.p
        jac, curv = self._bird(q)
        gravity = -p.g * (p.m_M * np.array([1.0, 0.0, 0.0]) + p.m_S * jac[1])
        spring = -p.c_phi * (q[1] - q[2]) * np.array([0.0, 1.0, -1.0])
        return gravity + spring - p.m_S * jac.T @ (curv @ (u * u))

    def gaps(self, q: np.ndarray) -> np.ndarray:
        """g_N1 (beak), g_N2 (lower edge), g_N3 (upper edge); > 0 open."""
        p = self.p
        a, b = q[1], q[2]
        if self.contacts_linear:
            return np.array(
                [
                    p.l_M + p.l_G - p.l_S - p.r_O - p.h_S * b,
                    p.r_M - p.r_O + p.h_M * a,
                    p.r_M - p.r_O - p.h_M * a,
                ]
            )
        sa, ca, sb, cb = math.sin(a), math.cos(a), math.sin(b), math.cos(b)
        return np.array(
            [
                p.l_M * ca + (p.l_G - p.l_S) * cb - p.h_S * sb - p.r_O,
                p.r_M * ca + p.h_M * sa - p.r_O,
                p.r_M * ca - p.h_M * sa - p.r_O,
            ]
        )

    def directions(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """W_N and W_T (3 x 3, a column per contact): the gaps' gradients and the contact
        points' vertical velocity rows."""
        p = self.p
        a, b = (0.0, 0.0) if self.contacts_linear else (q[1], q[2])  # zero angles: the linear form
        sa, ca, sb, cb = math.sin(a), math.cos(a), math.sin(b), math.cos(b)
        lb = p.l_G - p.l_S
        WN = np.array(
            [
                [0.0, -p.l_M * sa, -lb * sb - p.h_S * cb],
                [0.0, -p.r_M * sa + p.h_M * ca, 0.0],
                [0.0, -p.r_M * sa - p.h_M * ca, 0.0],
            ]
        ).T
        WT = np.array(
            [
                [1.0, p.l_M * ca, lb * cb - p.h_S * sb],
                [1.0, p.r_M * ca + p.h_M * sa, 0.0],
                [1.0, p.r_M * ca - p.h_M * sa, 0.0],
            ]
        ).T
        return WN, WT


def _impulses(A: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    if np.all(b[:k] >= 0.0):  # every active contact separates at the contact-free velocity
        return np.zeros(3 * k)
    return solve_lcp(A, b)


def moreau_step(
    model: Model, q: np.ndarray, u: np.ndarray, h: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One midpoint step; returns q_E, u_E and the normal impulses P_N (3,)."""
    qM = q + 0.5 * h * u
    Minv = np.linalg.inv(model.mass(qM))
    u_free = u + h * Minv @ model.forces(qM, u)
    PN = np.zeros(3)
    act = np.flatnonzero(model.gaps(qM) <= 0.0)
    if act.size == 0:
        return qM + 0.5 * h * u_free, u_free, PN
    k, mu = act.size, model.p.mu
    WN_all, WT_all = model.directions(qM)
    WN, WT = WN_all[:, act], WT_all[:, act]
    MWN, MWT = Minv @ WN, Minv @ WT
    eye = np.eye(k)
    A = np.zeros((3 * k, 3 * k))
    A[:k, :k] = WN.T @ MWN - mu * WN.T @ MWT
    A[:k, k : 2 * k] = WN.T @ MWT
    A[k : 2 * k, :k] = WT.T @ MWN - mu * WT.T @ MWT
    A[k : 2 * k, k : 2 * k] = WT.T @ MWT
    A[k : 2 * k, 2 * k :] = eye
    A[2 * k :, :k] = 2.0 * mu * eye
    A[2 * k :, k : 2 * k] = -eye
    b = np.concatenate([WN.T @ u_free + model.e[act] * (WN.T @ u), WT.T @ u_free, np.zeros(k)])
    x = _impulses(A, b, k)
    pn, pt = x[:k], x[k : 2 * k] - mu * x[:k]
    uE = u_free + MWN @ pn + MWT @ pt
    PN[act] = pn
    return qM + 0.5 * h * uE, uE, PN


@dataclass
class Result:
    t: np.ndarray  #: (n,) s
    q: np.ndarray  #: (n, 3) y (m), phi_M, phi_S (rad)
    u: np.ndarray  #: (n, 3)
    P_N: np.ndarray  #: (n, 3) normal impulses of the step ending at t[k] (N s)


def simulate(
    h: float = 2e-5,
    t_end: float = 0.3,
    linear: bool = True,
    q0: tuple[float, float, float] | None = None,
    u0: tuple[float, float, float] | None = None,
    p: WoodpeckerParams = PARAMS,
    contacts_linear: bool | None = None,
) -> Result:
    """The woodpecker from (q0, u0) (default: the reference's initial state) to t_end."""
    model = Model(p, linear, contacts_linear)
    n = int(round(t_end / h))
    q = np.empty((n + 1, 3))
    u = np.empty((n + 1, 3))
    PN = np.zeros((n + 1, 3))
    q[0], u[0] = q0 if q0 is not None else p.q0, u0 if u0 is not None else p.u0
    for k in range(n):
        q[k + 1], u[k + 1], PN[k + 1] = moreau_step(model, q[k], u[k], h)
    return Result(np.arange(n + 1) * h, q, u, PN)
