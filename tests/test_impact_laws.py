"""Impact laws (issue 32): a planar rod whose lower end hits a rough ground, under Newton's
(kinematic), Poisson's (kinetic) and the energetic (Stronge) law, against the minimal-
coordinate references of references/ref_rod_impact.py: Stronge's process in the normal impulse
(solve_ivp with events) for Poisson's and the energetic law, the one-impulse closed form for
nlpmbd's Newton law (the velocity-level row, Coulomb's law at the impulse's end).

Three configurations (rod 1 kg, 1 m): the slip keeps its direction (the three laws agree), it
stops and sticks, it stops and reverses; in the last Newton's law adds energy (in both forms)
and the energetic law does not."""

from __future__ import annotations

from pathlib import Path

import casadi as ca
import numpy as np
import pytest

from nlpmbd import GROUND, HardContact, RigidBody, SimulationOptions, System, simulate
from nlpmbd.errors import InputError
from nlpmbd.io.model_file import model_from_bytes
from nlpmbd.step.impact_process import Process
from nlpmbd.step.rows.impact import LAWS as KINDS
from nlpmbd_joints import PlaneContact, RevoluteJoint
from references.ref_rod_impact import LAWS, Rod, energy_change, impact, newton_at_end

ROOT = Path(__file__).resolve().parents[1]
#: name -> (angle from the ground (rad), mu, (x', y', theta') before the impact, e)
CONFIGS = {
    "slides": (0.3, 0.3, (1.0, -1.0, 0.0), 0.8),
    "sticks": (0.9, 0.6, (1.0, -1.0, 0.0), 0.8),
    "reverses": (1.0, 0.4, (0.0, -1.0, 2.0), 0.9),
}


class Ground(PlaneContact):
    """The ground y = 0 under points of a body moving in the x-y plane: planar slip."""

    def slip_planes(self, poses):
        return [ca.DM([0.0, 0.0, 1.0])] * len(self.points)


def rod_system(theta, mu, u0, e, law, gravity=0.0, lift=1e-9, ground=None):
    system = System(gravity=(0, -gravity, 0))
    body = RigidBody(
        "rod",
        1.0,
        (1e-3, 1 / 12, 1 / 12),
        position=(0, 0.5 * np.sin(theta) + lift, 0),
        orientation=(np.cos(theta / 2), 0, 0, np.sin(theta / 2)),
        velocity=(u0[0], u0[1], 0),
        angular_velocity=(0, 0, u0[2]),
    )
    rod = system.add_body(body)
    law_ = HardContact(restitution=e, mu=mu, impact=law)
    system.add_joint((ground or Ground)("floor", rod, [(-0.5, 0, 0)], contact=law_))
    return system


def planar(v: np.ndarray) -> np.ndarray:
    return np.array([v[0], v[1], v[5]])


def engine_impact(theta, mu, u0, e, law):
    """The rod's (x', y', theta') after one step of 1 ms from touching the ground."""
    h = 1e-3
    r = simulate(rod_system(theta, mu, u0, e, law), SimulationOptions(t_end=h, h_min=h, h_max=h))
    return planar(r.v[1])


def test_the_closed_form_process_against_the_integrated_one():
    """The engine's closed form (step/impact_process.py) on the rod's Delassus block in minimal
    coordinates, against the reference's solve_ivp, over angles, friction and slips: the slip
    keeping its direction, sticking and reversing, in compression or restitution. The
    energetic law never adds energy; Newton's end condition on the same process does."""
    gains = 0
    for theta in (0.3, 0.7, 1.0, 1.3):
        for mu in (0.1, 0.4, 0.8):
            for u0 in ((1.0, -1.0, 0.0), (0.0, -1.0, 2.0), (-0.5, -1.0, 4.0)):
                rod, u0_ = Rod(1.0, 1.0, theta, mu), np.array(u0)
                Jx, Jy = rod.rows()
                J = np.vstack([-Jy, Jx])  # approach speed c, slip s
                Minv = np.diag([1.0, 1.0, 1 / rod.inertia])
                W = J @ Minv @ J.T
                c0, s0 = J @ u0_
                process = Process(c0, s0, (W[0, 0], W[0, 1], W[1, 1]), mu)
                for law in LAWS:
                    p = float(KINDS[law](0.9).end(process))
                    P = np.array([p, float(process.tangential(p))])
                    u = u0_ - Minv @ J.T @ P
                    assert u == pytest.approx(impact(rod, u0_, 0.9, law), abs=1e-9)
                    if law == "energetic":
                        assert rod.energy(u) < rod.energy(u0_)
                    gains += law == "newton" and rod.energy(u) > rod.energy(u0_)
    assert gains >= 3


@pytest.mark.slow
@pytest.mark.parametrize("name", CONFIGS)
def test_energy_change_per_law_against_the_references(name):
    theta, mu, u0, e = CONFIGS[name]
    u0 = np.array(u0)
    rod = Rod(1.0, 1.0, theta, mu)
    changes = {}
    for law in LAWS:
        u = engine_impact(theta, mu, u0, e, law)
        ref = newton_at_end(rod, u0, e) if law == "newton" else impact(rod, u0, e, law)
        assert u == pytest.approx(ref, abs=1e-6)  # the gap's 1e-9 m lift: 1e-6 m/s in a step
        changes[law] = rod.energy(u) - rod.energy(u0)
        assert changes[law] == pytest.approx(rod.energy(ref) - rod.energy(u0), abs=1e-6)
    if name == "slides":  # one slip direction throughout: the three laws are one
        assert changes["newton"] == pytest.approx(changes["energetic"], abs=1e-6)
        assert changes["poisson"] == pytest.approx(changes["energetic"], abs=1e-6)
        assert energy_change(rod, u0, e, "newton") == pytest.approx(changes["newton"], abs=1e-9)
    else:  # the slip stops: the laws part
        assert abs(changes["poisson"] - changes["energetic"]) > 0.01
    if name == "reverses":  # Newton's law adds energy, in both forms; the energetic law never
        assert changes["newton"] > 0.09 and energy_change(rod, u0, e, "newton") > 0.02
        assert changes["energetic"] < -0.2
    assert changes["energetic"] < 0 and changes["poisson"] < 0


@pytest.mark.slow
@pytest.mark.parametrize("law", ["poisson", "energetic"])
def test_a_dropped_rod_bounces_by_its_law(law):
    """Released 0.1 m above the ground, spinning, under gravity: the step of the impact leaves
    the rod at the reference's velocities from the step's start plus gravity's kick (the gap
    rows stay inactive as the end separates), up to the engine's contact point, the end's foot
    on the ground, still up to h |y'| = 1e-4 m below the end at the step's start (1e-4 of the
    velocities)."""
    theta, mu, e, h, g = 1.0, 0.4, 0.9, 1e-4, 9.81
    system = rod_system(theta, mu, (0.0, 0.0, 2.0), e, law, gravity=g, lift=0.1)
    r = simulate(system, SimulationOptions(t_end=0.15, h_min=h, h_max=h))
    k = int(np.argmax(r.lam[:, 0]))
    assert r.lam[k, 0] > 1e3 and abs(r.lam[k - 1, 0]) < 1e-6  # one impact step
    before, after = planar(r.v[k - 1]), planar(r.v[k]) - np.array([0, -g * h, 0])
    p0, p3 = r.q[k - 1, 3], r.q[k - 1, 6]  # Euler parameters: a rotation about z
    rod = Rod(1.0, 1.0, 2 * np.arctan2(p3, p0), mu)  # at the step's start
    ref = impact(rod, before, e, law)
    assert after == pytest.approx(ref, abs=3e-4)
    assert rod.energy(after) - rod.energy(before) == pytest.approx(
        rod.energy(ref) - rod.energy(before), rel=1e-3
    )
    assert r.meta["warnings"] == []


@pytest.mark.slow
def test_without_friction_the_laws_agree_through_a_joint():
    """A rod on a pin at (0, 0.8) m, spun at 6 rad/s without gravity, its end striking the
    ground (1 m from the pin) on one side and then, over the top, on the other; no friction.
    For one contact the three laws are one: each impact leaves the rod with e times its
    angular speed (closed form), and Poisson's and the energetic law, whose impulses come from
    the contact's Delassus block with the pin's equalities eliminated, give the same motion.
    They apply the process from the step's start velocity and the pin turns the velocity by
    w h over the step (Newton's row holds the step's end speed instead): 3e-3 at h = 5e-4 s,
    where Newton's row, on the start's Phi_v, is 4e-4 off."""

    def swing(law):
        system = System(gravity=(0, 0, 0))
        c, s = np.cos(0.2), np.sin(0.2)  # 0.2 rad below the horizontal
        body = RigidBody(
            "rod", 1.0, (1e-3, 1 / 12, 1 / 12), position=(0.5 * c, 0.8 - 0.5 * s, 0),
            orientation=(np.cos(0.1), 0, 0, -np.sin(0.1)), angular_velocity=(0, 0, -6),
            velocity=(-3 * s, -3 * c, 0),  # about the pin
        )  # fmt: skip
        rod = system.add_body(body)
        system.add_joint(RevoluteJoint("pin", GROUND, rod, point=(0, 0.8, 0), axis=(0, 0, 1)))
        law_ = HardContact(restitution=0.7, impact=law)
        system.add_joint(Ground("floor", rod, [(0.5, 0, 0)], contact=law_))
        h = 5e-4
        return simulate(system, SimulationOptions(t_end=1.5, h_min=h, h_max=h))

    runs = {law: swing(law) for law in LAWS}
    for r in runs.values():
        hits = np.flatnonzero(r.lam[:, 0] > 100)
        assert hits.size == 2  # an impact on each side
        w = np.abs(r.v[:, 5])
        for k in hits:
            assert w[k] / w[k - 1] == pytest.approx(0.7, rel=3e-3)
    assert runs["poisson"].v == pytest.approx(runs["energetic"].v, abs=1e-9)


@pytest.mark.slow
def test_a_column_of_touching_beads_bounces_as_one():
    """examples/bead_column.toml (ten touching beads dropped on the floor, e = 1, Siconos'
    simultaneous impacts): the floor contact's process holds the bead contacts that the
    inelastic impact holds (step/impact_coupling.py), so the column bounces as one body, as under
    Newton's rows: energy kept to 1.4e-10 over 0.5 s (Newton: 1e-5; without the coupling half
    of it was lost), the beads within 3e-6 m of Newton's."""
    text = (ROOT / "examples" / "bead_column.toml").read_text()
    runs = {}
    for law in LAWS:
        changed = text.replace("restitution = 1.0 }", f'restitution = 1.0, impact = "{law}" }}')
        model = model_from_bytes(changed.encode(), Path("b.toml"), options=SimulationOptions)
        runs[law] = simulate(model.system, SimulationOptions(**model.options))
    for law, r in runs.items():
        energy = r.energy[:, 2]
        assert np.ptp(energy) < (1e-9 if law != "newton" else 2e-5) * energy[0]
        heights = r.q[:, 1::7][:, :10]
        assert heights == pytest.approx(runs["newton"].q[:, 1::7][:, :10], abs=1e-5)


@pytest.mark.slow
def test_a_box_tumbling_on_rough_ground_never_gains_energy_under_the_process_laws():
    """examples/box_drop.toml with friction (mu 0.5, e 0.8) and a sideways throw: eight spatial
    corners, single, edge (two corners together: they share the impact, step/impact_coupling.py)
    and resting contacts, 1 s at h = 1 ms. Under Poisson's and the energetic law the energy
    never rises in a step (3e-16 J measured; sharing nothing, an edge impact added 0.057 J);
    under Newton's row it rises by up to 0.012 J (the first-order error of gravity's work over
    an impact step, with friction)."""
    text = (ROOT / "examples" / "box_drop.toml").read_text()
    text = text.replace("velocity = [0.3, 0.0, 0.0]", "velocity = [1.5, 0.0, 0.5]")
    rises = {}
    for law in LAWS:
        contact = f'contact = {{ law = "hard", restitution = 0.8, mu = 0.5, impact = "{law}" }}'
        changed = text.replace("    [0.1, 0.05, 0.05],\n]", "    [0.1, 0.05, 0.05],\n]\n" + contact)
        model = model_from_bytes(changed.encode(), Path("box.toml"), options=SimulationOptions)
        r = simulate(model.system, SimulationOptions(t_end=1.0, h_min=1e-3, h_max=1e-3))
        assert np.count_nonzero(r.lam.max(axis=1) > 50) > 10  # impacts
        rises[law] = np.diff(r.energy[:, 2]).max()
    assert rises["poisson"] < 1e-12 and rises["energetic"] < 1e-12
    assert rises["newton"] > 1e-3


def test_the_impact_law_is_checked():
    with pytest.raises(InputError, match=r"contact.impact must be one of newton, poisson"):
        HardContact(restitution=0.5, impact="stronge")
    assert HardContact().impact == "newton"


@pytest.mark.slow
def test_the_nlp_path_refuses_a_process_law():
    system = rod_system(1.0, 0.4, (0.0, -1.0, 2.0), 0.9, "poisson")
    options = SimulationOptions(t_end=1e-3, h_min=1e-3, h_max=1e-3, solver="nlp")
    with pytest.raises(InputError, match=r"contact.impact 'poisson' needs the QP path"):
        simulate(system, options)


@pytest.mark.slow
@pytest.mark.parametrize("law", ["poisson", "energetic"])
def test_a_spatial_contact_in_planar_motion_is_the_planar_one(law):
    """The rod on the spatial PlaneContact (two friction tangents): the process runs along the
    slip's line, which a planar motion keeps, so every configuration comes out as on the planar
    ground, against the reference."""
    for theta, mu, u0, e in CONFIGS.values():
        system = rod_system(theta, mu, u0, e, law, ground=PlaneContact)
        h = 1e-3
        r = simulate(system, SimulationOptions(t_end=h, h_min=h, h_max=h))
        ref = impact(Rod(1.0, 1.0, theta, mu), np.array(u0), e, law)
        assert planar(r.v[1]) == pytest.approx(ref, abs=1e-6)
        assert r.v[1][[2, 3, 4]] == pytest.approx(0, abs=1e-9)  # it stays in its plane
