"""Independent reference for the crank-rocker with a frictional slider-in-slot joint of
Wang Xiaojun, Wang Qi and Zhuang Fangfang (2013), "The numerical method for multibody system
with frictional translational joints and driving constraints", Journal of Dynamics and Control
(in Chinese), DOI 10.6052/1672-6553-2013-090 ([R4] of docs/FORMULATION.md).

What is here:

* ``PARAMS``: every number of the paper's section 3.1, plus what the computation needs and the
  paper leaves open, each with where it comes from; ASSUMED marks our own choices.
* ``crank_rocker_reference(theta, damping)``: the mechanism in minimal coordinates with the
  crank angle prescribed (the system has NO free degree of freedom: one driving constraint and
  one slot constraint on two angles), so no ODE is integrated. Kinematics are closed form; the
  slot normal force comes from the rocker's moment balance about O, the driving moment from the
  crank-plus-slider moment balance about O1.
* ``newton_euler_forces``: the same forces from free-body diagrams of the three bodies (one 8x8
  linear solve per angle), with the sign of the normal force found by trying both sides of the
  slot, i.e. the paper's horizontal LCP (Eqs. 18-19) enumerated by hand for its single contact.

Mechanism (paper section 3.1 and Eq. (20); Fig. 2 itself is not in the seed copy)
---------------------------------------------------------------------------------
Three moving bodies in a vertical plane:

1. the rocker OA, a rigid link turning about the fixed pin O; it carries a straight slot along
   its own axis O -> A;
2. the crank O1B, a rigid link turning about the fixed pin O1 at distance L4 from O; it is
   driven at constant angular speed omega (driving constraint Eq. (21): theta2 = omega t);
3. the slider B, a point mass pinned to the crank at distance L3 from O1 (the crank tip) and
   running in the rocker's slot; the slider-slot contact is bilateral (zero clearance) with
   Coulomb friction. Eq. (20) is the slot constraint: B stays on the rocker's axis.

Since L3 < L4 the crank turns fully and the rocker swings between -asin(L3/L4) and
+asin(L3/L4) = +-30 deg (a slotted-lever, "oscillating guide-bar" crank-rocker).

Frame and coordinates (ours; every statement of the text is consistent with them)
------------------------------------------------------------------------------------
* X horizontal to the right, Y vertical upwards (the paper's "vertical axis y"), origin at O.
* O1 = (0, L4): Eq. (20) has the form L4 sin(theta1) - L3 sin(theta2 - theta1) = 0 only if O1
  lies on the ray from which both angles are measured, so O1 sits on +Y above O.
* theta1 (rocker) and theta2 (crank) are measured from +Y towards +X, i.e. CLOCKWISE. Link
  direction e(th) = (sin th, cos th); right-hand normal n(th) = (cos th, -sin th) = de/dth.
* Rocker: centre of mass G1 = L1 e(theta1), tip A = l_rocker e(theta1).
  Crank: centre of mass G2 = O1 + L2 e(theta2), slider B = O1 + L3 e(theta2).
* s = e(theta1) . B is the slider's distance from O along the slot (0.5 m .. 1.5 m here);
  its rate s_dot is the sliding velocity of the slider relative to the slot, positive towards A.
* gamma = theta2 - theta1 (paper). theta2 = omega t, theta2(0) = 0 (Eq. (21)).

At theta2 = 0 every point is on the Y axis: O (0, 0), G1 (0, 1.0), O1 (0, 1.0), G2 (0, 1.25),
B (0, 1.5), A (0, 2.0); theta1 = 0, theta1_dot = L3 omega / (L4 + L3) = +1 rad/s.

Signs of the outputs (paper section 3.2, Figs. 5-6)
---------------------------------------------------
* ``drive_moment``: the Lagrange multiplier of Eq. (21), i.e. the moment the driver applies to
  the crank, positive in the sense of increasing theta2 = clockwise in our frame (the paper:
  "clockwise positive").
* ``normal_force``: the Lagrange multiplier of Eq. (20) as printed. The slot pushes the slider
  with -N n(theta1): N > 0 pushes it to the left of the slot axis, i.e. the slider bears on the
  RIGHT wall of the slot (the paper: "contact with the right side of the slot positive").
  The joint is bilateral, so N may have either sign; the friction magnitude is mu |N| (paper
  Eqs. (2)-(3): |lambda| = lambda+ + lambda-).
* ``friction_force``: the slot's friction force on the slider, projected on e(theta1), positive
  towards A (paper: "friction pointing towards A positive"): F_f = -mu |N| sgn(s_dot). s_dot
  vanishes only at theta2 = 0 and pi, where s_ddot != 0 (no sticking, as the paper notes);
  there the set-valued law (paper Eq. (4)) gives -mu |N| sgn(s_ddot), the value just after.
  Its generalised force on theta2 is +mu |N| sgn(s_dot) L3 sin(gamma) (zero on theta1: the
  force lies on the slot axis, which passes through O). The paper's Eq. (22) prints
  -L3 |lambda| mu sgn(v_r) sin(gamma), which is the same thing if its v_r is counted positive
  towards O (v_r = -s_dot); we follow the physics (friction opposes the sliding) either way.

What the text lets us check: theta1_ddot = 0 at theta2 = 0 and pi (Fig. 4); with c = 0 the
drive moment, N and F_f all vanish there (Fig. 5); with c = 8 N stays non-zero there and F_f
jumps because s_dot reverses (Fig. 6). All three hold here (see ``__main__``), with or without
gravity: at theta2 = 0 and pi every body is on the Y axis, so gravity has no moment there.

Run ``python tests/ref_crank_rocker.py`` for the peak values and the self-checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from scipy.optimize import brentq

PARAMS: Mapping[str, float] = MappingProxyType(
    {
        # ---- rocker OA (body 1), section 3.1 ------------------------------------------------
        "J1": 16.0 / 3.0,  # kg m^2, moment of inertia about the O axis, section 3.1
        "m1": 4.0,  # kg, section 3.1
        "L1": 1.0,  # m, O -> rocker centre of mass, section 3.1
        # Rocker length |OA|: not printed. J1 = m1 (2 m)^2 / 3 and L1 = 1 m are exactly a uniform
        # 2 m rod pinned at one end, so we take |OA| = 2 m (DERIVED; it only bounds the slot,
        # and s stays in [L4 - L3, L4 + L3] = [0.5, 1.5] m, inside the rod).
        "l_rocker": 2.0,
        # ---- crank O1B (body 2), section 3.1 ------------------------------------------------
        "J2": 1.0 / 6.0,  # kg m^2, about the O1 axis, section 3.1 (= uniform 0.5 m rod, m2)
        "m2": 2.0,  # kg, section 3.1
        "L2": 0.25,  # m, O1 -> crank centre of mass, section 3.1 (mid-length of O1B)
        # ---- slider B (point mass), section 3.1 ---------------------------------------------
        "m3": 0.5,  # kg, section 3.1 ("the slider is treated as a particle")
        "L3": 0.5,  # m, O1 -> B, section 3.1 (B is at the crank tip: J2 = m2 L3^2 / 3)
        # ---- frame ------------------------------------------------------------------------
        "L4": 1.0,  # m, |O O1|, section 3.1; O1 on the theta = 0 ray (+Y) by Eq. (20)
        # ---- contact ------------------------------------------------------------------------
        "mu": 0.2,  # kinetic Coulomb coefficient slider/slot, section 3.1
        # The static coefficient mu_0 of Eq. (4) is not given and never needed (no sticking,
        # section 3.1 after Eq. (21)); where s_dot = 0 we use mu (ASSUMED mu_0 = mu).
        "mu0": 0.2,
        # ---- drive --------------------------------------------------------------------------
        "omega": 3.0,  # rad/s, constant crank speed, section 3.1 and Eq. (21)
        "theta2_0": 0.0,  # rad, Eq. (21) theta2 = omega t, so theta2(0) = 0 and theta1(0) = 0
        # ---- rocker viscous damping M_f = -c theta1_dot, section 3.1 -------------------------
        "damping_values": (0.0, 8.0),  # N m s/rad, Fig. 5 (c = 0) and Fig. 6 (c = 8)
        # ---- gravity: NOT stated in the paper -------------------------------------------------
        # ASSUMED present, along -Y (from O1 towards O): the paper calls y the vertical axis and
        # gives m1, L1, m2, L2, which enter the dynamics only through gravity (J1, J2 are about
        # the fixed pivots). 9.81 m/s^2 as in the rest of nlpmbd (Chinese texts often use 9.8).
        # g = 0 drops gravity; g < 0 is the same mechanism hanging below its pivots (rocker
        # pointing down, O1 below O), which is the only other reading of Fig. 2 we can imagine.
        "g": 9.81,
        # ---- the paper's numerical method (not used here; for simulations of this case) -------
        # Section 3.2 only says alpha > 1 and beta > 1 work (alpha = beta = 0 diverges with
        # h = 0.001); no values are given, so 2.0 is ASSUMED.
        "baumgarte_alpha": 2.0,
        "baumgarte_beta": 2.0,
        "step_size": 1.0e-3,  # s, section 3.2: h <= 0.001 keeps sqrt(phi^2 + phi_dot^2) <= 3 h
    }
)


@dataclass(frozen=True)
class CrankRockerReference:
    """Minimal-coordinate response over the given crank angles; SI units, shape of ``theta``."""

    theta: np.ndarray  # crank angle theta2 [rad] (clockwise from +Y)
    t: np.ndarray  # time (theta2 - theta2_0) / omega [s]
    omega: float  # crank angular speed [rad/s]
    damping: float  # rocker damping c [N m s/rad]
    rocker_angle: np.ndarray  # theta1 [rad]
    rocker_rate: np.ndarray  # theta1_dot [rad/s]
    rocker_accel: np.ndarray  # theta1_ddot [rad/s^2]
    slider_position: np.ndarray  # s = |OB| along the slot [m]
    sliding_velocity: np.ndarray  # s_dot, slider relative to the slot, + towards A [m/s]
    sliding_accel: np.ndarray  # s_ddot [m/s^2]
    drive_moment: np.ndarray  # moment of the driver on the crank, + clockwise [N m]
    normal_force: np.ndarray  # lambda_N of Eq. (20), + slider on the right wall [N]
    friction_force: np.ndarray  # slot friction on the slider along e(theta1), + towards A [N]


def _e(th):
    return np.stack([np.sin(th), np.cos(th)], axis=-1)


def _n(th):
    return np.stack([np.cos(th), -np.sin(th)], axis=-1)


def _sgn_set_valued(v: np.ndarray, a: np.ndarray, tol: float) -> np.ndarray:
    """sgn(v) where |v| > tol, else sgn(a): the value Eq. (4) picks when v passes through 0."""
    return np.where(np.abs(v) > tol, np.sign(v), np.sign(a))


def kinematics(theta: np.ndarray, params: Mapping[str, float] = PARAMS) -> dict:
    """Closed-form kinematics for crank angle ``theta`` and constant omega.

    With u = L3 sin th2, w = L4 + L3 cos th2 (B relative to O), s^2 = u^2 + w^2:
        theta1 = atan2(u, w)                      (branch s > 0: B between O and A)
        d theta1/d th2   = L3 (L3 + L4 cos th2) / s^2
        d2 theta1/d th2^2 = L3 L4 (L3^2 - L4^2) sin th2 / s^4
        s = sqrt(L4^2 + L3^2 + 2 L3 L4 cos th2)
        ds/d th2 = -L3 L4 sin th2 / s,  d2s/d th2^2 = -L3 L4 cos th2 / s - (L3 L4 sin th2)^2 / s^3
    and d/dt = omega d/d th2.
    """
    p = params
    l3, l4, w = p["L3"], p["L4"], p["omega"]
    th = np.asarray(theta, dtype=float)
    u, v = l3 * np.sin(th), l4 + l3 * np.cos(th)
    s2 = u**2 + v**2
    s = np.sqrt(s2)
    d1 = l3 * (l3 + l4 * np.cos(th)) / s2
    d2 = l3 * l4 * (l3**2 - l4**2) * np.sin(th) / s2**2
    ds = -l3 * l4 * np.sin(th) / s
    dds = -l3 * l4 * np.cos(th) / s - (l3 * l4 * np.sin(th)) ** 2 / (s2 * s)
    return {
        "theta1": np.arctan2(u, v),
        "theta1_dot": w * d1,
        "theta1_ddot": w**2 * d2,
        "s": s,
        "s_dot": w * ds,
        "s_ddot": w**2 * dds,
    }


def crank_rocker_reference(
    theta: np.ndarray, damping: float, params: Mapping[str, float] = PARAMS
) -> CrankRockerReference:
    """Inverse dynamics of the driven crank-rocker, minimal coordinates, no integration.

    Rocker about O (friction acts along the slot axis, which passes through O, so it has no
    moment there; the slot force N n1 acts at distance s):
        J1 theta1_ddot = m1 g L1 sin theta1 - c theta1_dot + s N
    Crank + slider about O1 (theta2_ddot = 0; slot force on the slider -N n1 + F_f e1, whose
    virtual work on theta2 is (-N L3 cos gamma - F_f L3 sin gamma) d theta2):
        0 = M + (m2 L2 + m3 L3) g sin theta2 - N L3 cos gamma - F_f L3 sin gamma
    with F_f = -mu |N| sgn(s_dot). The first equation gives N explicitly (its sign says which
    wall is in contact), then F_f, then M.
    """
    p = params
    th = np.asarray(theta, dtype=float)
    k = kinematics(th, p)
    th1, th1d, th1dd = k["theta1"], k["theta1_dot"], k["theta1_ddot"]
    s = k["s"]
    g, c = p["g"], float(damping)
    normal = (p["J1"] * th1dd + c * th1d - p["m1"] * g * p["L1"] * np.sin(th1)) / s
    tol = 1e-12 * p["L3"] * abs(p["omega"])
    sig = _sgn_set_valued(k["s_dot"], k["s_ddot"], tol)
    mu = np.where(np.abs(k["s_dot"]) > tol, p["mu"], p["mu0"])
    friction = -mu * np.abs(normal) * sig
    gam = th - th1
    moment = (
        -(p["m2"] * p["L2"] + p["m3"] * p["L3"]) * g * np.sin(th)
        + normal * p["L3"] * np.cos(gam)
        + friction * p["L3"] * np.sin(gam)
    )
    return CrankRockerReference(
        theta=th,
        t=(th - p["theta2_0"]) / p["omega"],
        omega=float(p["omega"]),
        damping=c,
        rocker_angle=th1,
        rocker_rate=th1d,
        rocker_accel=th1dd,
        slider_position=s,
        sliding_velocity=k["s_dot"],
        sliding_accel=k["s_ddot"],
        drive_moment=moment,
        normal_force=normal,
        friction_force=friction,
    )


# ---- independent checks ----------------------------------------------------------------------
def rocker_angle_root(theta: np.ndarray, params: Mapping[str, float] = PARAMS) -> np.ndarray:
    """theta1 from Eq. (20) by a bracketed scipy root solve per angle (|theta1| < asin(L3/L4))."""
    l3, l4 = params["L3"], params["L4"]
    lim = np.arcsin(l3 / l4) + 1e-9

    def phi(t1, t2):
        return l4 * np.sin(t1) - l3 * np.sin(t2 - t1)

    return np.array(
        [brentq(phi, -lim, lim, args=(t2,), xtol=1e-15, rtol=1e-15) for t2 in np.ravel(theta)]
    )


def _cw(r: np.ndarray, f: np.ndarray) -> float:
    """Clockwise moment of force f applied at lever arm r (2-vectors)."""
    return -(r[0] * f[1] - r[1] * f[0])


def newton_euler_forces(
    theta: np.ndarray, damping: float, params: Mapping[str, float] = PARAMS
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Drive moment, normal force and friction from free-body diagrams of the three bodies.

    Unknowns x = [R_O (2), R_O1 (2), P (2), N, M]: ground on rocker at O, ground on crank at O1,
    crank on slider at B, slot multiplier N, driver moment M. Equations: rocker forces (2) and
    moment about its centre of mass (1), crank forces (2) and moment about its centre of mass (1),
    slider forces (2). Friction F_f = -mu |N| sgn(v_rel) makes this piecewise linear in N; both
    hypotheses N >= 0 (lambda_N^- = 0) and N <= 0 (lambda_N^+ = 0) are solved and the one whose
    N has the assumed sign is kept: the one-contact horizontal LCP of the paper's Eqs. (18)-(19).
    The relative velocity is taken from Cartesian velocities, not from s_dot.
    Returns (M, N, F_f, n_consistent), n_consistent = number of consistent hypotheses per angle.
    """
    p = params
    m1, m2, m3 = p["m1"], p["m2"], p["m3"]
    l1, l2, l3, l4 = p["L1"], p["L2"], p["L3"], p["L4"]
    jg1 = p["J1"] - m1 * l1**2  # about G1; the crank's (J2 - m2 L2^2) multiplies theta2_ddot = 0
    gv = np.array([0.0, -p["g"]])
    w, c, mu = p["omega"], float(damping), p["mu"]
    kin = kinematics(theta, p)
    o, o1 = np.zeros(2), np.array([0.0, l4])
    out_m, out_n, out_f, out_k = [], [], [], []
    for th2, th1, th1d, th1dd in zip(
        np.ravel(theta),
        np.ravel(kin["theta1"]),
        np.ravel(kin["theta1_dot"]),
        np.ravel(kin["theta1_ddot"]),
        strict=True,
    ):
        e1, n1, e2, n2 = _e(th1), _n(th1), _e(th2), _n(th2)
        b = o1 + l3 * e2
        g1, g2 = l1 * e1, o1 + l2 * e2
        # accelerations of the centres of mass; d e/dth = n, d n/dth = -e
        a_g1 = l1 * (th1dd * n1 - th1d**2 * e1)
        a_g2 = -l2 * w**2 * e2
        a_b = -l3 * w**2 * e2
        # relative velocity of the slider with respect to the rocker point under it
        v_b = l3 * w * n2
        v_rel = v_b - th1d * (b @ e1) * n1
        a_rel_t = a_b @ e1 - (th1dd * (b @ e1) * n1 - th1d**2 * b) @ e1  # tie-break only
        vt = v_rel @ e1
        sig = np.sign(vt) if abs(vt) > 1e-12 * l3 * w else np.sign(a_rel_t)
        sols = []
        for side in (1.0, -1.0):  # N >= 0, then N <= 0
            kf = -mu * side * sig  # F_f = kf * N
            slot_on_slider = -n1 + kf * e1  # times N
            a = np.zeros((8, 8))
            r = np.zeros(8)
            # rocker: m1 a_G1 = R_O + m1 g - N slot_on_slider
            a[0:2, 0:2] = np.eye(2)
            a[0:2, 6] = -slot_on_slider
            r[0:2] = m1 * a_g1 - m1 * gv
            # rocker moment about G1 (clockwise, sos = slot_on_slider):
            #   jg1 th1dd = cw(O - G1, R_O) + cw(B - G1, -N sos) - c th1d
            a[2, 0:2] = [(o - g1)[1], -(o - g1)[0]]
            a[2, 6] = -_cw(b - g1, slot_on_slider)
            r[2] = jg1 * th1dd + c * th1d
            # crank: m2 a_G2 = R_O1 + m2 g - P
            a[3:5, 2:4] = np.eye(2)
            a[3:5, 4:6] = -np.eye(2)
            r[3:5] = m2 * a_g2 - m2 * gv
            # crank moment about G2: 0 = cw(O1-G2, R_O1) + cw(B-G2, -P) + M
            a[5, 2:4] = [(o1 - g2)[1], -(o1 - g2)[0]]
            a[5, 4:6] = [-(b - g2)[1], (b - g2)[0]]
            a[5, 7] = 1.0
            # slider: m3 a_B = P + m3 g + N slot_on_slider
            a[6:8, 4:6] = np.eye(2)
            a[6:8, 6] = slot_on_slider
            r[6:8] = m3 * a_b - m3 * gv
            x = np.linalg.solve(a, r)
            if side * x[6] >= -1e-9:
                sols.append((x[7], x[6], kf * x[6]))
        out_k.append(len(sols))
        m_, n_, f_ = sols[0] if sols else (np.nan, np.nan, np.nan)
        out_m.append(m_)
        out_n.append(n_)
        out_f.append(f_)
    return np.array(out_m), np.array(out_n), np.array(out_f), np.array(out_k)


def power_balance_residual(
    res: CrankRockerReference, params: Mapping[str, float] = PARAMS, dth: float = 1e-5
) -> np.ndarray:
    """M omega - (dT/dt + dV/dt + c theta1_dot^2 + mu |N| |v_rel|), each term on its own.

    T and V are evaluated from body velocities and Cartesian centre-of-mass heights at
    theta +- dth and differentiated centrally (d/dt = omega d/dtheta); the friction power uses
    the Cartesian relative velocity of the slider with respect to the rocker.
    """
    p = params
    w = p["omega"]

    def energies(th):
        k = kinematics(th, p)
        th1 = k["theta1"]
        y_g1 = (p["L1"] * _e(th1))[..., 1]
        y_g2 = p["L4"] + p["L2"] * np.cos(th)
        y_b = p["L4"] + p["L3"] * np.cos(th)
        kin = 0.5 * p["J1"] * k["theta1_dot"] ** 2 + 0.5 * (p["J2"] + p["m3"] * p["L3"] ** 2) * w**2
        pot = p["g"] * (p["m1"] * y_g1 + p["m2"] * y_g2 + p["m3"] * y_b)
        return kin, pot

    tp, vp = energies(res.theta + dth)
    tm, vm = energies(res.theta - dth)
    dt_dt = w * (tp - tm) / (2 * dth)
    dv_dt = w * (vp - vm) / (2 * dth)
    b = np.array([0.0, p["L4"]]) + p["L3"] * _e(res.theta)
    e1, n1 = _e(res.rocker_angle), _n(res.rocker_angle)
    s_cart = np.sum(b * e1, axis=-1)
    v_rel = p["L3"] * w * _n(res.theta) - (res.rocker_rate * s_cart)[..., None] * n1
    p_fric = p["mu"] * np.abs(res.normal_force) * np.linalg.norm(v_rel, axis=-1)
    p_damp = res.damping * res.rocker_rate**2
    return res.drive_moment * w - (dt_dt + dv_dt + p_damp + p_fric)


def _peak(x: np.ndarray, th: np.ndarray) -> str:
    k_max, k_min = int(np.argmax(x)), int(np.argmin(x))
    return (
        f"max {x[k_max]:9.3f} at {np.rad2deg(th[k_max]):6.1f} deg, "
        f"min {x[k_min]:9.3f} at {np.rad2deg(th[k_min]):6.1f} deg"
    )


if __name__ == "__main__":
    p0 = PARAMS
    th = np.linspace(0.0, 2.0 * np.pi, 7201)  # one crank turn, 0.05 deg
    print(f"crank period 2 pi / omega = {2 * np.pi / p0['omega']:.4f} s")

    # 1. kinematics: closed form against a root solve of Eq. (20) and against differences
    t1_root = rocker_angle_root(th)
    k0 = kinematics(th)
    h = 1e-5
    kp, km = kinematics(th + h), kinematics(th - h)
    w0 = p0["omega"]

    def fd(name):
        return w0 * (kp[name] - km[name]) / (2 * h)

    s_cart = np.sum((np.array([0.0, p0["L4"]]) + p0["L3"] * _e(th)) * _e(t1_root), axis=-1)
    print("\n-- kinematics --")
    print(
        f"theta1 closed form vs brentq(Eq. 20)      : {np.max(np.abs(k0['theta1'] - t1_root)):.1e}"
    )
    print(f"s closed form vs e1 . B (root-solved e1)  : {np.max(np.abs(k0['s'] - s_cart)):.1e}")
    for a_, b_ in (("theta1_dot", "theta1"), ("theta1_ddot", "theta1_dot")):
        print(f"{a_:12s} vs central diff of {b_:11s}: {np.max(np.abs(k0[a_] - fd(b_))):.1e}")
    for a_, b_ in (("s_dot", "s"), ("s_ddot", "s_dot")):
        print(f"{a_:12s} vs central diff of {b_:11s}: {np.max(np.abs(k0[a_] - fd(b_))):.1e}")
    print(
        f"rocker swing {np.rad2deg(k0['theta1'].min()):.3f} .. {np.rad2deg(k0['theta1'].max()):.3f}"
        f" deg; s {k0['s'].min():.3f} .. {k0['s'].max():.3f} m; theta1_dot at 0 / pi = "
        f"{k0['theta1_dot'][0]:.3f} / {kinematics(np.pi)['theta1_dot']:.3f} rad/s; "
        f"max |theta1_ddot| = {np.max(np.abs(k0['theta1_ddot'])):.3f} rad/s^2"
    )

    # 2. forces, peaks, power balance and Newton-Euler cross-check
    variants = [("g = +9.81 (ASSUMED: rocker up, O below O1)", dict(p0))]
    variants += [("g = 0 (no gravity)", {**p0, "g": 0.0})]
    variants += [("g = -9.81 (hanging: rocker down, O above O1)", {**p0, "g": -9.81})]
    for label, prm in variants:
        print(f"\n==== {label} ====")
        for c in p0["damping_values"]:
            r = crank_rocker_reference(th, c, prm)
            res_p = power_balance_residual(r, prm)
            m_ne, n_ne, f_ne, n_ok = newton_euler_forces(th[::10], c, prm)
            print(f"-- damping c = {c:g} N m s/rad --")
            print(f"  drive moment [N m]: {_peak(r.drive_moment, th)}")
            print(f"  normal force [N]  : {_peak(r.normal_force, th)}")
            print(f"  friction     [N]  : {_peak(r.friction_force, th)}")
            print(
                f"  peak |M| {np.max(np.abs(r.drive_moment)):.3f} N m, peak |N| "
                f"{np.max(np.abs(r.normal_force)):.3f} N, peak |F_f| "
                f"{np.max(np.abs(r.friction_force)):.3f} N, "
                f"mean M {np.mean(r.drive_moment[:-1]):.4f} N m"
            )
            i0, ipi = 0, th.size // 2
            print(
                "  at theta2 = 0 : M, N, F_f = "
                f"{r.drive_moment[i0]:.2e}, {r.normal_force[i0]:.2e}, {r.friction_force[i0]:.2e}"
            )
            print(
                "  at theta2 = pi: M, N, F_f = "
                f"{r.drive_moment[ipi]:.2e}, {r.normal_force[ipi]:.2e}, "
                f"{r.friction_force[ipi]:.2e}"
            )
            jumps = [
                crank_rocker_reference(np.array([a + 1e-9, a - 1e-9]), c, prm).friction_force
                for a in (0.0, np.pi)
            ]
            print(
                "  F_f jump (after - before) at 0 / pi: "
                f"{jumps[0][0] - jumps[0][1]:.3f} / {jumps[1][0] - jumps[1][1]:.3f} N"
            )
            print(
                f"  power balance: max |residual| {np.max(np.abs(res_p)):.2e} W "
                f"(max |M omega| {np.max(np.abs(r.drive_moment * w0)):.1f} W)"
            )
            print(
                "  Newton-Euler/HLCP vs minimal: max |dM| "
                f"{np.max(np.abs(m_ne - r.drive_moment[::10])):.1e}, max |dN| "
                f"{np.max(np.abs(n_ne - r.normal_force[::10])):.1e}, max |dF_f| "
                f"{np.max(np.abs(f_ne - r.friction_force[::10])):.1e}; consistent sign "
                f"hypotheses per angle: {sorted(set(n_ok.tolist()))} (2 only where N = 0: "
                f"{np.count_nonzero(n_ok == 2)} of {n_ok.size} angles)"
            )
