"""Parameters and an independent reference for the two examples of Zheng and Wang, "A methodology
for modeling and simulating frictional translational joint with a flexible slider and clearance
in multibody systems" (Beihang University; [R5] of docs/FORMULATION.md).

The paper meshes the slider with finite elements. nlpmbd treats the slider as a RIGID body, so
this module keeps every number of the paper (the finite-element ones too, marked "FE only") and
reduces the first example to the rigid case.

What is here
------------
* ``STICK_SLIP``: Table 1 of the paper (section 4.1, the stick-slip oscillator).
* ``SLIDER_CRANK_MOMENT``: Table 2 (section 4.2, the slider-crank driven by a harmonic moment).
* ``derived(params)``: masses, inertias and frequencies that follow from either table.
* ``stick_slip_reference(t_end, params)``: event-driven solution of the rigid-slider oscillator,
  using numpy and scipy only (no nlpmbd import). It returns a ``StickSlipReference`` dataclass.
* ``tipping_ratio(...)``: checks that the rigid slider stays flat on the lower guide, which the
  1-DOF reduction needs.

Run ``python tests/ref_stick_slip.py`` to print the limit cycle and the self-checks.

Conventions (both examples)
---------------------------
Planar, global frame Oxy fixed to the ground, z out of the plane, angles counter-clockwise from
+x. The guide is fixed to the ground (paper section 2.1). Its axis is x, the sliding direction.
Gravity acts along -y, in the plane. The paper never gives the direction of gravity, but it must
be -y: in both examples the slider's weight presses it on the lower guide face (section 4.2:
"only lower surface of the slider is in contact with the guide"). The slider is a rectangle of
width ``a`` along x and height ``h`` along y. The guide is a channel of height ``h + c``. Areal
densities are in kg/m^2 (a planar body of unit thickness), so the slider mass is rho * a * h.

Example 1: the stick-slip oscillator (paper section 4.1, Fig. 6, Table 1)
-------------------------------------------------------------------------
Bodies: the ground with the guide, and the slider (0.6 m x 0.5 m, 0.1 kg). The slider is the
only moving body. There is no crank, no belt, and no revolute joint.

Loads on the slider:

* a linear spring of stiffness k that joins the slider to the ground. ASSUMED: the spring is
  horizontal, acts on the left face at mid-height, and is unstretched at the initial position
  u = 0 (Table 1 gives no preload);
* an applied force F(t) = F_max sin(Omega t) along +x on the right face. Table 1 calls s = 0.05 m
  its "position". ASSUMED: s is the height of its line of action above the mid-height of the
  slider. In the 5 x 5 mesh the node rows lie 0.1 m apart, and only a row 0.05 m above or below
  the mid-plane (0.2 m or 0.3 m above the bottom face) is exactly s away from a reference line,
  so s is most likely measured from the mid-plane. Whether the force acts above or below it is
  not stated; ``tipping_ratio`` tries both;
* its weight m g along -y;
* contact with the guide faces: a normal force plus Coulomb friction, with mu' static and mu
  kinetic.

The guide is fixed (its velocity is zero). ``guide_velocity`` lets the same reference run a
belt-driven variant, but the paper has no belt. Its energy input comes from F(t).

Node numbering in the paper (6 x 6 nodes, 25 elements): nodes 1-6 form the upper row and
31-36 the lower row. Nodes 1 and 31 are the left corners, 6 and 36 the right corners. This
follows from the text: nodes 1 and 6 hit the upper guide, and the complementary pairs are
(1, 31) and (6, 36).

Reduction to the rigid, 1-DOF case. With clearance, a rigid slider has 3 DOF (x, y, theta) and
four unilateral frictional corner contacts. Gravity seats it on the lower face, and it stays
there (theta = 0, y = 0, both lower corners touching) as long as the tipping moment of the
horizontal loads, taken about the centre of mass, stays below m g a / 2. Under the geometry
assumed above the largest ratio is about 0.38 (see ``tipping_ratio``), so the rigid slider never
tilts and never reaches the upper guide. The clearance then plays no role. The normal force is
exactly N = m g (the penalty contact of Eq. (1) only adds a static sink of about m g / K), and
the motion is the classical harmonically forced Coulomb oscillator:

    m x'' + k x = F_max sin(Omega t) + f,
    slip (x' != v_g):  f = -mu N sgn(x' - v_g),
    stick (x' == v_g): f = k x - F(t), which holds while |f| <= mu' N.

The paper's flexible slider does tilt: its upper corners hit the upper guide (Figs. 8 and 11).
The mesh is very soft (E = 1000 Pa), and its shear deflection under the 1.5 N load (about 3 mm)
is of the order of the clearance. If the real line of action were much higher (for example at the
top face), the rigid slider could tip (ratio > 1), wedge between two opposite corners and carry
a normal force larger than m g. The 1-DOF model would then be only an approximation. During
wedged stick the rigid problem is statically indeterminate, as the paper points out in section
4.1.

Example 2: the moment-driven slider-crank (paper section 4.2, Fig. 12, Table 2)
-------------------------------------------------------------------------------
Bodies: the ground, the crank OA (uniform rod, 1.8 m, 2 kg), the connecting rod AB (uniform rod,
2.0 m, 1 kg) and the slider (0.5 m x 0.3 m, 20/3 kg/m^2, hence 1 kg).

Joints:

* ideal revolute joints at O (ground and crank) and at A (crank and rod);
* a revolute joint at B (rod and the slider's centre node 5 of its 3 x 3-node mesh), enforced by
  a penalty with k_RX = k_RY = 1e5 N/m (paper Eq. (4));
* the translational clearance joint between the slider and the fixed guide, with c = 2.5 mm,
  mu = 0.03 and mu' = 0.04.

Load: a moment P(t) = P0 sin(Omega t) on the crank about O, with P0 = 6 Nm and Omega = pi/6 rad/s
(a period of 12 s), plus gravity on all three bodies.

The paper's generalised coordinates are q = [theta1, theta2], the angles of OA and AB. ASSUMED:
both are absolute angles measured from +x. The mechanism is in-line: the guide centre line is
the x axis and passes through O (Table 2 gives no offset). Under these assumptions the initial
state theta1 = theta2 = 0 puts crank and rod end to end along +x. That is the outer dead centre,
with the pin B (and the slider centre) at x = L1 + L2 = 3.8 m. There, gravity exerts a moment of
about 26.5 Nm on the crank (17.7 Nm from the crank, 8.8 Nm from half the rod's weight), far more
than P0. The crank therefore first falls toward its hanging equilibrium, and the periodic
stick-slip the paper reports is an oscillation about that equilibrium.

What the paper plots for example 2 (all against time t, in s; the run lasts 200 s):

* Fig. 13: (a, b) the crank angle theta1 in rad, (c, d) its angular velocity in rad/s. Panels
  (a) and (c) come from the earlier study, (b) and (d) from the paper. The caption cites
  reference [4], but the text compares with [32] (Zhuang and Wang 2013), so [4] is a misprint;
* Fig. 14: the total friction force on the slider in N, (a) from [32], (b) from the paper with
  meshes of 4 and 8 elements;
* Fig. 15: the normal contact forces in N at nodes (a) 1, 2, 3 and (b) 7, 8, 9;
* Fig. 16: the friction forces in N at nodes (a) 1, 2, 3 and (b) 7, 8, 9;
* Fig. 17: the pin penalty gaps (a) x_R - x_5 and (b) y_R - y_5 in m, which stay below 8e-4 m.

What the paper plots for example 1 (against time t, in s; the time span is not stated):

* Fig. 7: the x velocities of the corner nodes 1, 6, 31 and 36 in m/s, (a) from [35] (Zhang and
  Wang 2016), (b) from the paper;
* Fig. 8: the y velocities in m/s of (a) nodes 1 and 6 and (b) nodes 31 and 36;
* Fig. 9: the total friction force on the slider in N, (a) from [35], (b) from the paper;
* Fig. 10: the friction forces in N at nodes (a) 1-3, (b) 4-6, (c) 31-33 and (d) 34-36;
* Fig. 11: (a) the normal and (b) the friction forces in N at the corner nodes 1, 6, 31 and 36,
  with the mean x velocity of those four nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

# --------------------------------------------------------------------------------------------
# Table 1: the stick-slip oscillator (paper section 4.1)
# --------------------------------------------------------------------------------------------
STICK_SLIP: dict = {
    # Geometric characteristics (Table 1)
    "slider_width": 0.6,  # a [m], along the guide axis x (Table 1)
    "slider_height": 0.5,  # h [m], across the guide (Table 1)
    "clearance": 2.5e-3,  # c [m], guide height = h + c (Table 1)
    "force_offset": 0.05,  # s [m], "position of applied force" (Table 1); ASSUMED: height of
    #   its line of action above the slider mid-plane, sign unknown (see module docstring)
    "areal_density": 1.0 / 3.0,  # rho [kg/m^2] (Table 1) -> slider mass rho a h = 0.1 kg
    # Material properties (Table 1): FE only, unused by the rigid reduction
    "young": 1000.0,  # E [Pa] (Table 1)
    "poisson": 0.3,  # nu [-] (Table 1)
    "rayleigh_alpha": 0.010,  # alpha of C = alpha M + beta K (Table 1, Eq. (6))
    "rayleigh_beta": 0.544,  # beta (Table 1, Eq. (6))
    "fe_mesh": (5, 5),  # 25 four-node quadrilaterals, 6 x 6 = 36 nodes (section 4.1 text)
    # Contact parameters (Table 1)
    "contact_stiffness": 1.0e4,  # K [N/m], per node, Eq. (1) (Table 1)
    "contact_damping": 1.0e3,  # chi [N s/m], Eq. (1) (Table 1)
    "mu_kinetic": 0.15,  # mu (Table 1, Eq. (2))
    "mu_static": 0.20,  # mu' (Table 1, Eq. (2))
    "zero_velocity_tol": 1.0e-5,  # eps [m/s]: |v| below it counts as stick (section 3.2);
    #   the reference below is exact and does not use it
    # External forces (Table 1)
    "force_amplitude": 1.5,  # F_max [N] in F = F_max sin(Omega t) (Table 1, section 4.1)
    "force_frequency": np.pi / 10.0,  # Omega [rad/s] (Table 1, printed without unit)
    "spring_stiffness": 1.0,  # k [N/m] (Table 1 prints "N/s", a unit misprint)
    "gravity": 9.81,  # g [m/s^2] (Table 1); ASSUMED along -y
    # Initial conditions (Table 1): u = 0, u_dot = 0 for all nodes
    "x0": 0.0,  # [m] slider position along x; ASSUMED spring unstretched here
    "v0": 0.0,  # [m/s]
    # Not in the paper (ASSUMED)
    "spring_offset": 0.0,  # [m] height of the spring line above the slider mid-plane
    "guide_velocity": 0.0,  # v_g [m/s]: the guide is fixed (section 2.1); no belt in the paper
}

# --------------------------------------------------------------------------------------------
# Table 2: the slider-crank driven by a harmonic moment (paper section 4.2)
# --------------------------------------------------------------------------------------------
SLIDER_CRANK_MOMENT: dict = {
    # Geometric characteristics (Table 2)
    "crank_length": 1.8,  # L1 = OA [m] (Table 2)
    "rod_length": 2.0,  # L2 = AB [m] (Table 2)
    "slider_width": 0.5,  # a [m], along the guide axis (Table 2)
    "slider_height": 0.3,  # h [m] (Table 2)
    "clearance": 2.5e-3,  # c [m] (Table 2)
    # Material properties (Table 2)
    "crank_mass": 2.0,  # m1 [kg], uniform rod (Table 2; "uniform rigid rods", section 4.2)
    "rod_mass": 1.0,  # m2 [kg], uniform rod (Table 2)
    "slider_areal_density": 20.0 / 3.0,  # rho [kg/m^2] (Table 2) -> slider mass 1.0 kg
    "young": 1000.0,  # E [Pa] of the slider (Table 2), FE only
    "poisson": 0.3,  # nu of the slider (Table 2), FE only
    "rayleigh_alpha": 0.010,  # (Table 2, listed under contact parameters), FE only
    "rayleigh_beta": 0.544,  # (Table 2), FE only
    "fe_mesh": (2, 2),  # 4 elements, 3 x 3 nodes, rod pinned to centre node 5 (section 4.2);
    #   Fig. 14(b) also uses 8 elements (layout not stated)
    "pin_node": 5,  # the slider node joined to B (section 4.2 text)
    # Contact parameters (Table 2)
    "contact_stiffness": 1.0e4,  # K [N/m], Eq. (1) (Table 2)
    "contact_damping": 1.0e3,  # chi [N s/m], Eq. (1) (Table 2)
    "mu_kinetic": 0.03,  # mu (Table 2)
    "mu_static": 0.04,  # mu' (Table 2)
    "pin_penalty": 1.0e5,  # k_RX = k_RY [N/m] for revolute joint B, Eq. (4) (Table 2)
    "zero_velocity_tol": 1.0e-5,  # eps [m/s] (section 3.2)
    # External forces (Table 2)
    "moment_amplitude": 6.0,  # P0 [N m] in P = P0 sin(Omega t) on the crank (section 4.2)
    "moment_frequency": np.pi / 6.0,  # Omega [rad/s] (Table 2, printed without unit)
    "gravity": 9.81,  # g [m/s^2] (Table 2); ASSUMED along -y on crank, rod and slider
    # Initial conditions (Table 2)
    "theta1_0": 0.0,  # crank angle [rad]; ASSUMED absolute, from +x
    "theta2_0": 0.0,  # rod angle [rad]; ASSUMED absolute, from +x
    "omega1_0": 0.0,  # [rad/s]
    "omega2_0": 0.0,  # [rad/s]
    "slider_u0": 0.0,  # nodal displacements of the slider, u = 0 (Table 2)
    "slider_udot0": 0.0,  # nodal velocities, u_dot = 0 (Table 2)
    # Simulation span (section 4.2: "to simulate 200 seconds")
    "t_end": 200.0,
    # Not in the paper (ASSUMED)
    "guide_offset": 0.0,  # [m] y of the guide centre line; in-line mechanism through O
}


def derived(params: dict) -> dict:
    """Quantities that follow from a parameter table (either example)."""
    out: dict = {}
    g = params["gravity"]
    if "areal_density" in params:  # stick-slip oscillator
        a, h = params["slider_width"], params["slider_height"]
        m = params["areal_density"] * a * h
        k = params["spring_stiffness"]
        out.update(
            slider_mass=m,
            slider_inertia=m * (a**2 + h**2) / 12.0,  # centroidal, kg m^2
            normal_force=m * g,  # rigid slider seated on the lower guide face
            static_limit=params["mu_static"] * m * g,
            kinetic_force=params["mu_kinetic"] * m * g,
            natural_frequency=np.sqrt(k / m),  # rad/s
            natural_period=2.0 * np.pi / np.sqrt(k / m),
            forcing_period=2.0 * np.pi / params["force_frequency"],
            static_sink=m * g / params["contact_stiffness"],  # sink if one node carried m g
        )
    else:  # slider-crank
        a, h = params["slider_width"], params["slider_height"]
        m3 = params["slider_areal_density"] * a * h
        m1, m2 = params["crank_mass"], params["rod_mass"]
        l1, l2 = params["crank_length"], params["rod_length"]
        out.update(
            slider_mass=m3,
            slider_inertia=m3 * (a**2 + h**2) / 12.0,
            crank_inertia_o=m1 * l1**2 / 3.0,  # about the pivot O
            crank_inertia_cm=m1 * l1**2 / 12.0,
            rod_inertia_cm=m2 * l2**2 / 12.0,
            drive_period=2.0 * np.pi / params["moment_frequency"],
            # gravity moment on the crank at theta1 = theta2 = 0 (rod half-weight at A)
            initial_gravity_moment=(0.5 * m1 + 0.5 * m2) * g * l1,
            initial_pin_b=(l1 + l2, 0.0),
        )
    return out


# --------------------------------------------------------------------------------------------
# Reference: rigid-slider stick-slip oscillator, event-driven
# --------------------------------------------------------------------------------------------
@dataclass
class StickSlipReference:
    """Rigid-slider stick-slip solution sampled on a time grid (plus every switching instant).

    Work terms are cumulative from t = 0: ``work_applied`` = int F v dt, ``work_friction`` =
    int f v dt (the friction power on the slider), ``dissipation`` = int -f (v - v_g) dt >= 0.
    The limit-cycle quantities describe the converged cycle (found by integrating past t_end if
    needed). They are NaN if no cycle was found.
    """

    t: np.ndarray
    position: np.ndarray  # x [m]
    velocity: np.ndarray  # x_dot [m/s]
    friction_force: np.ndarray  # f [N], total tangential force from the guide on the slider
    normal_force: np.ndarray  # N [N], total normal force (= m g)
    stick: np.ndarray  # bool, True while the slider moves with the guide
    applied_force: np.ndarray  # F(t) [N]
    work_applied: np.ndarray
    work_friction: np.ndarray
    dissipation: np.ndarray
    stick_intervals: np.ndarray  # (n, 2): start and end time of each stick phase
    switches: list  # (t, x, v, kind, new mode) for each mode change in [0, t_end]
    period: float  # limit-cycle period [s]
    cycle_start: float  # time of the release that starts the converged cycle [s]
    amplitude: float  # (x_max - x_min) / 2 over the converged cycle [m]
    x_max: float
    x_min: float
    stick_time_per_cycle: float  # [s]
    slip_time_per_cycle: float  # [s]
    stick_phases_per_cycle: int
    cycle_stick_durations: np.ndarray  # duration of each stick phase in the cycle [s]
    cycle_energy: dict  # energy balance over the cycle (see ``energy_balance``)


def _ode_rhs(params: dict, mode: int):
    """Right-hand side for y = [x, v, W_applied, W_friction, D] in a given mode.

    mode 0: stick (the slider moves with the guide); mode +1 / -1: slip with sgn(v - v_g).
    """
    d = derived(params)
    m, k, n = d["slider_mass"], params["spring_stiffness"], d["normal_force"]
    f0, om, vg = params["force_amplitude"], params["force_frequency"], params["guide_velocity"]
    muk = params["mu_kinetic"]

    if mode == 0:

        def rhs(t, y):
            force = f0 * np.sin(om * t)
            hold = k * y[0] - force  # friction needed for zero acceleration
            return [vg, 0.0, force * vg, hold * vg, 0.0]

    else:

        def rhs(t, y):
            force = f0 * np.sin(om * t)
            fr = -mode * muk * n
            acc = (force - k * y[0] + fr) / m
            return [y[1], acc, force * y[1], fr * y[1], -fr * (y[1] - vg)]

    return rhs


def _events(params: dict, mode: int):
    """Terminal events that end a phase of the given mode (see ``_ode_rhs``)."""
    d = derived(params)
    k, lim = params["spring_stiffness"], d["static_limit"]
    f0, om, vg = params["force_amplitude"], params["force_frequency"], params["guide_velocity"]
    if mode == 0:  # stick -> slip when the holding force exceeds mu' N

        def up(t, y):
            return (f0 * np.sin(om * t) - k * y[0]) - lim

        def down(t, y):
            return -(f0 * np.sin(om * t) - k * y[0]) - lim

        evs = [up, down]
    else:  # slip -> (stick or reversal) when the relative velocity reaches zero

        def zero_rel(t, y):
            return mode * (y[1] - vg)

        zero_rel.direction = -1
        evs = [zero_rel]
    for ev in evs:
        ev.terminal = True
        if not hasattr(ev, "direction") or ev.direction == 0:
            ev.direction = 1
    return evs


def _mode_at_rest(params: dict, t: float, x: float) -> int:
    """Mode when the relative velocity is zero: 0 if static friction holds, else slip sign."""
    d = derived(params)
    drive = params["force_amplitude"] * np.sin(params["force_frequency"] * t)
    drive -= params["spring_stiffness"] * x
    if abs(drive) <= d["static_limit"]:
        return 0
    return 1 if drive > 0 else -1


def slip_closed_form(params: dict, t0: float, x0: float, v0: float, sign: int, t):
    """Closed-form slip arc: m x'' + k x = F_max sin(Omega t) - sign mu N, from (t0, x0, v0).

    Returns x(t), v(t). Valid while the slip direction stays ``sign`` (Omega != omega_n).
    """
    d = derived(params)
    m, k = d["slider_mass"], params["spring_stiffness"]
    w, om, f0 = d["natural_frequency"], params["force_frequency"], params["force_amplitude"]
    amp = f0 / (k - m * om**2)  # particular harmonic response
    off = -sign * d["kinetic_force"] / k  # constant offset from kinetic friction
    c1 = x0 - amp * np.sin(om * t0) - off
    c2 = (v0 - amp * om * np.cos(om * t0)) / w
    tau = np.asarray(t) - t0
    x = c1 * np.cos(w * tau) + c2 * np.sin(w * tau) + amp * np.sin(om * np.asarray(t)) + off
    v = -c1 * w * np.sin(w * tau) + c2 * w * np.cos(w * tau)
    v = v + amp * om * np.cos(om * np.asarray(t))
    return x, v


def _integrate(params: dict, t: float, y, mode: int, t_stop: float, rtol: float, atol: float):
    """Integrate phase by phase from (t, y, mode) to t_stop.

    Returns the segments (t_a, t_b, mode, dense), the switches (t, x, v, kind, slip sign), and
    the final (t, y, mode).
    """
    vg = params["guide_velocity"]
    segments, switches = [], []
    y = np.asarray(y, dtype=float).copy()
    while t < t_stop:
        sol = solve_ivp(
            _ode_rhs(params, mode),
            (t, t_stop),
            y,
            method="DOP853",
            rtol=rtol,
            atol=atol,
            events=_events(params, mode),
            dense_output=True,
        )
        if sol.status < 0:
            raise RuntimeError(sol.message)
        t_b = float(sol.t[-1])
        y_b = sol.y[:, -1].copy()
        segments.append((t, t_b, mode, sol.sol))
        if sol.status == 0:  # reached t_stop
            t, y = t_b, y_b
            break
        if mode == 0:
            new = 1 if sol.t_events[0].size else -1
            switches.append((t_b, y_b[0], y_b[1], "release", new))
        else:
            y_b[1] = vg  # the relative velocity is exactly zero here
            new = _mode_at_rest(params, t_b, y_b[0])
            if new == mode:  # numerical tie at the threshold: keep slipping
                new = -mode
            switches.append((t_b, y_b[0], y_b[1], "stick" if new == 0 else "reversal", new))
        t, y, mode = t_b, y_b, new
    return segments, switches, (t, y, mode)


def _find_cycle(switches: list, period_f: float, x_tol: float, t_tol: float):
    """Indices (j, i) of two releases one limit cycle apart (i the last release), or None."""
    rel = [s for s in switches if s[3] == "release"]
    if len(rel) < 2:
        return None
    last = rel[-1]
    for cand in reversed(rel[:-1]):
        dt = last[0] - cand[0]
        if np.isfinite(period_f):
            ph = dt / period_f
            if round(ph) == 0 or abs(ph - round(ph)) * period_f > t_tol:
                continue
        if cand[4] == last[4] and abs(cand[1] - last[1]) < x_tol:
            return cand, last
    return None


def _sample(segments: list, dt_out: float, t_last: bool = True):
    """Sample the segments on a uniform grid plus the start of every segment (and the end)."""
    ts, ys, ms = [], [], []
    for i, (ta, tb, md, dense) in enumerate(segments):
        grid = np.arange(np.ceil(ta / dt_out) * dt_out, tb, dt_out)
        grid = grid[(grid > ta) & (grid < tb)]
        end = [tb] if (t_last and i == len(segments) - 1) else []
        tt = np.concatenate(([ta], grid, end))
        ts.append(tt)
        ys.append(dense(tt))
        ms.append(np.full(tt.size, md))
    return np.concatenate(ts), np.concatenate(ys, axis=1), np.concatenate(ms)


def stick_slip_reference(
    t_end: float,
    params: dict = STICK_SLIP,
    dt_out: float = 0.01,
    rtol: float = 1e-11,
    atol: float = 1e-13,
    x_tol: float = 1e-9,
    max_cycles: int = 500,
) -> StickSlipReference:
    """Event-driven reference for the rigid-slider stick-slip oscillator (1 DOF, N = m g).

    Stick and slip are integrated as separate smooth phases with ``solve_ivp`` (DOP853). A stick
    phase ends when the holding force |F - k x| exceeds mu' N, and the slider then slips in the
    direction of F - k x. A slip phase ends when the velocity relative to the guide reaches
    zero. The slider then sticks if mu' N can hold it, and otherwise slips the other way.

    The arrays cover [0, t_end] from the initial conditions of Table 1. The limit cycle is
    obtained by continuing the same integration past t_end until two releases (stick -> slip
    instants) with the same slip direction, the same position (within ``x_tol``) and the same
    forcing phase lie one cycle apart. The period, amplitude, stick and slip times and
    ``cycle_energy`` all describe that converged cycle.
    """
    d = derived(params)
    k, n = params["spring_stiffness"], d["normal_force"]
    f0, om, vg = params["force_amplitude"], params["force_frequency"], params["guide_velocity"]
    forced = f0 != 0.0 and om != 0.0
    period_f = d["forcing_period"] if forced else np.inf

    y0 = np.array([params["x0"], params["v0"], 0.0, 0.0, 0.0])
    rel0 = y0[1] - vg
    mode0 = int(np.sign(rel0)) if rel0 != 0.0 else _mode_at_rest(params, 0.0, y0[0])
    segments, switches, state = _integrate(params, 0.0, y0, mode0, t_end, rtol, atol)

    # ---- samples on [0, t_end]
    tt, yy, mm = _sample(segments, dt_out)
    stick = mm == 0
    force = f0 * np.sin(om * tt)
    vel = np.where(stick, vg, yy[1])
    friction = np.where(stick, k * yy[0] - force, -mm * params["mu_kinetic"] * n)
    intervals = np.array([(ta, tb) for ta, tb, md, _ in segments if md == 0]).reshape(-1, 2)

    # ---- limit cycle: continue the integration until a release repeats
    chunk = period_f if forced else 20.0 * d["natural_period"]
    all_segments, all_switches = list(segments), list(switches)
    t_tol = 1e3 * x_tol
    found = _find_cycle(all_switches, period_f, x_tol, t_tol)
    for _ in range(max_cycles):
        if found is not None:
            break
        t, y, mode = state
        seg, sw, state = _integrate(params, t, y, mode, t + chunk, rtol, atol)
        all_segments += seg
        all_switches += sw
        found = _find_cycle(all_switches, period_f, x_tol, t_tol)

    nan = float("nan")
    cyc = dict(
        period=nan,
        cycle_start=nan,
        amplitude=nan,
        x_max=nan,
        x_min=nan,
        stick_time_per_cycle=nan,
        slip_time_per_cycle=nan,
        stick_phases_per_cycle=0,
        cycle_stick_durations=np.empty(0),
        cycle_energy={},
    )
    if found is not None:
        ta, tb = found[0][0], found[1][0]
        inside = [s for s in all_segments if s[1] > ta and s[0] < tb]
        xs, ys_a, ys_b = [], None, None
        for sa, sb, _, dense in inside:
            lo, hi = max(sa, ta), min(sb, tb)
            yy_c = dense(np.linspace(lo, hi, 401))
            xs.append(yy_c[0])
            if ys_a is None:
                ys_a = yy_c[:, 0]
            ys_b = yy_c[:, -1]
        xs = np.concatenate(xs)
        durs = np.array([min(sb, tb) - max(sa, ta) for sa, sb, md, _ in inside if md == 0])
        # at both ends the slider is releasing, so its velocity is exactly v_g
        e_a = mechanical_energy(params, ys_a[0], vg)
        e_b = mechanical_energy(params, ys_b[0], vg)
        w_app, w_fr, diss = (ys_b[2:] - ys_a[2:]).tolist()
        cyc.update(
            period=float(tb - ta),
            cycle_start=float(ta),
            x_max=float(xs.max()),
            x_min=float(xs.min()),
            amplitude=float(0.5 * (xs.max() - xs.min())),
            stick_time_per_cycle=float(durs.sum()),
            slip_time_per_cycle=float(tb - ta - durs.sum()),
            stick_phases_per_cycle=int(durs.size),
            cycle_stick_durations=durs,
            cycle_energy=dict(
                dE=float(e_b - e_a),
                work_applied=w_app,
                work_friction=w_fr,
                dissipation=diss,
                guide_input=w_fr + diss,
                residual=float(e_b - e_a - w_app - w_fr),
            ),
        )

    return StickSlipReference(
        t=tt,
        position=yy[0],
        velocity=vel,
        friction_force=friction,
        normal_force=np.full(tt.size, n),
        stick=stick,
        applied_force=force,
        work_applied=yy[2],
        work_friction=yy[3],
        dissipation=yy[4],
        stick_intervals=intervals,
        switches=switches,
        **cyc,
    )


def mechanical_energy(params: dict, x, v):
    """Kinetic plus spring energy of the slider [J] (gravity does no work: y is fixed)."""
    m = derived(params)["slider_mass"]
    return 0.5 * m * np.asarray(v) ** 2 + 0.5 * params["spring_stiffness"] * np.asarray(x) ** 2


def energy_balance(ref: StickSlipReference, params: dict, t_a: float, t_b: float) -> dict:
    """Energy balance between two sample times: dE - (W_applied + W_friction) should be 0."""
    ia = int(np.argmin(np.abs(ref.t - t_a)))
    ib = int(np.argmin(np.abs(ref.t - t_b)))
    e = mechanical_energy(params, ref.position[[ia, ib]], ref.velocity[[ia, ib]])
    w_app = ref.work_applied[ib] - ref.work_applied[ia]
    w_fr = ref.work_friction[ib] - ref.work_friction[ia]
    diss = ref.dissipation[ib] - ref.dissipation[ia]
    return dict(
        dE=float(e[1] - e[0]),
        work_applied=float(w_app),
        work_friction=float(w_fr),
        dissipation=float(diss),
        guide_input=float(w_fr + diss),  # work of the moving guide (zero for a fixed guide)
        residual=float(e[1] - e[0] - w_app - w_fr),
    )


def tipping_ratio(ref: StickSlipReference, params: dict, force_offset: float) -> float:
    """max |moment of horizontal loads about the centre of mass| / (m g a / 2).

    For the rigid slider seated flat on the lower guide, moment balance about its centre of mass
    (theta'' = 0) gives N_right - N_left = (2 / a) (e_F F - e_k k x - (h / 2) f). Here e_F is the
    height of the line of F above the mid-plane (``force_offset``), e_k that of the spring line,
    and f the friction, which acts on the bottom face at -h/2. Both lower corners keep contact,
    so the 1-DOF reduction holds, while the ratio is <= 1.
    """
    d = derived(params)
    a, h = params["slider_width"], params["slider_height"]
    moment = (
        force_offset * ref.applied_force
        - params["spring_offset"] * params["spring_stiffness"] * ref.position
        - 0.5 * h * ref.friction_force
    )
    return float(np.max(np.abs(moment)) / (0.5 * a * d["normal_force"]))


def _slip_arc_error(ref: StickSlipReference, params: dict) -> float:
    """Largest gap between the integrated slip arcs and ``slip_closed_form`` [m]."""
    err = 0.0
    times = [0.0] + [s[0] for s in ref.switches] + [ref.t[-1]]
    for ta, tb in zip(times[:-1], times[1:], strict=True):
        sel = (ref.t >= ta) & (ref.t <= tb)
        if not sel.any() or ref.stick[sel][1:-1].any() or np.all(ref.stick[sel]):
            continue
        i0 = int(np.flatnonzero(sel)[0])
        sign = int(np.sign(ref.friction_force[min(i0 + 1, ref.t.size - 1)]) * -1)
        x, _ = slip_closed_form(
            params, ref.t[i0], ref.position[i0], ref.velocity[i0], sign, ref.t[sel]
        )
        err = max(err, float(np.max(np.abs(x - ref.position[sel]))))
    return err


if __name__ == "__main__":
    p = STICK_SLIP
    d = derived(p)
    print("Stick-slip oscillator (rigid slider, 1 DOF, N = m g)")
    print(
        f"  m = {d['slider_mass']:.4f} kg, N = {d['normal_force']:.4f} N, "
        f"mu' N = {d['static_limit']:.4f} N, mu N = {d['kinetic_force']:.4f} N"
    )
    print(
        f"  omega_n = {d['natural_frequency']:.4f} rad/s (T_n = {d['natural_period']:.4f} s), "
        f"forcing period = {d['forcing_period']:.4f} s"
    )
    t_end = 10.0 * d["forcing_period"]
    ref = stick_slip_reference(t_end, p)
    print(f"  simulated 0..{t_end:.1f} s, {len(ref.switches)} switches")
    print(f"  first release at t = {ref.switches[0][0]:.6f} s")
    print(
        f"  limit-cycle period  = {ref.period:.6f} s (converged cycle starts at t = "
        f"{ref.cycle_start:.4f} s)"
    )
    print(
        f"  amplitude (x_max - x_min)/2 = {ref.amplitude:.6f} m "
        f"(x_max = {ref.x_max:.6f}, x_min = {ref.x_min:.6f})"
    )
    print(
        f"  per cycle: {ref.stick_phases_per_cycle} stick phases, stick = "
        f"{ref.stick_time_per_cycle:.6f} s, slip = {ref.slip_time_per_cycle:.6f} s"
    )
    print(
        "  stick durations in the cycle [s]:",
        np.array2string(ref.cycle_stick_durations, precision=6),
    )
    eb = ref.cycle_energy
    print("  energy balance over one limit cycle [J]:")
    print(
        f"    W_applied = {eb['work_applied']:.9f}, W_friction = {eb['work_friction']:.9f}, "
        f"dissipation = {eb['dissipation']:.9f}, guide input = {eb['guide_input']:.2e}"
    )
    print(
        f"    dE = {eb['dE']:.2e}, residual dE - W_applied - W_friction = {eb['residual']:.2e}, "
        f"W_applied - dissipation = {eb['work_applied'] - eb['dissipation']:.2e}"
    )
    eb0 = energy_balance(ref, p, 0.0, ref.t[-1])
    print(f"  energy residual over the whole run = {eb0['residual']:.2e} J")
    print(f"  slip arcs vs closed form: max |dx| = {_slip_arc_error(ref, p):.2e} m")
    for s in (p["force_offset"], -p["force_offset"]):
        r = tipping_ratio(ref, p, s)
        print(f"  tipping ratio (F line {s:+.2f} m from mid-plane) = {r:.3f} (flat if <= 1)")
    dc = derived(SLIDER_CRANK_MOMENT)
    print("Slider-crank (Table 2), derived:")
    print(
        f"  slider mass = {dc['slider_mass']:.4f} kg, crank J_O = {dc['crank_inertia_o']:.4f}, "
        f"rod J_G = {dc['rod_inertia_cm']:.4f}, slider J_G = {dc['slider_inertia']:.5f} kg m^2"
    )
    print(
        f"  drive period = {dc['drive_period']:.1f} s, gravity moment on crank at t = 0 = "
        f"{dc['initial_gravity_moment']:.2f} N m vs P0 = "
        f"{SLIDER_CRANK_MOMENT['moment_amplitude']:.1f} N m"
    )
