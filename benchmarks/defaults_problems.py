"""The problems of `python -m benchmarks.defaults_table` (issue "The default run is the best
run", item 3): each a system built from a case or from the public API, its span and steps, and
its error against an independent reference (never a run of nlpmbd itself).

- pendulum: the ideal pendulum, 10 s; max |theta - theta_ref| (rad) against the
  minimal-coordinate ODE I_O theta'' = -m g L cos(theta) (scipy, rtol 1e-12).
- pendulum_c0: the clearance pendulum at c = 1e-6 m (c -> 0), 1 s; max distance (m) of the
  centre of mass from the ideal ODE's (the play itself accounts for ~2 c).
- cylinder_c0: the cylindrical slider swinging round its rod (offset 0.1 m) at c = 1e-6 m, 1 s;
  max distance (m) of the centre of mass from the ideal joint's motion: the swing ODE about Z
  (I_z = J_zz + m e^2) and z = F t^2 / 2m along the rod (the play itself accounts for ~8 c,
  tests/test_clearance_limit.py).
- slider_crank: Flores, Leine and Glocker's slider-crank (c = 1 mm, e = 0.4, mu = 0.01), two
  crank turns (0.14 s); max |crank angle - reference| (rad) against the Moreau-LCP reference
  (references/ref_slider_crank_lcp.py), Richardson-extrapolated from h = 1e-6 and 5e-7 s (it
  converges at first order: 6.1e-3 and 2.0e-3 rad from the 5e-7 run at 2e-6 and 1e-6; the
  extrapolations from (2e-6, 1e-6) and (1e-6, 5e-7) differ by 7e-5 rad).
- spatial_all: spatial_slider_crank --set clearance_at=all (frictionless, inelastic), 2 s;
  max(E) - E(0) (J): the energy may never rise above its start.
- four_bar_c0: four_bar with play c = 1e-6 m in all four pins, one crank turn (1 s); max
  |rocker angle - Freudenstein's| (rad) (references/ref_four_bar.py); the play itself moves the
  rocker by about 10 c = 1e-5 rad (tests/test_four_bar.py).
- slope: a block sliding on a 30 deg slope (mu = 0.3), launched uphill at 2 m/s and pushed
  sideways by 2 N, 1 s; max distance (m) of its centre of mass from the 2-D ODE
  m a = F_t - mu N v/|v| (the Coulomb cone). The QP path's spatial friction is a box today;
  slope_nlp runs the same on the NLP path (IPOPT per step, the cone).
- bounce: a ball dropped from 0.5 m on a floor with e = 1 (frictionless), 3 s; max |E - E0| /
  m g (m): the apex height the state predicts, against the drop height.
- flexible: stick_slip --set slider=flexible with the rigid slider's play (2 c = 5 mm in
  total: clearance=5e-3), 20 s, first-order scheme only; max |x - x_ref| (m) of the mean node x
  against references/ref_flexible_slider.py (penalty contact, regularised friction: a model
  floor of ~1e-2 m that no step size removes).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pyquaternion import Quaternion
from scipy.integrate import solve_ivp

from nlpmbd import Force, RigidBody, SimulationResult, System
from nlpmbd.apps.registry import get_case
from nlpmbd.model.contact import HardContact
from nlpmbd_joints import PlaneContact
from nlpmbd_joints.guide_data import crank_angle
from references import ref_flexible_slider, ref_slider_crank_lcp
from references.ref_four_bar import rocker_angle
from references.ref_pendulum import swing as ref_swing

G = 9.81


@dataclass(frozen=True)
class Problem:
    """One row group of the table: `build` gives the system, `error` its error (unit in
    `metric`); `h` the fixed step, `h_range` the controller's; `gaps`: it has hard contacts
    (gap_correction matters), `radial`: pin or ball gaps (gap_linearization matters)."""

    name: str
    metric: str
    build: Callable[[], System]
    error: Callable[[SimulationResult], float]
    t_end: float
    h: float
    h_range: tuple[float, float]
    gaps: bool = True
    radial: bool = False
    schemes: tuple[str, ...] = ("euler", "verlet")
    corrections: tuple[str, ...] = ("curvature+projection", "projection", "curvature")
    #: the reference's own uncertainty or the model floor (same unit as the error)
    floor: float = 0.0
    #: counted in the ranking (not: a known model defect, or not every candidate runs it)
    scored: bool = True
    #: options the problem needs besides the candidate's (the NLP path)
    options: tuple[tuple[str, str], ...] = (("solver", "auto"), ("codegen", "on"))


def _case(name: str, **params) -> Callable[[], System]:
    return lambda: get_case(name).build(params)[0]


@functools.cache
def swing(t_end: float, m: float, L: float, I_O: float):
    """references/ref_pendulum.py's theta(t), computed once per problem."""
    return ref_swing(t_end, m, L, I_O, G)


def pendulum_theta(res: SimulationResult) -> np.ndarray:
    return np.unwrap(np.arctan2(res.q[:, 1], res.q[:, 0]))


def _pendulum_error(res: SimulationResult) -> float:
    theta = swing(10.0, 1.0, 0.5, 0.085 + 0.25)
    return float(np.max(np.abs(pendulum_theta(res) - theta(res.t))))


def _com_error(res: SimulationResult, ref: np.ndarray) -> float:
    return float(np.linalg.norm(res.q[:, :3] - ref, axis=1).max())


def _pendulum_c0_error(res: SimulationResult) -> float:
    th = swing(1.0, 1.0, 0.5, 0.085 + 0.25)(res.t)
    return _com_error(res, np.column_stack([0.5 * np.cos(th), 0.5 * np.sin(th), 0 * th]))


def _cylinder_c0_error(res: SimulationResult) -> float:
    """The slider (1 kg box 0.06 x 0.04 m across the rod, J_zz = m (a^2 + b^2) / 12) with its
    centre of mass e = 0.1 m off the rod; F = 10 N along the rod."""
    e = 0.1
    th = swing(1.0, 1.0, e, (0.06**2 + 0.04**2) / 12 + e**2)(res.t)
    ref = np.column_stack([e * np.cos(th), e * np.sin(th), 5.0 * res.t**2])
    return _com_error(res, ref)


@functools.cache
def lcp_reference(h: float) -> tuple[np.ndarray, np.ndarray]:
    ref = ref_slider_crank_lcp.simulate(h, t_end=0.14)
    return ref.t, ref.theta


@functools.cache
def lcp_extrapolated() -> tuple[np.ndarray, np.ndarray]:
    """The crank angle of the first-order Moreau scheme extrapolated to h -> 0 from h = 1e-6
    and 5e-7 s (Richardson), on the finer grid."""
    t, fine = lcp_reference(5e-7)
    return t, 2 * fine - np.interp(t, *lcp_reference(1e-6))


def _slider_crank_error(res: SimulationResult) -> float:
    t, theta = lcp_extrapolated()
    return float(np.max(np.abs(crank_angle(res) - np.interp(res.t, t, theta))))


def _energy_rise(res: SimulationResult) -> float:
    e = res.energy[:, 2]
    return float(e.max() - e[0])


def _four_bar_error(res: SimulationResult) -> float:
    rocker = 2 * np.arctan2(res.q[:, 20], res.q[:, 17])  # body 3's Euler parameters e3, e0
    return float(np.max(np.abs(rocker - rocker_angle(2 * np.pi * res.t))))


# ---- the block on a slope ----------------------------------------------------------------
ALPHA, MU_SLOPE, PUSH, V_UP = np.radians(30.0), 0.3, 2.0, 2.0
#: the slope's normal and its two tangents: horizontal (the push) and downhill
N_SLOPE = np.array([0.0, np.cos(ALPHA), np.sin(ALPHA)])
E_SIDE, E_DOWN = np.array([1.0, 0.0, 0.0]), np.array([0.0, -np.sin(ALPHA), np.cos(ALPHA)])
HALF = (0.05, 0.02, 0.05)  # m: the block's half sizes (body y along the slope's normal)


def slope_block() -> System:
    """1 kg block 0.1 x 0.04 x 0.1 m, its four lower corners on the slope through the origin,
    launched uphill; a constant horizontal push along +X at its centre of mass."""
    a, b, c = HALF
    m = 1.0
    J = (m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3)
    system = System(gravity=(0.0, -G, 0.0))
    block = system.add_body(
        RigidBody(
            "block",
            m,
            J,
            position=b * N_SLOPE,
            orientation=Quaternion(axis=[1, 0, 0], radians=ALPHA),
            velocity=-V_UP * E_DOWN,
        )
    )
    corners = [(sx * a, -b, sz * c) for sx in (-1, 1) for sz in (-1, 1)]
    law = HardContact(mu=MU_SLOPE)
    system.add_joint(PlaneContact("slope", block, corners, normal=N_SLOPE, contact=law))
    system.add_load(Force(block, (PUSH, 0.0, 0.0), name="push"))
    return system


@functools.cache
def slope_reference(t_end: float):
    """(side, down) position of the sliding point: m a = F_t - mu N v / |v| (it never sticks:
    |F_t| = 5.3 N > mu N = 2.5 N, and v never passes through zero)."""
    f_t = np.array([PUSH, G * np.sin(ALPHA)])
    friction = MU_SLOPE * G * np.cos(ALPHA)

    def rhs(_, y):
        v = y[2:]
        return [*v, *(f_t - friction * v / np.linalg.norm(v))]

    sol = solve_ivp(rhs, (0, t_end), [0, 0, 0, -V_UP], rtol=1e-12, atol=1e-12, dense_output=True)
    return lambda t: sol.sol(t)[:2]


def _slope_error(res: SimulationResult) -> float:
    side, down = slope_reference(1.0)(res.t)
    ref = HALF[1] * N_SLOPE + np.outer(side, E_SIDE) + np.outer(down, E_DOWN)
    return _com_error(res, ref)


# ---- the elastic bounce ------------------------------------------------------------------
def bouncing_ball() -> System:
    """1 kg ball of radius 0.05 m, its lowest point 0.5 m above the floor y = 0, moving along X
    at 0.5 m/s; e = 1, frictionless."""
    system = System(gravity=(0.0, -G, 0.0))
    ball = system.add_body(
        RigidBody("ball", 1.0, (1e-3,) * 3, position=(0, 0.55, 0), velocity=(0.5, 0, 0))
    )
    law = HardContact(restitution=1.0)
    system.add_joint(PlaneContact("floor", ball, [(0.0, -0.05, 0.0)], contact=law))
    return system


def _apex_error(res: SimulationResult) -> float:
    return float(np.max(np.abs(res.energy[:, 2] - res.energy[0, 2])) / G)


# ---- the flexible stick-slip oscillator --------------------------------------------------
PLAY = 5e-3  # m: the rigid slider's play in total, 2 x 2.5 mm


@functools.cache
def flexible_reference(t_end: float) -> tuple[np.ndarray, np.ndarray]:
    ref = ref_flexible_slider.simulate(t_end, {"clearance": PLAY})
    x = ref.positions[:, :, 0].mean(axis=1)
    return ref.t, x - x[0]


def _flexible_error(res: SimulationResult) -> float:
    t, x_ref = flexible_reference(float(round(res.t[-1], 6)))
    x = res.node_q[:, :, 0].mean(axis=1)
    return float(np.max(np.abs(np.interp(t, res.t, x - x[0]) - x_ref)))


def problems(flexible_t_end: float = 20.0) -> list[Problem]:
    return [
        Problem(
            "pendulum", "max |theta - theta_ref| (rad), 10 s", _case("pendulum"),
            _pendulum_error, 10.0, 1e-3, (1e-3, 2e-3), gaps=False,
        ),
        Problem(
            "pendulum_c0", "max |CoM - ideal ODE's| (m), c = 1e-6 m, 1 s",
            _case("pendulum", joint="clearance", clearance=1e-6), _pendulum_c0_error,
            1.0, 1e-3, (1e-3, 2e-3), radial=True, floor=2e-6,
        ),
        Problem(
            "cylinder_c0", "max |CoM - ideal joint's| (m), c = 1e-6 m, offset 0.1 m, 1 s",
            _case("cylindrical", clearance=1e-6, offset=0.1), _cylinder_c0_error,
            1.0, 1e-3, (1e-3, 1e-2), radial=True, floor=8e-6,
        ),
        Problem(
            "slider_crank", "max |crank angle - Moreau LCP, extrapolated| (rad), 0.14 s",
            _case("slider_crank"), _slider_crank_error, 0.14, 1e-5, (1e-6, 1e-4),
            floor=1e-4,
        ),
        Problem(
            "spatial_all", "max E - E(0) (J), clearance_at=all, 2 s",
            _case("spatial_slider_crank", clearance_at="all"), _energy_rise,
            2.0, 1e-3, (1e-4, 1e-3), radial=True, floor=1e-9,
        ),
        Problem(
            "four_bar_c0", "max |rocker - Freudenstein| (rad), c = 1e-6 m all pins, 1 s",
            _case("four_bar", clearance_at="all", clearance=1e-6), _four_bar_error,
            1.0, 1e-3, (1e-4, 1e-3), radial=True, floor=1e-5,
        ),
        Problem(
            "slope", "max |CoM - Coulomb-cone ODE| (m), pushed sideways, 1 s",
            slope_block, _slope_error, 1.0, 1e-3, (1e-3, 1e-2), scored=False,
        ),
        Problem(
            "slope_nlp", "the same on the NLP path (the Coulomb cone)", slope_block, _slope_error,
            1.0, 1e-3, (1e-3, 1e-2), corrections=("curvature+projection",),
            options=(("solver", "nlp"), ("codegen", "off")), scored=False,
        ),
        Problem(
            "bounce", "max |E - E0| / m g (m), e = 1, 3 s", bouncing_ball, _apex_error,
            3.0, 1e-3, (1e-3, 1e-2), floor=1e-9,
        ),
        Problem(
            "flexible", f"max |mean x - ref| (m), play 5 mm, {flexible_t_end:g} s",
            _case("stick_slip", slider="flexible", clearance=PLAY), _flexible_error,
            flexible_t_end, 2e-3, (2e-3, 1e-2), schemes=("euler",), floor=1e-2, scored=False,
        ),
    ]  # fmt: skip
