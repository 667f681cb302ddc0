"""Spatial Coulomb friction on the QP path is the cone, not a box (step/qp_cone.py).

A block slides down a slope while a constant force pushes it sideways. Coulomb's cone resists
the motion along the slip only, so the block drifts sideways as a point mass under
f = -mu N v/|v| does (scipy's integration of that ODE is the reference); a friction box in a
basis along the slip held the push by its second component (no drift at all). The friction
force never exceeds mu lambda, and a block pushed below the cone's limit stays where it is.
"""

from __future__ import annotations

import numpy as np
import pytest
from pyquaternion import Quaternion
from scipy.integrate import solve_ivp

from nlpmbd import RigidBody, SimulationOptions, System, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.contact import HardContact
from nlpmbd.model.forces import Force
from nlpmbd_joints import PlaneContact

G, A, H = 9.81, 0.1, 1e-3  # m/s^2, cube edge (m), step (s)
SIDE = np.array([0.0, 0.0, 1.0])  # the push's direction, in the slope's plane


def block_on_slope(
    alpha: float, mu: float, v0: float, push: float, corners: bool = True, system=None
):
    """A 1 kg cube on a plane tilted by `alpha` degrees about Z, sliding down at v0 m/s and
    pushed along +Z by `push` N (added to `system` if given); with `corners` False a puck: one
    contact at its centre of mass (no friction torque, a point mass). Returns the system and
    the down-slope direction."""
    al = np.radians(alpha)
    n = np.array([-np.sin(al), np.cos(al), 0.0])
    down = -np.array([np.cos(al), np.sin(al), 0.0])
    system = System(gravity=(0, -G, 0)) if system is None else system
    cube = system.add_body(
        RigidBody(
            "cube",
            1.0,
            (A**2 / 6,) * 3,
            position=tuple(n * A / 2) if corners else (0.0, 0.0, 0.0),
            orientation=Quaternion(axis=[0, 0, 1], angle=al),
            velocity=tuple(v0 * down),
        )
    )
    points = [(sx * A / 2, -A / 2, sz * A / 2) for sx in (-1, 1) for sz in (-1, 1)]
    points = points if corners else [(0.0, 0.0, 0.0)]
    system.add_joint(PlaneContact("slope", cube, points, normal=n, contact=HardContact(mu=mu)))
    system.add_load(Force(cube, tuple(push * SIDE)))
    return system, down


def point_mass(alpha: float, mu: float, v0: float, push: float, t_end: float):
    """The in-plane motion (down-slope, sideways) of a point mass under the Coulomb cone."""
    al = np.radians(alpha)
    drive = np.array([G * np.sin(al), push])

    def rhs(_t, y):
        v = y[2:]
        return [*v, *(drive - mu * G * np.cos(al) * v / np.linalg.norm(v))]

    return solve_ivp(rhs, (0, t_end), [0, 0, v0, 0], rtol=1e-12, atol=1e-14).y[:, -1]


def run(system: System, solver: str, t_end: float, codegen: str = "off", **options):
    options |= {"t_end": t_end, "h_min": H, "h_max": H, "solver": solver, "codegen": codegen}
    return simulate(system, SimulationOptions(**options))


@pytest.mark.slow
def test_pushed_sliding_block_drifts_as_the_cone_says():
    """Slope 30 deg, mu 0.3 (it accelerates), 1 m/s down, 1 N sideways, 0.5 s: the drift is
    the point mass's within the scheme's first-order error (0.13% at this h), the same on
    both paths, and the total friction force opposes the velocity."""
    args, t_end = (30.0, 0.3, 1.0, 1.0), 0.5
    runs = {}
    for solver, codegen in (("qp", "on"), ("nlp", "off")):
        system, down = block_on_slope(*args)
        # euler: its friction opposes the end-of-step velocity (verlet's, the step's mean force,
        # opposes a velocity between the step's ends)
        runs[solver] = run(system, solver, t_end, codegen, integrator="euler")
    qp = runs["qp"]
    assert qp.meta["chunk_steps"] == len(qp.h) and qp.meta["qp_fallback_steps"] == 0
    drift = {k: r.q[-1, :3] @ SIDE - r.q[0, :3] @ SIDE for k, r in runs.items()}
    reference = point_mass(*args, t_end)
    assert reference[1] > 0.09  # it does drift: 9.7 cm
    assert drift["qp"] == pytest.approx(reference[1], rel=5e-3)
    assert abs(drift["qp"] - drift["nlp"]) < 1e-7
    slid = (qp.q[-1, :3] - qp.q[0, :3]) @ down
    assert slid == pytest.approx(reference[0], rel=5e-3)
    # Coulomb: the friction force is -mu N v/|v| (the end-of-step velocity, rigid translation)
    total = qp.friction_force[1:].sum(axis=1)
    v = qp.v[1:, :3]
    cosine = (
        np.einsum("ij,ij->i", total, v) / np.linalg.norm(total, axis=1) / np.linalg.norm(v, axis=1)
    )
    assert cosine.max() < -1 + 1e-12
    normal = qp.lam[1:].sum(axis=1)
    assert np.linalg.norm(total, axis=1) == pytest.approx(0.3 * normal, rel=1e-6)


def test_friction_never_exceeds_mu_lambda():
    """A puck (one contact, a point mass) on a 10 deg slope, mu 0.5, sent down at 1 m/s and
    pushed sideways by 2 N: it slides on a curve, stops and sticks (the push and the slope's
    pull, 2.6 N, are below mu N = 4.8 N). Per step |f| <= mu lambda (1 + 1e-6); and so does
    the total of the sliding 4-corner block of the first test (whose split over the corners
    is not unique)."""
    system, _ = block_on_slope(10.0, 0.5, 1.0, 2.0, corners=False)
    r = run(system, "qp", 0.6)
    f = np.linalg.norm(r.friction_force[1:, 0], axis=1)
    lam = r.lam[1:, 0]
    assert np.all(f <= 0.5 * lam * (1 + 1e-6))
    speed = np.linalg.norm(r.v[:, :3], axis=1)
    assert speed[len(speed) // 2] > 0.01 and speed[-1] < 1e-9  # it slid, then stuck
    assert np.ptp(r.v[:, 2]) > 0.05  # sideways: a curve
    system, _ = block_on_slope(30.0, 0.3, 1.0, 1.0)
    r = run(system, "qp", 0.2)
    total = np.linalg.norm(r.friction_force[1:].sum(axis=1), axis=1)
    assert np.all(total <= 0.3 * r.lam[1:].sum(axis=1) * (1 + 1e-6))


@pytest.mark.parametrize("ratio", [0.95, 1.05])
def test_block_sticks_below_the_cone_and_slides_along_the_resultant_above(ratio):
    """At rest on a 10 deg slope, mu 0.5, pushed sideways so that the push and the slope's
    pull add up to `ratio` mu N: below 1 it stays where it is (the box of the old QP held up
    to sqrt(2) mu N, the inscribed polygon alone 0.87 mu N); above, it slides along their
    resultant with acceleration (|F| - mu N) / m."""
    al, mu = np.radians(10.0), 0.5
    pull, limit = G * np.sin(al), mu * G * np.cos(al)
    push = np.sqrt((ratio * limit) ** 2 - pull**2)
    system, down = block_on_slope(10.0, mu, 0.0, push)
    r = run(system, "qp", 0.3)
    moved = r.q[:, :3] - r.q[0, :3]
    if ratio < 1:
        assert np.abs(moved).max() <= 1e-9
        return
    resultant = (pull * down + push * SIDE) / (ratio * limit)
    v = r.v[1:, :3]
    along = v @ resultant
    assert np.linalg.norm(v - np.outer(along, resultant), axis=1).max() < 1e-8 * along.max()
    accel = (along[-1] - along[0]) / (r.t[-1] - r.t[1])
    assert accel == pytest.approx((ratio - 1) * limit, rel=1e-6)


def test_planar_contacts_keep_their_exact_split_beside_spatial_ones():
    """stick_slip's slider (planar contacts: one tangent, split p - n) and the pushed block
    (spatial: the cone) in one model, one QP per step: the slider moves as it does alone, the
    block drifts as the point mass."""
    options = SimulationOptions(t_end=0.3, h_min=2e-3, h_max=2e-3, solver="qp", codegen="off")
    alone = simulate(get_case("stick_slip").build({})[0], options)
    system, _ = get_case("stick_slip").build({})
    block_on_slope(30.0, 0.3, 1.0, 1.0, system=system)
    both = simulate(system, options)
    assert both.meta["chunk_steps"] == len(both.h) and both.meta["qp_fallback_steps"] == 0
    assert np.abs(both.q[:, :7] - alone.q).max() < 1e-12
    assert np.abs(both.lam[:, :4] - alone.lam).max() < 1e-9 * np.abs(alone.lam).max()
    drift = both.q[-1, 9] - both.q[0, 9]
    assert drift == pytest.approx(point_mass(30.0, 0.3, 1.0, 1.0, 0.3)[1], rel=1e-2)


@pytest.mark.slow
def test_clearance_pendulum_with_friction_agrees_with_the_nlp_path():
    """The pendulum's clearance pin (c = 1e-4 m, mu 0.2): two spatial contacts whose smoothed
    radial normal is not quite unit; sliding and sticking round the hole on both paths."""
    runs = {}
    for solver in ("qp", "nlp"):
        system, _ = get_case("pendulum").build({"joint": "clearance", "mu": 0.2})
        # scalar rows: the same step on both paths (the vector ones are cuts on the QP path,
        # one convex row on the NLP path, ~1e-5 m apart here); first order: with friction the
        # NLP path's auto scheme is euler (run/solvers.py, build_kernel)
        runs[solver] = run(system, solver, 0.3, gap_linearization="scalar", integrator="euler")
    assert np.abs(runs["qp"].friction_force).max() > 0.1
    assert np.abs(runs["qp"].q - runs["nlp"].q).max() < 1e-7
