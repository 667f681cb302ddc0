"""Independent reference for the slider-crank of Flores, Ambrosio, Claro and Lankarani (2008),
"Translational joints with clearance in rigid multibody systems", ASME J. Comput. Nonlinear
Dynam. 3(1), 011007 ([R3] of docs/FORMULATION.md).

Two things live here:

* ``PARAMS``: every number the paper gives for its example (Tables 1 and 2 and the text of its
  section 5), plus the contact stiffnesses derived from the paper's own formulas, each with the
  place it comes from. Values the paper does not give are ``None`` or are marked ASSUMED.
* ``ideal_slider_crank``: the closed-form solution of the same mechanism with an IDEAL
  translational joint (no clearance) and the crank at constant angular speed. No ODE is
  integrated: the kinematics come from the loop-closure equations and the driving moment from the
  power balance  M_drive * omega = dT/dt + dV/dt.

Geometry convention (the paper's Fig. 8 is not in the seed copy, so this is ours; everything
the text does say is consistent with it):

* planar, global frame XY, Z out of the plane; angles counter-clockwise from +X;
* the crank pivot O (ground, body 1) is the origin;
* the guide axis is the X axis and passes through O (in-line mechanism, no offset);
* crank (body 2) from O to the crank pin B, angle theta = theta0 + omega t, omega > 0;
* connecting rod (body 3) from B to the rod-slider pin C, angle phi (of the vector C - B);
* slider (body 4): the pin C sits at the slider's centre of mass, which lies on the guide axis;
* centres of mass of crank and rod at mid-length (ASSUMED: Table 1 gives no positions);
* theta0 = 0 is the "top dead end" of the paper: the slider is farthest from O, x = r + l;
* gravity: the paper never mentions it, so ``PARAMS["gravity"] = 0``. If it is set non-zero
  it acts along -Y (perpendicular to the guide, in the plane) and enters V.

Run ``python tests/ref_slider_crank_ideal.py`` for the self-checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_RPM = 2.0 * np.pi / 60.0  # rad/s per rpm


def _sigma(young: float, poisson: float) -> float:
    """Material compliance sigma_k = (1 - nu_k^2) / E_k, paper Eq. (18)."""
    return (1.0 - poisson**2) / young


def _stiffness_corner(radius: float, sigma_i: float, sigma_j: float) -> float:
    """Sphere (slider corner rounded to ``radius``) against a plane, paper Eq. (17) [N/m^1.5]."""
    return 4.0 / (3.0 * (sigma_i + sigma_j)) * np.sqrt(radius)


def _stiffness_flat(half_side: float, sigma_i: float, sigma_j: float) -> float:
    """Square flat face of side 2a pressed on a plane, linear law, paper Eq. (20) [N/m]."""
    return half_side / (0.475 * (sigma_i + sigma_j))


_E = 207.0e9  # Table 2
_NU = 0.3  # Table 2
_SIG = _sigma(_E, _NU)

PARAMS: dict = {
    # ---- geometry and inertia, Table 1 (bodies numbered as in the paper; 1 = ground) ----------
    "crank_length": 0.05,  # m, Table 1, body 2
    "crank_mass": 0.30,  # kg, Table 1, body 2
    "crank_inertia": 0.00010,  # kg m^2 about its centre of mass, Table 1, body 2
    "rod_length": 0.12,  # m, Table 1, body 3 (connecting rod)
    "rod_mass": 0.21,  # kg, Table 1, body 3
    "rod_inertia": 0.00025,  # kg m^2 about its centre of mass, Table 1, body 3
    "slider_mass": 0.14,  # kg, Table 1, body 4 (no length in Table 1)
    "slider_inertia": 0.00010,  # kg m^2 about its centre of mass, Table 1, body 4
    # Centre-of-mass positions as a fraction of the link length from its first joint (O for the
    # crank, B for the rod). ASSUMED mid-length: Table 1 and the text give no positions.
    "crank_com_fraction": 0.5,
    "rod_com_fraction": 0.5,
    # Offset of the guide axis from the crank pivot: none is mentioned (ASSUMED in-line).
    "guide_offset": 0.0,  # m
    # ---- slider and guide, Table 2 and Eq. (7) -------------------------------------------------
    "slider_length": 0.050,  # m, L in Fig. 2, Table 2 "Slider length 50.0 mm"
    "slider_width": 0.050,  # m, W in Fig. 2 (across the guide), Table 2 "Slider width 50.0 mm"
    "slider_thickness": 0.050,  # m, out of plane, Table 2 "Slider thickness 50.0 mm"
    "corner_radius": 0.001,  # m, rounding assumed at each corner, Table 2 and section 4.2
    "clearance": 0.5e-3,  # m, c of Eq. (7), Table 2 "Clearance size 0.5 mm" (base case)
    "clearance_sweep": (0.5e-3, 0.2e-3, 0.1e-3, 0.01e-3),  # m, section 5 text, Figs. 10-12
    # Distance between the guide surfaces H = W + 2c (Eq. (7)); 51 mm for the base case. It is
    # not recomputed: when changing "clearance", change "guide_gap" with it.
    "guide_gap": 0.050 + 2 * 0.5e-3,  # m
    # Guide length (P-Q in Fig. 4): not given in the paper.
    "guide_length": None,
    # ---- contact, Table 2 and section 4 ----------------------------------------------------
    "restitution": 0.9,  # e in Eq. (21), Table 2
    "young_modulus": _E,  # Pa, Table 2 (one value: slider and guide same material, ASSUMED)
    "poisson_ratio": _NU,  # Table 2
    "sigma": _SIG,  # 1/Pa, (1 - nu^2)/E, Eq. (18); sigma_i = sigma_j
    "hertz_exponent": 1.5,  # n in Eqs. (16), (21), "equal to 1.5 for metals", section 4.1
    # Corner (one corner, or two opposite corners) against a guide face: sphere of radius R on a
    # plane, Eq. (17) -> 4/(3 (2 sigma)) sqrt(R) = 4.80e9 N/m^1.5. Derived, not printed.
    "stiffness_corner": _stiffness_corner(0.001, _SIG, _SIG),
    # Whole face (two adjacent corners) on a guide face: linear law Eq. (19) with Eq. (20),
    # square contact of side 2a; we take 2a = 50 mm (slider length = thickness = 50 mm), so
    # a = 25 mm and K = a / (0.475 (2 sigma)) = 5.99e9 N/m. Derived, not printed.
    "stiffness_flat": _stiffness_flat(0.025, _SIG, _SIG),
    # Friction, Eqs. (22)-(23): the example is frictionless (section 5 "The impact between the
    # slider and guide surfaces is frictionless"), so no c_f, v0 or v1 is given.
    "friction_coefficient": 0.0,  # section 5 (frictionless)
    "friction_v0": None,  # m/s, Eq. (23), value not given
    "friction_v1": None,  # m/s, Eq. (23), value not given
    # ---- integration, Table 2 and section 1 --------------------------------------------------
    "baumgarte_alpha": 5.0,  # Eq. (6), Table 2
    "baumgarte_beta": 5.0,  # Eq. (6), Table 2
    "step_size": 1.0e-5,  # s, Table 2 "Integration step size" (the integrator is a variable
    # step, variable order predictor-corrector, Shampine-Gordon, section 1)
    "tolerance": 1.0e-6,  # Table 2 "Integration tolerance"
    # ---- driving and initial state, section 5 ---------------------------------------------
    "crank_speed_rpm": 5000.0,  # section 5, constant, imposed by a kinematic driving constraint
    "omega": 5000.0 * _RPM,  # rad/s (523.6)
    "theta0": 0.0,  # rad, section 5: the simulation starts at the "top dead end" (x = r + l)
    # Section 5: the slider starts centred between the guide surfaces (lateral offset 0, no
    # tilt). Section 1: the initial velocities come from an ideal-joint kinematic analysis, which
    # is what ideal_slider_crank(0) returns (slider velocity 0 at the dead end).
    "slider_initial_lateral_offset": 0.0,  # m
    "slider_initial_tilt": 0.0,  # rad
    "plotted_crank_turns": 2,  # Fig. 9 shows two full crank rotations (0.024 s)
    # ---- gravity: not mentioned anywhere in the paper ---------------------------------------
    "gravity": 0.0,  # m/s^2, acts along -Y when non-zero
}


@dataclass(frozen=True)
class IdealSliderCrank:
    """Closed-form ideal-joint response. All arrays have the shape of ``t``; SI units.

    Angles are counter-clockwise from +X. ``driving_moment`` is the moment (about +Z) the driver
    applies to the crank. ``lateral_force`` is the Y force of the guide on the slider (the ideal
    joint's normal reaction; friction-free). ``pin_force_c`` is the force of the rod on the slider
    at C, shape t.shape + (2,).
    """

    t: np.ndarray
    theta: np.ndarray  # crank angle
    omega: float  # crank angular speed
    phi: np.ndarray  # connecting-rod angle
    phi_dot: np.ndarray
    phi_ddot: np.ndarray
    x: np.ndarray  # slider (pin C) position along the guide
    x_dot: np.ndarray
    x_ddot: np.ndarray
    kinetic_energy: np.ndarray  # T, all three moving bodies
    kinetic_energy_rate: np.ndarray  # dT/dt, analytic
    potential_energy: np.ndarray  # V (zero when gravity is zero)
    potential_energy_rate: np.ndarray  # dV/dt, analytic
    driving_moment: np.ndarray  # (dT/dt + dV/dt) / omega
    lateral_force: np.ndarray
    pin_force_c: np.ndarray


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """z component of a x b for arrays of 2-vectors (last axis)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _stack(xc: np.ndarray, yc: np.ndarray) -> np.ndarray:
    return np.stack([xc, yc], axis=-1)


def ideal_slider_crank(t: np.ndarray, params: dict = PARAMS) -> IdealSliderCrank:
    """Ideal slider-crank with the crank at constant omega, closed form.

    Loop closure with B = r (cos theta, sin theta), C = (x, e), C - B = l (cos phi, sin phi):
        sin phi = (e - r sin theta) / l,  cos phi = +sqrt(1 - sin^2 phi)  (slider on the +X side)
        x = r cos theta + l cos phi
    Differentiating (theta_dot = omega, theta_ddot = 0):
        phi_dot  = -r omega cos theta / (l cos phi)
        phi_ddot = (r omega^2 sin theta + l phi_dot^2 sin phi) / (l cos phi)
        x_dot    = -r omega sin theta - l phi_dot sin phi
        x_ddot   = -r omega^2 cos theta - l phi_dot^2 cos phi - l phi_ddot sin phi
    Energy: T = sum_k (1/2 m_k |v_k|^2 + 1/2 J_k w_k^2), dT/dt = sum_k (m_k v_k.a_k + J_k w_k
    alpha_k); V = g sum_k m_k y_k, dV/dt = g sum_k m_k y_dot_k; M_drive = (dT/dt + dV/dt)/omega.
    """
    p = params
    t = np.asarray(t, dtype=float)
    r, l_rod = p["crank_length"], p["rod_length"]
    m2, m3, m4 = p["crank_mass"], p["rod_mass"], p["slider_mass"]
    j2, j3 = p["crank_inertia"], p["rod_inertia"]
    a2 = p["crank_com_fraction"] * r  # O -> G2
    b3 = p["rod_com_fraction"] * l_rod  # B -> G3
    e = p["guide_offset"]
    g = p["gravity"]
    w = float(p["omega"])

    theta = p["theta0"] + w * t
    ct, st = np.cos(theta), np.sin(theta)
    sphi = (e - r * st) / l_rod
    cphi = np.sqrt(1.0 - sphi**2)
    phi = np.arctan2(sphi, cphi)
    phi_d = -r * w * ct / (l_rod * cphi)
    phi_dd = (r * w**2 * st + l_rod * phi_d**2 * sphi) / (l_rod * cphi)
    x = r * ct + l_rod * cphi
    x_d = -r * w * st - l_rod * phi_d * sphi
    x_dd = -r * w**2 * ct - l_rod * phi_d**2 * cphi - l_rod * phi_dd * sphi

    # body velocities and accelerations of the centres of mass
    v2 = _stack(-a2 * w * st, a2 * w * ct)
    acc2 = _stack(-a2 * w**2 * ct, -a2 * w**2 * st)  # theta_ddot = 0
    v3 = _stack(-r * w * st - b3 * phi_d * sphi, r * w * ct + b3 * phi_d * cphi)
    acc3 = _stack(
        -r * w**2 * ct - b3 * phi_dd * sphi - b3 * phi_d**2 * cphi,
        -r * w**2 * st + b3 * phi_dd * cphi - b3 * phi_d**2 * sphi,
    )
    y2, y3 = a2 * st, r * st + b3 * sphi

    kin = (
        0.5 * m2 * np.sum(v2**2, axis=-1)
        + 0.5 * j2 * w**2
        + 0.5 * m3 * np.sum(v3**2, axis=-1)
        + 0.5 * j3 * phi_d**2
        + 0.5 * m4 * x_d**2
    )
    kin_rate = (
        m2 * np.sum(v2 * acc2, axis=-1)  # + j2 * w * 0 (constant crank speed)
        + m3 * np.sum(v3 * acc3, axis=-1)
        + j3 * phi_d * phi_dd
        + m4 * x_d * x_dd
    )
    pot = g * (m2 * y2 + m3 * y3 + m4 * e)
    pot_rate = g * (m2 * v2[..., 1] + m3 * v3[..., 1])
    moment = (kin_rate + pot_rate) / w

    # Guide normal force from Newton on slider + rod (no friction):
    #   slider X: m4 x_ddot = Cx;  slider Y: 0 = Cy + N - m4 g
    #   rod: m3 a3 = F_B - C - m3 g ey;  J3 phi_ddot = (B - G3) x F_B - (C - G3) x C
    # Eliminating F_B leaves one linear equation for Cy.
    cx = m4 * x_dd
    u = _stack(cphi, sphi)
    d_b = -b3 * u  # B - G3
    rhs = _cross(d_b, m3 * (acc3 - np.array([0.0, -g]))) - j3 * phi_dd
    cy = (rhs / l_rod + sphi * cx) / cphi
    lateral = m4 * g - cy

    return IdealSliderCrank(
        t=t,
        theta=theta,
        omega=w,
        phi=phi,
        phi_dot=phi_d,
        phi_ddot=phi_dd,
        x=x,
        x_dot=x_d,
        x_ddot=x_dd,
        kinetic_energy=kin,
        kinetic_energy_rate=kin_rate,
        potential_energy=pot,
        potential_energy_rate=pot_rate,
        driving_moment=moment,
        lateral_force=lateral,
        pin_force_c=_stack(cx, cy),
    )


def newton_euler_moment(res: IdealSliderCrank, params: dict = PARAMS) -> np.ndarray:
    """Driving moment and guide force from the free-body diagrams, one 9x9 solve per instant.

    Unknowns [Ox, Oy, Bx, By, Cx, Cy, N, Mg, M]: ground on crank at O, crank on rod at B, rod on
    slider at C, guide on slider (normal force N through the slider centre, reaction couple Mg),
    driver on crank M. Returns an array (n, 2) of [M, N]. Uses only positions and accelerations
    from ``res`` (not its energies or forces).
    """
    p = params
    r, l_rod = p["crank_length"], p["rod_length"]
    m2, m3, m4 = p["crank_mass"], p["rod_mass"], p["slider_mass"]
    j3 = p["rod_inertia"]  # the crank's J2 multiplies theta_ddot = 0
    a2 = p["crank_com_fraction"] * r
    b3 = p["rod_com_fraction"] * l_rod
    gvec = np.array([0.0, -p["gravity"]])
    w = res.omega
    out = []
    for th, ph, phd, phdd, x, xdd in zip(
        np.atleast_1d(res.theta),
        np.atleast_1d(res.phi),
        np.atleast_1d(res.phi_dot),
        np.atleast_1d(res.phi_ddot),
        np.atleast_1d(res.x),
        np.atleast_1d(res.x_ddot),
        strict=True,
    ):
        ut, up = np.array([np.cos(th), np.sin(th)]), np.array([np.cos(ph), np.sin(ph)])
        npp = np.array([-up[1], up[0]])
        pin_b = r * ut
        pin_c = pin_b + l_rod * up
        g2, g3, g4 = a2 * ut, pin_b + b3 * up, np.array([x, pin_c[1]])
        acc2 = -a2 * w**2 * ut
        acc3 = -r * w**2 * ut + b3 * phdd * npp - b3 * phd**2 * up
        acc4 = np.array([xdd, 0.0])

        def arm(pt, gc):
            d = pt - gc
            return np.array([-d[1], d[0]])  # moment of F about gc = arm . F

        a = np.zeros((9, 9))
        b = np.zeros(9)
        # crank: +O - B + m2 g = m2 a2 ; moments about G2: (O-G2)xO + (B-G2)x(-B) + M = 0
        a[0:2, 0:2] = np.eye(2)
        a[0:2, 2:4] = -np.eye(2)
        b[0:2] = m2 * acc2 - m2 * gvec
        a[2, 0:2] = arm(np.zeros(2), g2)
        a[2, 2:4] = -arm(pin_b, g2)
        a[2, 8] = 1.0
        b[2] = 0.0  # j2 * theta_ddot = 0
        # rod: +B - C + m3 g = m3 a3 ; J3 phi_ddot = (B-G3)xB + (C-G3)x(-C)
        a[3:5, 2:4] = np.eye(2)
        a[3:5, 4:6] = -np.eye(2)
        b[3:5] = m3 * acc3 - m3 * gvec
        a[5, 2:4] = arm(pin_b, g3)
        a[5, 4:6] = -arm(pin_c, g3)
        b[5] = j3 * phdd
        # slider: C + (0, N) + m4 g = m4 a4 ; (C_pt-G4)xC + Mg = 0 (no rotation)
        a[6:8, 4:6] = np.eye(2)
        a[7, 6] = 1.0
        b[6:8] = m4 * acc4 - m4 * gvec
        a[8, 4:6] = arm(pin_c, g4)
        a[8, 7] = 1.0
        sol = np.linalg.solve(a, b)
        out.append([sol[8], sol[6]])
    return np.array(out)


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    """max |a - b| relative to max |b|."""
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


if __name__ == "__main__":
    p0 = PARAMS
    w = p0["omega"]
    period = 2 * np.pi / w
    print(f"omega = {w:.4f} rad/s, crank period = {period * 1e3:.4f} ms")
    print(f"K corner (Eq. 17) = {p0['stiffness_corner']:.4e} N/m^1.5")
    print(f"K flat   (Eq. 20) = {p0['stiffness_flat']:.4e} N/m")

    t_dense = np.linspace(0.0, period, 20001)
    for label, params in (("g = 0 (paper)", p0), ("g = 9.81 -Y", {**p0, "gravity": 9.81})):
        res = ideal_slider_crank(t_dense, params)
        print(f"\n--- {label} ---")
        # 1. analytic rates against central differences (h small against the period)
        h = period * 1e-6
        rp, rm = ideal_slider_crank(t_dense + h, params), ideal_slider_crank(t_dense - h, params)

        def fd(name, rp=rp, rm=rm, h=h):
            return (getattr(rp, name) - getattr(rm, name)) / (2 * h)

        err_t = _rel(res.kinetic_energy_rate, fd("kinetic_energy"))
        print(f"dT/dt analytic vs FD of T     : {err_t:.2e}")
        if params["gravity"]:
            err_v = _rel(res.potential_energy_rate, fd("potential_energy"))
            print(f"dV/dt analytic vs FD of V     : {err_v:.2e}")
        print(f"phi_dot vs FD of phi          : {_rel(res.phi_dot, fd('phi')):.2e}")
        print(f"phi_ddot vs FD of phi_dot     : {_rel(res.phi_ddot, fd('phi_dot')):.2e}")
        print(f"x_dot vs FD of x              : {_rel(res.x_dot, fd('x')):.2e}")
        print(f"x_ddot vs FD of x_dot         : {_rel(res.x_ddot, fd('x_dot')):.2e}")
        # 2. power balance against Newton-Euler at a few crank angles (and on the dense grid)
        t_few = np.deg2rad(np.arange(0.0, 360.0, 30.0) + 7.0) / w
        few = ideal_slider_crank(t_few, params)
        ne_few = newton_euler_moment(few, params)
        print("theta[deg]  M_energy[Nm]  M_NewtonEuler[Nm]  N_closed[N]  N_NewtonEuler[N]")
        for k in range(t_few.size):
            print(
                f"{np.rad2deg(few.theta[k]):9.1f}  {few.driving_moment[k]:12.5f}  "
                f"{ne_few[k, 0]:17.5f}  {few.lateral_force[k]:11.4f}  {ne_few[k, 1]:16.4f}"
            )
        ne = newton_euler_moment(res, params)
        print(f"M energy vs Newton-Euler      : {_rel(res.driving_moment, ne[:, 0]):.2e}")
        print(f"N closed form vs Newton-Euler : {_rel(res.lateral_force, ne[:, 1]):.2e}")
        # 3. peaks over one turn
        km, ka, kn = (
            np.argmax(np.abs(v)) for v in (res.driving_moment, res.x_ddot, res.lateral_force)
        )
        print(
            f"peak |M_drive| = {abs(res.driving_moment[km]):.3f} N m at theta = "
            f"{np.rad2deg(res.theta[km]):.2f} deg (range {res.driving_moment.min():.3f} .. "
            f"{res.driving_moment.max():.3f})"
        )
        print(
            f"peak |x_ddot|  = {abs(res.x_ddot[ka]):.1f} m/s^2 at theta = "
            f"{np.rad2deg(res.theta[ka]):.2f} deg (range {res.x_ddot.min():.1f} .. "
            f"{res.x_ddot.max():.1f})"
        )
        print(f"peak |x_dot|   = {np.max(np.abs(res.x_dot)):.3f} m/s")
        print(
            f"peak |N guide| = {abs(res.lateral_force[kn]):.3f} N at theta = "
            f"{np.rad2deg(res.theta[kn]):.2f} deg"
        )
    r0 = ideal_slider_crank(np.array([0.0]))
    print(
        f"\ninitial state (top dead end): x = {r0.x[0]:.4f} m, x_dot = {r0.x_dot[0]:.3e} m/s, "
        f"phi = {r0.phi[0]:.3e} rad, phi_dot = {r0.phi_dot[0]:.4f} rad/s"
    )
