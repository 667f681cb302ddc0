"""Issue 32 item 1: stops and backlash on ideal joints (nlpmbd_joints: revolute_limits.py,
axial_stops.py, gear_backlash.py) against poses built here with pyquaternion, an independent
event-driven reference (references/ref_backlash.py: scipy events on the minimal coordinates,
Newton's law at the impacts) and closed forms of the compliant stops' rest."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures import q_dot_of
from pyquaternion import Quaternion

from benchmarks.reference_problems.contact_runs import run_case
from nlpmbd import GROUND, InputError, RigidBody, SimulationOptions, System, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.compliant import CompliantContact
from nlpmbd.model.contact import HardContact, SpringDamperContact
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd_joints import (
    CylindricalStops,
    GearBacklash,
    PrismaticStops,
    RevoluteBacklash,
    RevoluteJoint,
    RevoluteLimits,
)
from references import ref_backlash as ref

POINT = np.array([0.55, -0.05, 0.1])
AXIS = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
P0 = Quaternion(axis=[1.0, 2.0, -0.5], angle=0.7)  # the parent's orientation at t = 0
C0 = Quaternion(axis=[-0.3, 0.4, 1.0], angle=-1.1)  # the child's
MOVE = Quaternion(axis=[0.2, -1.0, 0.4], angle=0.9)  # a rigid motion of both, later
RNG = np.random.default_rng(7)


def _bodies(system: System) -> tuple[RigidBody, RigidBody]:
    parent = system.add_body(RigidBody("p", 1.0, (0.1, 0.2, 0.3), (0.2, 0.1, 0.0), P0.elements))
    child = system.add_body(RigidBody("c", 2.0, (0.3, 0.2, 0.1), (0.7, -0.2, 0.3), C0.elements))
    return parent, child


def _pose(body: RigidBody, turn: Quaternion, about: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """q of `body` moved by the rotation `turn` about the point `about`, then by `shift`."""
    r = about + turn.rotate(np.asarray(body.position) - about) + shift
    return np.concatenate([r, (turn * Quaternion(body.orientation)).elements])


def _gaps(system: System, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Phi(q), dPhi/dt = Phi_v(q) v) of the system's gaps, and checks dPhi/dt against the
    derivative of Phi along q_dot = T(q) v (the engine's velocity convention)."""
    m = SymbolicModel.build(system)
    phi = np.asarray(m.Phi(q)).ravel()
    rate = np.asarray(m.Phi_v(q) @ v).ravel()
    eps = 1e-7
    fd = (np.asarray(m.Phi(q + eps * q_dot_of(q, v))).ravel() - phi) / eps
    np.testing.assert_allclose(rate, fd, atol=1e-6)
    if system.eq_labels:
        assert np.abs(np.asarray(m.Phi_eq(q, 0.0))).max() < 1e-12
    return phi, rate


@pytest.mark.parametrize("angle", [-2.9, -0.2, 0.0, 0.45, 3.0])
def test_revolute_limit_gaps_are_the_angle_about_a_general_axis(angle):
    system = System()
    parent, child = _bodies(system)
    r = 0.2
    system.add_joint(RevoluteLimits("j", parent, child, POINT, -0.4, 0.6, AXIS, radius=r))
    shift = np.array([0.1, -0.3, 0.2])
    turn_c = MOVE * Quaternion(axis=AXIS, angle=angle)
    q = np.concatenate([_pose(parent, MOVE, POINT, shift), _pose(child, turn_c, POINT, shift)])
    w_p, w = RNG.normal(size=3), 1.7  # the parent tumbles, the child turns w faster about u
    w_c = w_p + w * MOVE.rotate(AXIS)
    v = np.concatenate(
        [
            RNG.normal(size=3),
            (MOVE * P0).rotation_matrix.T @ w_p,
            RNG.normal(size=3),
            (turn_c * C0).rotation_matrix.T @ w_c,
        ]
    )
    phi, rate = _gaps(system, q, v)
    np.testing.assert_allclose(phi, [r * (angle - 0.6), r * (-0.4 - angle)], atol=1e-12)
    np.testing.assert_allclose(rate, [r * w, -r * w], atol=1e-10)


def test_backlash_is_a_symmetric_limit_and_the_gear_gap_is_the_pitch_arc():
    system = System()
    parent, child = _bodies(system)
    joint = RevoluteBacklash("j", parent, child, POINT, 0.25, AXIS)
    assert (joint.lower, joint.upper, joint.gap_scales) == (-0.25, 0.25, (0.25, 0.25))
    system = System()
    g1, g2 = _bodies(system)
    u, e = AXIS, np.cross(AXIS, [1.0, 0.0, 0.0])
    e /= np.linalg.norm(e)
    c1, c2 = POINT, POINT + 0.3 * e + 0.2 * u  # 0.1 + 0.2 apart across the axis
    system.add_joint(GearBacklash("mesh", g1, g2, c1, c2, 0.1, 0.2, 2e-3, AXIS))
    a1, a2, w1, w2 = 0.3, -0.1, 2.0, -0.7
    t1, t2 = Quaternion(axis=u, angle=a1), Quaternion(axis=u, angle=a2)
    zero = np.zeros(3)
    q = np.concatenate([_pose(g1, t1, c1, zero), _pose(g2, t2, c2, zero)])
    v = np.concatenate(
        [
            zero,
            (t1 * P0).rotation_matrix.T @ (w1 * u),
            zero,
            (t2 * C0).rotation_matrix.T @ (w2 * u),
        ]
    )
    phi, rate = _gaps(system, q, v)
    s, sd = 0.1 * a1 + 0.2 * a2, 0.1 * w1 + 0.2 * w2
    np.testing.assert_allclose(phi, [s - 1e-3, -s - 1e-3], atol=1e-12)
    np.testing.assert_allclose(rate, [sd, -sd], atol=1e-10)


@pytest.mark.parametrize("kind", [PrismaticStops, CylindricalStops])
def test_axial_stop_gaps_are_the_slide(kind):
    system = System()
    parent, child = _bodies(system)
    system.add_joint(kind("j", parent, child, POINT, -0.01, 0.03, AXIS))
    s, sd, shift = 0.02, -0.4, np.array([0.1, -0.3, 0.2])
    turn_c = MOVE * Quaternion(axis=AXIS, angle=0.3 if kind is CylindricalStops else 0.0)
    q = np.concatenate(
        [
            _pose(parent, MOVE, POINT, shift),
            _pose(child, turn_c, POINT, shift + s * MOVE.rotate(AXIS)),
        ]
    )
    v = np.concatenate([np.zeros(6), sd * MOVE.rotate(AXIS), np.zeros(3)])
    phi, rate = _gaps(system, q, v)
    np.testing.assert_allclose(phi, [s - 0.03, -0.01 - s], atol=1e-12)
    np.testing.assert_allclose(rate, [sd, -sd], atol=1e-10)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda p, c: RevoluteBacklash("j", p, c, POINT, 0.0), "j.backlash must be in (0, pi)"),
        (lambda p, c: RevoluteBacklash("j", p, c, POINT, np.pi), "j.backlash must be in (0, pi)"),
        (lambda p, c: RevoluteLimits("j", p, c, POINT, 0.1, 0.5), "j.lower must be in (-pi, 0]"),
        (lambda p, c: RevoluteLimits("j", p, c, POINT, -0.1, -0.05), "j.upper must be in [0, pi)"),
        (lambda p, c: RevoluteLimits("j", p, c, POINT, 0.0, 0.0), "j: lower and upper must differ"),
        (lambda p, c: PrismaticStops("j", p, c, POINT, 0.0, 0.0), "j: lower and upper must differ"),
        (lambda p, c: PrismaticStops("j", p, c, POINT, 0.01, 0.1), "j.lower must be in [-1000"),
        (
            lambda p, c: GearBacklash("j", p, c, (0, 0, 0), (0.2, 0, 0), 0.1, 0.2, 1e-3),
            "j: the centres must be radius1 + radius2",
        ),
        (
            lambda p, c: GearBacklash("j", GROUND, c, (0, 0, 0), (0.3, 0, 0), 0.1, 0.2, 1e-3),
            "j: gear1 and gear2 must be bodies",
        ),
    ],
)
def test_bad_stops_name_the_parameter_and_range(build, message):
    system = System()
    with pytest.raises(InputError) as err:
        build(*_bodies(system))
    assert str(err.value).startswith(message), str(err.value)


def test_a_stopped_revolute_repeats_a_revolute_at_the_same_place():
    system = System()
    parent, child = _bodies(system)
    system.add_joint(RevoluteJoint("a", parent, child, POINT, AXIS))
    with pytest.raises(InputError, match="duplicates joint 'a'"):
        system.add_joint(RevoluteBacklash("b", parent, child, POINT, 0.1, AXIS))


# --- dynamics against the event-driven reference ---------------------------------------------
def _contact_starts(lam: np.ndarray) -> np.ndarray:
    """Rows where a contact's force rises from zero."""
    on = lam > 0
    return np.nonzero(on[1:] & ~on[:-1])[0] + 1


def _impact_errors(result, motion, stop: int, name: str, v_min: float) -> np.ndarray:
    """Per reference impact at stop `name` faster than v_min: the time from it to the nearest
    step of ours where that stop's force rises from zero."""
    ours = result.t[_contact_starts(result.lam[:, stop])]
    theirs = [t for t, which, sd in motion.impacts if which == name and abs(sd) > v_min]
    return np.array([np.min(np.abs(ours - t)) for t in theirs])


PENDULUM = {"mass": 1.0, "L": 0.5, "I_O": 0.085 + 0.25, "g": 9.81}


@pytest.fixture(scope="module")
def pendulum_runs():
    out = {}
    for e in (0.5, 1.0):
        params = {"joint": "backlash", "backlash": 0.3, "restitution": e}
        run = run_case("pendulum", params, h_min=1e-5, t_end=3.0)
        motion = ref.simulate(ref.pendulum(**PENDULUM, backlash=0.3, e=e), [0.0], [0.0], 3.0)
        out[e] = (run.result, motion)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("e", [0.5, 1.0])
def test_backlash_pendulum_impacts_within_one_step(pendulum_runs, e):
    """`nlpmbd run pendulum --set joint=backlash --h-min 1e-5` (verlet, h <= 2e-3 s): every
    impact faster than 0.1 rad/s within one flight step h_max of the reference's; measured
    at most 3.8e-4 s (e = 0.5, 5 impacts) and 1.5e-3 s (e = 1, 7 impacts in 3 s: the first
    impact's 4.8e-4 J loss lengthens each later swing by about 2.4e-4 s)."""
    result, motion = pendulum_runs[e]
    errors = _impact_errors(result, motion, 1, "lower", 0.1)
    assert errors.size >= (5 if e < 1 else 7)
    assert errors.max() < 2e-3
    assert errors[0] < 2e-4
    assert result.status.max() < 3


@pytest.mark.slow
def test_backlash_pendulum_rests_on_its_stop_without_drift(pendulum_runs):
    """After the accumulation of impacts (reference: at rest from 0.62 s) the pendulum holds at
    -b: it penetrates nowhere by more than 1e-3 of the play and rests within 1e-3 b of the stop
    (the engine's closed-contact band), unmoving to 1e-12 rad over the last 2 s."""
    result, motion = pendulum_runs[0.5]
    b = 0.3
    (rest_from, _, stop), *_ = motion.contacts
    assert stop == "lower" and 0.6 < rest_from < 0.65
    phi = -result.gap[:, 1] - b  # the lower gap is r (-b - phi), r = 1 m
    assert result.gap.max() <= 1e-3 * b
    resting = result.t > rest_from + 0.1
    assert np.abs(phi[resting] + b).max() <= 1.01e-3 * b
    assert np.ptp(phi[resting]) < 1e-12
    assert np.abs(result.v[resting]).max() < 1e-9


@pytest.mark.slow
def test_elastic_stops_never_gain_energy(pendulum_runs):
    """e = 1: no step gains energy; the whole run loses 4.8e-4 J (measured), 3e-4 of the
    1.45 J the pendulum swings through."""
    result, _ = pendulum_runs[1.0]
    energy = result.energy[:, 2] - result.energy[0, 2]
    assert energy.max() <= 1e-9  # never gains
    assert energy.min() > -1e-3 * abs(result.energy[:, 1]).max()


@pytest.mark.slow
def test_asymmetric_limits_stop_a_thrown_pendulum_at_both_ends():
    """RevoluteLimits [-0.5, 0.2] rad: the pendulum thrown upwards at 3 rad/s hits the upper
    stop, falls onto the lower one and bounces on it (e = 0.7); the 12 impacts faster than
    0.1 rad/s within one flight step of the reference's (measured 1.9e-4 s at the upper stop,
    up to 1.4e-3 s by the 11th at the lower one)."""
    system = System()
    body = system.add_body(
        RigidBody("p", 1.0, (2e-3, 0.085, 0.085), (0.5, 0, 0), velocity=(0, 1.5, 0),
                  angular_velocity=(0, 0, 3.0))
    )  # fmt: skip
    law = HardContact(restitution=0.7)
    system.add_joint(RevoluteLimits("pin", GROUND, body, (0, 0, 0), -0.5, 0.2, contact=law))
    options = SimulationOptions(t_end=2.0, h_min=1e-5, h_max=2e-3, integrator="verlet")
    result = simulate(system, options)
    motion = ref.simulate(
        ref.Stops(np.array([0.335]), lambda t, x, v: np.array([-9.81 * 0.5 * np.cos(x[0])]),
                  np.ones(1), -0.5, 0.2, 0.7),
        np.zeros(1), np.array([3.0]), 2.0,
    )  # fmt: skip
    upper = _impact_errors(result, motion, 0, "upper", 0.1)
    lower = _impact_errors(result, motion, 1, "lower", 0.1)
    assert upper.size == 1 and lower.size >= 11
    assert max(upper.max(), lower.max()) < 2e-3
    assert result.gap.max() <= 1e-3 * 0.35


@pytest.fixture(scope="module")
def gears():
    run = run_case("gear_backlash")
    P = {"r1": 0.05, "r2": 0.1, "J1": 1e-3, "J2": 4e-3, "b": 2e-3, "e": 0.5, "T0": 0.02}
    motion = ref.simulate(ref.gears(**P, f=2.0), np.zeros(2), np.zeros(2), 1.0)
    return run.result, motion


@pytest.mark.slow
def test_gear_rattle_impacts_within_one_step(gears):
    """`nlpmbd run gear_backlash`: both flanks' impacts faster than 1e-3 m/s (21 in 1 s, with
    two accumulations) within one step h_max = 1e-3 s of the reference's; measured 2.9e-4 s
    at most (7.9e-3 s with --integrator euler)."""
    result, motion = gears
    drive = _impact_errors(result, motion, 0, "upper", 1e-3)
    coast = _impact_errors(result, motion, 1, "lower", 1e-3)
    assert drive.size + coast.size >= 21
    assert max(drive.max(), coast.max()) < 1e-3
    assert result.status.max() < 3


@pytest.mark.slow
def test_gear_teeth_hold_while_driven_without_penetration(gears):
    """While the reference holds the teeth on a flank, ours stay on it within 1e-3 of the half
    backlash and never penetrate by more than 1e-3 of it."""
    result, motion = gears
    half = 1e-3
    assert result.gap.max() <= 1e-3 * half
    for t0, t1, stop in motion.contacts:
        inside = (result.t > t0 + 0.01) & (result.t < t1 - 0.01)
        assert inside.any()
        column = 0 if stop == "upper" else 1
        assert np.abs(result.gap[inside, column]).max() <= 1.01e-3 * half


@pytest.mark.slow
def test_prismatic_stops_bounce_like_the_reference():
    """A block on a vertical prismatic joint falls 5 cm onto its lower stop (e = 0.8): the 14
    impacts faster than 5 cm/s within one flight step (2e-3 s) of the reference's (measured
    1.05e-3 s at most, the bouncing ball's O(h_min) per flight summed); no penetration."""
    system = System()
    block = system.add_body(RigidBody("block", 2.0, (0.01, 0.01, 0.01), (0, 0, 0)))
    law = HardContact(restitution=0.8)
    system.add_joint(PrismaticStops("slide", GROUND, block, (0, 0, 0), -0.05, 0.1, (0, 1, 0), law))
    options = SimulationOptions(t_end=1.5, h_min=1e-5, h_max=2e-3, integrator="verlet")
    result = simulate(system, options)
    stops = ref.Stops(np.array([2.0]), lambda t, x, v: np.array([-2.0 * 9.81]), np.ones(1),
                      -0.05, 0.1, 0.8)  # fmt: skip
    motion = ref.simulate(stops, np.zeros(1), np.zeros(1), 1.5)
    errors = _impact_errors(result, motion, 1, "lower", 0.05)
    assert errors.size >= 14 and errors.max() < 2e-3
    y = result.q[:, 1]
    assert y.min() >= -0.05 - 1e-3 * 0.075


# --- compliant stops: the rest deflection in closed form --------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    "law",
    [SpringDamperContact(stiffness=1e4, damping=200.0), CompliantContact(1e4, 1.0, 0.2)],
    ids=["spring_damper", "compliant"],
)
def test_compliant_backlash_rests_at_the_static_deflection(law):
    """At rest on the stop at radius r: K delta = m g L cos(phi) / r, phi = -b - delta / r
    (measured: 2e-13 relative for the implicit spring-damper, 4e-8 for the explicit law)."""
    r, b = 0.2, 0.3
    system = System()
    body = system.add_body(RigidBody("p", 1.0, (2e-3, 0.085, 0.085), (0.5, 0, 0)))
    system.add_joint(RevoluteBacklash("pin", GROUND, body, (0, 0, 0), b, radius=r, contact=law))
    result = simulate(system, SimulationOptions(t_end=3.0, h_min=2e-4, h_max=2e-4))
    gaps = result.gap if result.gap.shape[1] else result.compliant_gap
    delta = gaps[-1, 1]
    expected = 9.81 * 0.5 * np.cos(b + delta / r) / r / 1e4
    assert abs(delta - expected) < 1e-6 * expected
    assert abs(result.v[-1, 5]) < 1e-4


@pytest.mark.slow
@pytest.mark.parametrize(
    "law",
    [SpringDamperContact(stiffness=1e5, damping=5.0), CompliantContact(1e5, 1.0, 0.5)],
    ids=["spring_damper", "compliant"],
)
def test_soft_gear_flanks_push_the_teeth_back(law):
    """The gear case with soft flanks (K = 1e5 N/m at the pitch point): the teeth enter a flank
    by a few percent of b/2 (measured 5.6e-5 and 5.5e-5 m) and come back out: the force acts
    at the pitch point along the tangent, on both gears."""
    system, _ = get_case("gear_backlash").build()
    system.joints[-1].contact = law
    result = simulate(system, SimulationOptions(t_end=0.3, h_min=1e-5, h_max=1e-4))
    q = result.q
    phi1, phi2 = 2 * np.arctan2(q[:, 6], q[:, 3]), 2 * np.arctan2(q[:, 13], q[:, 10])
    s = 0.05 * phi1 + 0.1 * phi2
    assert result.status.max() < 3
    assert 1.01e-3 < np.abs(s).max() < 1.1e-3  # into the flanks, not through them
    assert s.max() > 0.99e-3 and s.min() < -0.99e-3  # both flanks struck
