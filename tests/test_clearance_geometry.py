"""Clearance joints (joints/*_clearance.py): gaps, force directions and contact points against
hand-computed poses, AD Jacobians against finite differences, input validation, and one short
dynamics run per joint.

Independent references only: rigid motions and rotations come from pyquaternion, G(p) and
T(q) are written out below, and every expected gap, direction and point is worked out by hand
in the test (the smoothed radial gap of CylindricalClearance is restated in `smooth`).

Axis-aligned hand geometry: joint centre C0, axis Z, section frame (X, Y). The bodies' centres
of mass are off C0 and their initial orientations are generic, so the geometry really is frozen
into body coordinates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from fixtures import q_dot_of
from pyquaternion import Quaternion

from nlpmbd import GROUND, Force, InputError, RigidBody, SimulationOptions, System, simulate
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd_joints import CylindricalClearance, PrismaticClearance, RevoluteClearance

G = 9.81
X, Y, Z = np.eye(3)
C0 = np.array([0.1, -0.2, 0.3])
L = 0.08  # length of the shorter part, m
R_PIN, R_HOLE = 0.01, 0.0101
C = R_HOLE - R_PIN  # radial clearance 1e-4 m
EPS = 1e-3 * C
CA = 2e-4  # axial play, m
CP = 3e-4  # prismatic clearance, m

# General position (invariance, Jacobian tests): centre, axis, a perpendicular, a section x.
CG = np.array([0.4, -0.3, 0.2])
AG = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
PG = np.cross(AG, X) / np.linalg.norm(np.cross(AG, X))
SXG = (0.2, 0.9, -0.1)


def smooth(dist: float, c: float = C) -> float:
    """The documented radial gap sqrt(|d|^2 + eps^2) - sqrt(c^2 + eps^2), eps = 1e-3 c."""
    eps = 1e-3 * c
    return math.hypot(dist, eps) - math.hypot(c, eps)


def unit_factor(dist: float, c: float = C) -> float:
    """|direction| of a radial gap: |d| / sqrt(|d|^2 + eps^2)."""
    return dist / math.hypot(dist, 1e-3 * c)


# --- rigid motions, bodies, evaluation ----------------------------------------------------------
class Motion:
    """x -> R x + t."""

    def __init__(self, R=None, t=(0.0, 0.0, 0.0)) -> None:
        self.R = np.eye(3) if R is None else np.asarray(R, float)
        self.t = np.asarray(t, float)

    @staticmethod
    def about(axis, angle, pivot, shift=(0.0, 0.0, 0.0)) -> Motion:
        """Rotation by `angle` about `axis` through `pivot`, then translation by `shift`."""
        R = Quaternion(axis=np.asarray(axis, float), angle=angle).rotation_matrix
        pivot = np.asarray(pivot, float)
        return Motion(R, pivot - R @ pivot + np.asarray(shift, float))

    def __matmul__(self, other: Motion) -> Motion:
        return Motion(self.R @ other.R, self.R @ other.t + self.t)

    def inverse(self) -> Motion:
        return Motion(self.R.T, -self.R.T @ self.t)

    def coordinates(self, body: RigidBody) -> np.ndarray:
        """q block (7) of `body` after this motion of its initial pose."""
        A0 = Quaternion(body.orientation).rotation_matrix
        p = Quaternion(matrix=self.R @ A0, atol=1e-12, rtol=1e-12).elements
        return np.r_[self.R @ body.position + self.t, p]


def body(name: str, position, orientation: Quaternion) -> RigidBody:
    return RigidBody(name, 1.0, (0.01, 0.012, 0.015), position=position, orientation=orientation)


def parent_body() -> RigidBody:
    return body("outer", C0 + (-0.03, 0.02, 0.01), Quaternion(axis=[-2.0, 1.0, 0.5], angle=1.9))


def child_body() -> RigidBody:
    return body("inner", C0 + (0.02, -0.01, 0.03), Quaternion(axis=[1.0, 2.0, 3.0], angle=0.7))


def build(factory, parent, child):
    s = System(gravity=(0.0, -G, 0.0))
    for b in (parent, child):
        if b is not GROUND:
            s.add_body(b)
    joint = s.add_joint(factory(parent, child))
    m = SymbolicModel.build(s)
    _CHILD_IS_GROUND[id(m)] = child is GROUND
    return s, joint, m


#: The engine reports forces on the joint's moving body (the parent when the child is GROUND);
#: these geometry tests check the joints' own convention (force on the child), so flip back.
_CHILD_IS_GROUND: dict[int, bool] = {}


def state(system: System, moves: dict) -> np.ndarray:
    """Stacked q with each body in `moves` displaced by its Motion."""
    q, _ = system.initial_state()
    for k, b in enumerate(system.bodies):
        if b in moves:
            q[7 * k : 7 * k + 7] = moves[b].coordinates(b)
    return q


def evaluate(m, q):
    """(gaps (M), directions (M, 3), contact points (M, 3))."""
    normals, points = m.contact(q)
    sign = -1.0 if _CHILD_IS_GROUND.get(id(m), False) else 1.0
    return np.asarray(m.Phi(q)).ravel(), sign * np.asarray(normals).T, np.asarray(points).T


def cylinder(ends_on="pin", cls=CylindricalClearance, **extra):
    def factory(hole, pin):
        return cls("j", hole, pin, C0, Z, L, R_HOLE, R_PIN, ends_on=ends_on, **extra)

    return factory


def revolute(ends_on="pin", axial_play=CA):
    return cylinder(ends_on, RevoluteClearance, axial_play=axial_play)


def layout(ends_on: str):
    """The ends body is movable, the line body is ground: (hole, pin, moved body)."""
    if ends_on == "pin":
        pin = child_body()
        return GROUND, pin, pin
    hole = parent_body()
    return hole, GROUND, hole


# --- polygons (section coordinates, m) ------------------------------------------------------
E_TRI = 0.05
R_TRI = E_TRI / math.sqrt(3)  # circumradius of the equilateral triangle
TRI = {
    i: R_TRI * np.array([math.cos(a), math.sin(a)])
    for i, a in enumerate(np.radians([90, 210, 330]))
}
# outward unit normals of the triangle's edges, by hand: left (0-1), bottom (1-2), right (2-0)
TRI_NORMAL = {
    frozenset({0, 1}): np.array([-math.sqrt(3) / 2, 0.5]),
    frozenset({1, 2}): np.array([0.0, -1.0]),
    frozenset({0, 2}): np.array([math.sqrt(3) / 2, 0.5]),
}
TRI_ORDER = {"ccw": [0, 1, 2], "cw": [0, 2, 1]}
R_HEX = 0.03


def hexagon(radius=R_HEX):
    return [
        radius * np.array([math.cos(a), math.sin(a)]) for a in np.radians(np.arange(0, 360, 60))
    ]


def prism(vertices, section_x=(1.0, 0.0, 0.0), center=C0, axis=Z, clearance=CP):
    def factory(guide, slider):
        return PrismaticClearance(
            "j", guide, slider, center, axis, vertices, L, clearance, section_x=section_x
        )

    return factory


def parse(label: str) -> tuple[str, int, int]:
    face, v, e = label.split("_")
    return face, int(v[1:]), int(e[1:])


# --- 1. centred start --------------------------------------------------------------------------
@pytest.mark.parametrize("ends_on", ("pin", "hole"))
def test_cylindrical_centred_start(ends_on):
    hole, pin, _ = layout(ends_on)
    s, joint, m = build(cylinder(ends_on), hole, pin)
    q0, _ = s.initial_state()
    gaps, dirs, points = evaluate(m, q0)
    assert joint.gap_labels == ("end1", "end2") and joint.gap_scales == (C, C)
    # smoothed gap at d = 0: eps - sqrt(c^2 + eps^2) = -c (sqrt(1 + 1e-6) - 1e-3)
    expected = -C * (math.sqrt(1 + 1e-6) - 1e-3)
    assert gaps == pytest.approx([expected, expected], rel=1e-12)
    assert np.all(np.abs(gaps + C) <= EPS * (1 + 1e-9))  # within eps of the kinked |d| - c
    assert np.all(np.isfinite(dirs)) and np.max(np.abs(dirs)) < 1e-9  # no normal at d = 0
    # the contact point degenerates to the pin's axis end point
    assert points == pytest.approx(np.array([C0 - L / 2 * Z, C0 + L / 2 * Z]), abs=1e-11)


@pytest.mark.parametrize("ends_on", ("pin", "hole"))
def test_revolute_centred_start(ends_on):
    hole, pin, _ = layout(ends_on)
    s, joint, m = build(revolute(ends_on), hole, pin)
    q0, _ = s.initial_state()
    gaps, dirs, points = evaluate(m, q0)
    assert joint.gap_labels == ("end1", "end2", "stop1", "stop2")
    assert joint.gap_scales == (C, C, CA, CA)
    assert joint.n_eq == 0 and m.n_eq == 0
    assert gaps[2:] == pytest.approx([-CA / 2, -CA / 2], rel=1e-9)
    # stops on the hole push a pin-ends body back inwards; stops on the pin push it outwards
    sign = 1.0 if ends_on == "pin" else -1.0
    assert dirs[2] == pytest.approx(sign * Z, abs=1e-12)
    assert dirs[3] == pytest.approx(-sign * Z, abs=1e-12)
    assert points[2] == pytest.approx(C0 - L / 2 * Z, abs=1e-12)
    assert points[3] == pytest.approx(C0 + L / 2 * Z, abs=1e-12)


def square_cw(a=0.02):
    return [(a, a), (a, -a), (-a, -a), (-a, a)]


@pytest.mark.parametrize(
    "name, vertices, section_x",
    [
        ("triangle_ccw", [TRI[i] for i in TRI_ORDER["ccw"]], (1.0, 0.0, 0.0)),
        ("triangle_cw", [TRI[i] for i in TRI_ORDER["cw"]], (1.0, 0.0, 0.0)),
        ("square_cw", square_cw(), (1.0, 1.0, 0.0)),
        ("hexagon", hexagon(), (1.0, 0.0, 0.3)),
    ],
)
def test_prismatic_centred_start(name, vertices, section_x):
    s, joint, m = build(prism(vertices, section_x), parent_body(), child_body())
    q0, _ = s.initial_state()
    gaps, dirs, _ = evaluate(m, q0)
    N = len(vertices)
    assert m.n_gap == 4 * N and joint.gap_scales == (CP,) * (4 * N)
    assert gaps == pytest.approx(np.full(4 * N, -CP), rel=1e-9)
    assert np.linalg.norm(dirs, axis=1) == pytest.approx(np.ones(4 * N), abs=1e-12)
    assert np.max(np.abs(dirs @ Z)) < 1e-12  # plane normals lie in the section
    # labels: vertex k against edges k - 1 and k, front face first
    assert joint.gap_labels[:2] == (f"front_v0_e{N - 1}", "front_v0_e0")
    assert joint.gap_labels[2 * N : 2 * N + 2] == (f"back_v0_e{N - 1}", "back_v0_e0")
    for label in joint.gap_labels:
        _, k, e = parse(label)
        assert e in ((k - 1) % N, k)


# --- 2. radial offset, tilt, axial displacement ------------------------------------------------
@pytest.mark.parametrize("delta", (0.5 * C, C, 1.5 * C))
@pytest.mark.parametrize("ends_on", ("pin", "hole"))
def test_cylindrical_radial_offset(ends_on, delta):
    """The pin sits delta along +X of the hole's axis (the hole moves by -delta when it carries
    the ends): gap delta - c at both ends, force -X on the pin, contact at pin axis + r X."""
    hole, pin, moved = layout(ends_on)
    s, _, m = build(cylinder(ends_on), hole, pin)
    shift = delta * X if ends_on == "pin" else -delta * X
    gaps, dirs, points = evaluate(m, state(s, {moved: Motion(t=shift)}))
    assert gaps == pytest.approx([smooth(delta)] * 2, rel=1e-9, abs=1e-15)
    assert gaps == pytest.approx([delta - C] * 2, abs=1e-6 * C)
    k = unit_factor(delta)
    pin_axis_x = delta if ends_on == "pin" else 0.0  # X of the pin's axis
    for x, sign in ((0, -1), (1, 1)):
        assert dirs[x] == pytest.approx(-k * X, abs=1e-12)
        expected = C0 + sign * L / 2 * Z + (pin_axis_x + R_PIN * k) * X
        assert points[x] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("ends_on", ("pin", "hole"))
def test_cylindrical_tilt_touches_both_ends_on_opposite_sides(ends_on):
    """The ends body turns about X through the centre by a, sin a = 2 c / L: each end point is
    (L/2) sin a = c from the line body's axis, on opposite sides (+Y at end 1, -Y at end 2)."""
    hole, pin, moved = layout(ends_on)
    s, _, m = build(cylinder(ends_on), hole, pin)
    a = math.asin(2 * C / L)
    gaps, dirs, points = evaluate(m, state(s, {moved: Motion.about(X, a, C0)}))
    assert np.max(np.abs(gaps)) < 1e-12  # touching at both ends
    k = unit_factor(C)
    P1 = C0 + L / 2 * np.array([0.0, math.sin(a), -math.cos(a)])
    P2 = C0 - L / 2 * np.array([0.0, math.sin(a), -math.cos(a)])
    if ends_on == "pin":  # pin end 1 is at +Y in the hole: pushed to -Y, touches at its +Y side
        expected_dirs = [-k * Y, k * Y]
        expected_points = [P1 + R_PIN * k * Y, P2 - R_PIN * k * Y]
    else:  # hole end 1 is at +Y of the pin: the pin touches that hole end with its -Y side
        expected_dirs = [k * Y, -k * Y]
        foot = [C0 - L / 2 * math.cos(a) * Z, C0 + L / 2 * math.cos(a) * Z]
        expected_points = [foot[0] - R_PIN * k * Y, foot[1] + R_PIN * k * Y]
    assert dirs == pytest.approx(np.array(expected_dirs), abs=1e-9)
    assert dirs[0] == pytest.approx(-dirs[1], abs=1e-12)
    assert points == pytest.approx(np.array(expected_points), abs=1e-12)


@pytest.mark.parametrize("delta", (0.25 * CA, 0.5 * CA))
@pytest.mark.parametrize("ends_on", ("pin", "hole"))
def test_revolute_axial_displacement_against_stops(ends_on, delta):
    """The pin moves +delta along the axis relative to the hole."""
    hole, pin, moved = layout(ends_on)
    s, _, m = build(revolute(ends_on), hole, pin)
    shift = delta * Z if ends_on == "pin" else -delta * Z
    gaps, dirs, points = evaluate(m, state(s, {moved: Motion(t=shift)}))
    assert gaps[:2] == pytest.approx([smooth(0.0)] * 2, rel=1e-9)  # still centred radially
    if ends_on == "pin":  # the pin's ends move towards stop 2 (fixed in the hole)
        assert gaps[2:] == pytest.approx([-CA / 2 - delta, -CA / 2 + delta], abs=1e-15)
        assert dirs[2:] == pytest.approx(np.array([Z, -Z]), abs=1e-12)
        ends = [C0 - (L / 2 - delta) * Z, C0 + (L / 2 + delta) * Z]
    else:  # stop 1, carried by the pin, moves towards the hole's end 1
        assert gaps[2:] == pytest.approx([-CA / 2 + delta, -CA / 2 - delta], abs=1e-15)
        assert dirs[2:] == pytest.approx(np.array([-Z, Z]), abs=1e-12)
        ends = [C0 - (L / 2 + delta) * Z, C0 + (L / 2 - delta) * Z]
    assert points[2:] == pytest.approx(np.array(ends), abs=1e-12)


@pytest.mark.parametrize("ends_on", ("pin", "hole"))
def test_revolute_without_axial_play_is_axially_ideal(ends_on):
    hole, pin, moved = layout(ends_on)
    s, joint, m = build(revolute(ends_on, axial_play=0.0), hole, pin)
    assert joint.gap_labels == ("end1", "end2") and joint.gap_scales == (C, C)
    assert joint.eq_labels == ("axial",) and m.n_gap == 2 and m.n_eq == 1
    q0, _ = s.initial_state()
    assert abs(float(m.Phi_eq(q0, 0.0))) < 1e-15
    delta = 3e-5
    shift = delta * Z if ends_on == "pin" else -delta * Z
    q = state(s, {moved: Motion(t=shift)})
    # ends-body midpoint minus the line body's centre, along the line body's axis
    assert float(m.Phi_eq(q, 0.0)) == pytest.approx(delta if ends_on == "pin" else -delta)
    assert np.asarray(m.Phi_eq_v(q, 0.0))[0, :3] == pytest.approx(Z, abs=1e-12)
    # ends body turned by a about X through C0 + k Z: its midpoint rises by k (1 - cos a) along Z
    a, k = 0.2, 0.01
    q = state(s, {moved: Motion.about(X, a, C0 + k * Z)})
    assert float(m.Phi_eq(q, 0.0)) == pytest.approx(k * (1 - math.cos(a)), rel=1e-9)


@pytest.mark.parametrize("order", ("ccw", "cw"))
@pytest.mark.parametrize(
    "shift",
    [
        np.array([0.0, -1.0]) * CP,  # against the bottom face: its 4 gaps close exactly
        np.array([1.0, 0.0]) * 0.7 * CP,  # oblique to every face
        np.array([-math.sqrt(3) / 2, 0.5]) * 1.2 * CP,  # 20 % into the left face
    ],
)
def test_prismatic_triangle_translation(order, shift):
    """Gap change of a plane = shift . (its outward normal): delta for the face pushed into,
    -delta/2 for the other two faces of an equilateral triangle when pushed along a normal."""
    ids = TRI_ORDER[order]
    s, joint, m = build(prism([TRI[i] for i in ids]), GROUND, child_body())
    slider = s.bodies[0]
    shift3 = shift[0] * X + shift[1] * Y
    gaps, dirs, points = evaluate(m, state(s, {slider: Motion(t=shift3)}))
    for j, label in enumerate(joint.gap_labels):
        face, k, e = parse(label)
        edge = frozenset({ids[e], ids[(e + 1) % 3]})
        assert ids[k] in edge
        normal = TRI_NORMAL[edge]
        assert gaps[j] == pytest.approx(-CP + shift @ normal, abs=1e-15)
        assert dirs[j] == pytest.approx(-(normal[0] * X + normal[1] * Y), abs=1e-12)
        vertex = C0 + TRI[ids[k]][0] * X + TRI[ids[k]][1] * Y + shift3
        vertex += (-L / 2 if face == "front" else L / 2) * Z
        assert points[j] == pytest.approx(vertex, abs=1e-12)
    if shift[0] == 0.0:  # pushed down by c: bottom-face gaps 0, the others -c - c/2
        bottom = [
            j
            for j, label in enumerate(joint.gap_labels)
            if {ids[parse(label)[2]], ids[(parse(label)[2] + 1) % 3]} == {1, 2}
        ]
        assert len(bottom) == 4
        assert np.max(np.abs(gaps[bottom])) < 1e-15
        assert np.delete(gaps, bottom) == pytest.approx(np.full(8, -1.5 * CP), abs=1e-15)


def test_prismatic_square_corner_contact_with_rotated_section():
    """Square of half side a listed clockwise, section x = (1, 1, 0)/sqrt2, so the faces'
    outward normals are (1, 1, 0)/sqrt2 (edge 0), (1, -1, 0)/sqrt2 (edge 1) and their opposites.
    A shift sqrt2 c along X closes the two faces at the corner vertex 1 (gap c - c = 0) and
    opens the other two to -2c."""
    s, joint, m = build(prism(square_cw(), section_x=(1.0, 1.0, 0.0)), GROUND, child_body())
    slider = s.bodies[0]
    gaps, dirs, _ = evaluate(m, state(s, {slider: Motion(t=math.sqrt(2) * CP * X)}))
    inward = {
        0: -np.array([1.0, 1.0, 0.0]) / math.sqrt(2),
        1: -np.array([1.0, -1.0, 0.0]) / math.sqrt(2),
        2: np.array([1.0, 1.0, 0.0]) / math.sqrt(2),
        3: np.array([1.0, -1.0, 0.0]) / math.sqrt(2),
    }
    for j, label in enumerate(joint.gap_labels):
        _, _, e = parse(label)
        assert gaps[j] == pytest.approx(0.0 if e in (0, 1) else -2 * CP, abs=1e-15)
        assert dirs[j] == pytest.approx(inward[e], abs=1e-12)
    labels = list(joint.gap_labels)
    corner = [labels.index(f"{f}_v1_e{e}") for f in ("front", "back") for e in (0, 1)]
    assert np.max(np.abs(gaps[corner])) < 1e-15


def test_prismatic_hexagon_twist_closes_the_leading_faces():
    """Regular hexagon (circumradius R) turned by theta about the axis: vertex k projects
    R cos(theta -/+ 30 deg) on the normals of edges k and k - 1, whose planes are at
    R cos 30 deg + c. theta is chosen so that every vertex touches its edge-k plane."""
    theta = math.radians(30) - math.acos(math.cos(math.radians(30)) + CP / R_HEX)
    s, joint, m = build(prism(hexagon()), GROUND, child_body())
    slider = s.bodies[0]
    gaps, dirs, points = evaluate(m, state(s, {slider: Motion.about(Z, theta, C0)}))
    trailing = R_HEX * (math.cos(theta + math.radians(30)) - math.cos(math.radians(30))) - CP
    for j, label in enumerate(joint.gap_labels):
        face, k, e = parse(label)
        assert gaps[j] == pytest.approx(0.0 if e == k else trailing, abs=1e-15)
        ang = math.radians(60 * e + 30)
        assert dirs[j] == pytest.approx(-(math.cos(ang) * X + math.sin(ang) * Y), abs=1e-12)
        va = math.radians(60 * k) + theta
        z = -L / 2 if face == "front" else L / 2
        vertex = C0 + R_HEX * (math.cos(va) * X + math.sin(va) * Y) + z * Z
        assert points[j] == pytest.approx(vertex, abs=1e-12)
    assert trailing < -CP  # the trailing faces open further


# --- 3. the same relative displacement in every layout ------------------------------------------
def general_joint(kind: str):
    if kind.startswith("revolute"):
        ends_on = kind.split("_")[1]
        return lambda p, c: RevoluteClearance("j", p, c, CG, AG, L, R_HOLE, R_PIN, CA, ends_on)
    return lambda p, c: PrismaticClearance("j", p, c, CG, AG, hexagon(), L, CP, SXG)


def general_expected(kind: str, a: float, shift: float) -> np.ndarray:
    """Hand values for the relative motion: the child turns by a about PG through CG and then
    slides by `shift` along its own turned axis (revolute) / turns by a about AG (prismatic)."""
    if kind == "revolute_pin":  # pin ends at (shift -/+ L/2) along the turned axis
        radial = [
            smooth(abs(shift - L / 2) * math.sin(a)),
            smooth(abs(shift + L / 2) * math.sin(a)),
        ]
        stops = [
            -(L + CA) / 2 - (shift - L / 2) * math.cos(a),
            (shift + L / 2) * math.cos(a) - (L + CA) / 2,
        ]
        return np.array(radial + stops)
    if kind == "revolute_hole":  # hole ends fixed, stops and axis with the pin
        r = smooth(L / 2 * math.sin(a))
        stops = [
            shift - (L + CA) / 2 + L / 2 * math.cos(a),
            L / 2 * math.cos(a) - shift - (L + CA) / 2,
        ]
        return np.array([r, r] + stops)
    lead = R_HEX * (math.cos(a - math.radians(30)) - math.cos(math.radians(30))) - CP
    trail = R_HEX * (math.cos(a + math.radians(30)) - math.cos(math.radians(30))) - CP
    return np.array([trail, lead] * 12)  # per vertex: edge k - 1, then edge k


def general_motion(kind: str, a: float, shift: float) -> Motion:
    if kind == "prismatic":
        return Motion.about(AG, a, CG)
    turned = Quaternion(axis=PG, angle=a).rotate(AG)
    return Motion.about(PG, a, CG, shift * turned)


@pytest.mark.parametrize("where", ("two_bodies", "ground_parent", "ground_child"))
@pytest.mark.parametrize("kind", ("revolute_pin", "revolute_hole", "prismatic"))
def test_same_relative_displacement_gives_same_gaps(kind, where):
    a, shift = (1.5 * C / (L / 2), 3e-5) if kind != "prismatic" else (2e-3, 0.0)
    D = general_motion(kind, a, shift)
    parent = GROUND if where == "ground_parent" else parent_body()
    child = GROUND if where == "ground_child" else child_body()
    s, _, m = build(general_joint(kind), parent, child)
    if where == "two_bodies":  # plus a large common motion of both bodies
        common = Motion.about([0.2, -1.0, 0.7], 2.3, [-0.4, 0.9, 0.2], [1.0, -2.0, 0.5])
        moves = {parent: common, child: common @ D}
    elif where == "ground_parent":
        moves = {child: D}
    else:
        moves = {parent: D.inverse()}
    gaps, _, _ = evaluate(m, state(s, moves))
    assert gaps == pytest.approx(general_expected(kind, a, shift), rel=1e-7, abs=1e-13)


# --- 4. Jacobians and force directions --------------------------------------------------------
BIG = 0.01  # radial and prismatic clearance of the Jacobian tests (|d| well above eps)
JACOBIAN_KINDS = {
    "cylindrical_pin": lambda p, c: CylindricalClearance("j", p, c, CG, AG, 0.1, 0.05, 0.04),
    "cylindrical_hole": lambda p, c: CylindricalClearance(
        "j", p, c, CG, AG, 0.1, 0.05, 0.04, ends_on="hole"
    ),
    "revolute_pin": lambda p, c: RevoluteClearance("j", p, c, CG, AG, 0.1, 0.05, 0.04, BIG),
    "revolute_hole": lambda p, c: RevoluteClearance(
        "j", p, c, CG, AG, 0.1, 0.05, 0.04, BIG, ends_on="hole"
    ),
    "revolute_no_play": lambda p, c: RevoluteClearance("j", p, c, CG, AG, 0.1, 0.05, 0.04, 0.0),
    "prismatic_triangle": lambda p, c: PrismaticClearance(
        "j", p, c, CG, AG, [TRI[i] for i in (0, 1, 2)], 0.1, BIG, SXG
    ),
}


def off_centre_state(kind: str):
    """Two movable bodies; the child turned by 0.08 rad and shifted 6 mm relative to the parent,
    then both moved rigidly."""
    s, joint, m = build(JACOBIAN_KINDS[kind], parent_body(), child_body())
    parent, child = s.bodies
    D = Motion.about([0.3, 0.8, -0.5], 0.08, CG, 0.006 * np.array([0.6, -0.64, 0.48]))
    common = Motion.about([1.0, 0.4, -0.2], 0.9, [0.1, 0.1, 0.1], [0.2, 0.0, -0.3])
    return s, joint, m, state(s, {parent: common, child: common @ D})


@pytest.mark.parametrize("kind", JACOBIAN_KINDS)
def test_velocity_jacobian_matches_central_differences(kind):
    s, _, m, q = off_centre_state(kind)
    gaps = np.asarray(m.Phi(q)).ravel()
    assert np.min(np.abs(gaps)) > 1e-4  # a generic pose, no contact exactly
    rng = np.random.default_rng(3)
    h = 1e-7  # truncation ~2e-8 relative here (checked: the error falls as h^2)
    for _ in range(3):
        v = rng.normal(size=12)
        qd = q_dot_of(q, v)
        for f, jac in (
            (m.Phi, m.Phi_v),
            (lambda x: m.Phi_eq(x, 0.0), lambda x: m.Phi_eq_v(x, 0.0)),
        ):
            fd = (np.asarray(f(q + h * qd)) - np.asarray(f(q - h * qd))).ravel() / (2 * h)
            jv = np.asarray(jac(q)) @ v
            assert np.all(np.isfinite(jv))
            assert np.linalg.norm(fd - jv) <= 1e-6 * np.linalg.norm(jv) + 1e-12
        assert np.linalg.norm(np.asarray(m.Phi_v(q)) @ v) > 1e-2  # not 0 == 0


@pytest.mark.parametrize("ends_on", ("pin", "hole"))
def test_radial_jacobian_rows_are_finite_and_zero_at_the_centred_start(ends_on):
    s, _, m = build(revolute(ends_on), parent_body(), child_body())
    q0, _ = s.initial_state()
    J0 = np.asarray(m.Phi_v(q0))
    assert np.all(np.isfinite(J0))
    assert np.max(np.abs(J0[:2])) < 1e-8  # radial rows: zero gradient of the smoothed norm
    sign = 1.0 if ends_on == "pin" else -1.0  # -dPhi_stop/dr_pin: +/- Z, opposite on the hole
    assert J0[2, 6:9] == pytest.approx(-sign * Z, abs=1e-12)
    assert J0[3, 6:9] == pytest.approx(sign * Z, abs=1e-12)
    assert J0[2:, 0:3] == pytest.approx(-J0[2:, 6:9], abs=1e-12)
    # off centre the radial rows are O(1): the zero above is not a trivial one
    q = state(s, {s.bodies[1]: Motion(t=C * Y)})
    assert np.min(np.linalg.norm(np.asarray(m.Phi_v(q))[:2], axis=1)) > 1.0


@pytest.mark.parametrize("kind", [k for k in JACOBIAN_KINDS if k != "revolute_no_play"])
def test_force_directions_and_points_match_the_jacobian(kind):
    """-Phi_v^T lambda is the generalised contact force: for the child its translational rows are
    the reported direction and its rotational rows the moment of that force at the contact point
    (body axes); the parent gets the opposite force."""
    s, joint, m, q = off_centre_state(kind)
    gaps, dirs, points = evaluate(m, q)
    J = -np.asarray(m.Phi_v(q))
    r_child = q[7:10]
    A_child = Quaternion(q[10:14]).rotation_matrix
    for j in range(m.n_gap):
        assert J[j, 6:9] == pytest.approx(dirs[j], abs=1e-12)
        assert J[j, 0:3] == pytest.approx(-dirs[j], abs=1e-12)
        moment = A_child.T @ np.cross(points[j] - r_child, dirs[j])
        assert J[j, 9:12] == pytest.approx(moment, abs=1e-12)
    # unit directions, except the radial gaps' guard |d| / sqrt(|d|^2 + eps^2) (|d| from the gap;
    # 1 - 1e-4 at end 1 here, where |d| is 0.7 mm and eps 1e-5 m)
    eps = 1e-3 * BIG
    for j, label in enumerate(joint.gap_labels):
        expected = 1.0
        if label.startswith("end"):
            dist = math.sqrt((gaps[j] + math.hypot(BIG, eps)) ** 2 - eps**2)
            expected = unit_factor(dist, BIG)
        assert np.linalg.norm(dirs[j]) == pytest.approx(expected, abs=1e-12)


# --- 5. validation ----------------------------------------------------------------------------
PENTAGRAM = [(math.cos(a), math.sin(a)) for a in np.radians(90 + 144 * np.arange(5))]
BAD = [
    (lambda: cylinder()(GROUND, child_body()), None),  # control: valid
    (
        lambda: CylindricalClearance("j", GROUND, child_body(), C0, Z, L, 0.01, 0.01),
        "j.hole_radius",
    ),
    (
        lambda: CylindricalClearance("j", GROUND, child_body(), C0, Z, L, 0.009, 0.01),
        "j.hole_radius",
    ),
    (lambda: CylindricalClearance("j", GROUND, child_body(), C0, Z, L, 0.01, 0.0), "j.pin_radius"),
    (
        lambda: CylindricalClearance("j", GROUND, child_body(), C0, Z, 0.0, R_HOLE, R_PIN),
        "j.length",
    ),
    (
        lambda: CylindricalClearance("j", GROUND, child_body(), C0, (0, 0, 0), L, R_HOLE, R_PIN),
        "j.axis",
    ),
    (
        lambda: CylindricalClearance("j", GROUND, child_body(), (0, 1), Z, L, R_HOLE, R_PIN),
        "j.center",
    ),
    (lambda: cylinder(ends_on="both")(GROUND, child_body()), "j.ends_on"),
    (lambda: revolute(axial_play=-1e-4)(GROUND, child_body()), "j.axial_play"),
    (lambda: revolute(axial_play=float("nan"))(GROUND, child_body()), "j.axial_play"),
    (lambda: prism([(0, 0), (2, 0), (1, 0.5), (1, 2)])(GROUND, child_body()), "j.vertices"),
    (lambda: prism(PENTAGRAM)(GROUND, child_body()), "j.vertices"),
    (lambda: prism([(0, 0), (1, 0), (2, 0), (1, 1)])(GROUND, child_body()), "j.vertices"),
    (lambda: prism([(0, 0), (0, 0), (1, 0), (0, 1)])(GROUND, child_body()), "j.vertices"),
    (lambda: prism([(0, 0), (1, 0)])(GROUND, child_body()), "j.vertices"),
    (lambda: prism([(0, 0, 0), (1, 0, 0), (0, 1, 0)])(GROUND, child_body()), "j.vertices"),
    (lambda: prism(hexagon(), section_x=(0, 0, 2))(GROUND, child_body()), "j.section_x"),
    (lambda: prism(hexagon(), section_x=(0, 0, 0))(GROUND, child_body()), "j.section_x"),
    (lambda: prism(hexagon(), clearance=0.0)(GROUND, child_body()), "j.clearance"),
    (
        lambda: PrismaticClearance("j", GROUND, child_body(), C0, Z, hexagon(), -0.1, CP),
        "j.length",
    ),
]


@pytest.mark.parametrize("make, word", BAD)
def test_bad_input_raises_one_line_input_error(make, word):
    if word is None:
        make()
        return
    with pytest.raises(InputError) as info:
        make()
    message = str(info.value)
    assert word in message and "\n" not in message


# --- 6. dynamics smoke runs -------------------------------------------------------------------
# The paper's slider of section 4.1/4.2 (parameters chosen for nlpmbd, docs/FORMULATION.md 7).
PUSH = (0.0, 0.0, 10.0)
PUSH_AT = (0.0, 0.02, 0.05)


def run(system, t_end=0.2, h=1e-3, integrator="auto"):
    options = SimulationOptions(t_end=t_end, h_min=h, h_max=h, integrator=integrator)
    return simulate(system, options)


#: z(t) of a body pushed along Z at a = 10 m/s^2 from rest, h = 1e-3 s, by scheme: the
#: symplectic Euler recursion x_n = a/2 t_n (t_n + h); Stoermer-Verlet is exact, a t^2 / 2
PUSHED = {
    "euler": lambda t: 5.0 * t * (t + 1e-3),
    "verlet": lambda t: 5.0 * t**2,
}


def check_run(res, system):
    assert res.completed and np.all(res.status < 3)
    assert res.lam.max() > 0  # contact happened
    assert res.eom_residual.max() <= 1e-8
    assert res.gap.max() < 1e-3 * min(j.gap_scales[0] for j in system.joints)  # tiny penetration


def slider_resting_forces():
    """Static end forces of the 1 kg slider pushed along Z at PUSH_AT: their sum carries the
    weight, their difference (lever L/2 = 0.05 m each side) the moment 0.02 m * 10 N."""
    diff = 0.02 * 10.0 / 0.05
    return (G - diff) / 2, (G + diff) / 2  # front (z < 0), back (z > 0)


@pytest.mark.parametrize("integrator", ["euler", "verlet"])
def test_slider_on_fixed_rod_runs_and_comes_to_rest_on_the_rod(integrator):
    """Cylindrical: the slider (hole, ends) drops by c onto a fixed rod (ground, pin) and slides
    along it; the contact normals are perpendicular to Z, so z follows the scheme's exact
    answer for a = 10 m/s^2 (PUSHED)."""
    s = System(gravity=(0.0, -G, 0.0))
    slider = s.add_body(RigidBody("slider", 1.0, (9.67e-4, 1.133e-3, 4.33e-4)))
    s.add_joint(
        CylindricalClearance("rod", slider, GROUND, (0, 0, 0), Z, 0.1, 0.0101, 0.01, "hole")
    )
    s.add_load(Force(slider, PUSH, point=PUSH_AT))
    res = run(s, integrator=integrator)
    check_run(res, s)
    assert res.q[:, 2] == pytest.approx(PUSHED[integrator](res.t), abs=1e-9)
    assert res.q[-1, 1] == pytest.approx(-C, rel=1e-3)  # resting on top of the rod
    # the engine reports the force on the moving body (the slider; the child here is the
    # ground rod): the rod holds the slider up
    front, back = slider_resting_forces()
    m = SymbolicModel.build(s)
    dirs = np.asarray(m.contact(res.q[-1])[0]).T
    assert res.lam[-1, :, None] * dirs == pytest.approx(
        np.array([[0, front, 0], [0, back, 0]]), abs=1e-5
    )
    assert res.contact_force[-1] == pytest.approx(res.lam[-1, :, None] * dirs, abs=1e-12)


@pytest.mark.parametrize("integrator", ["euler", "verlet"])
def test_slider_falls_into_triangular_guide_and_rests_on_its_bottom_face(integrator):
    s = System(gravity=(0.0, -G, 0.0))
    slider = s.add_body(RigidBody("slider", 1.0, (9.375e-4, 9.375e-4, 2.083e-4)))
    joint = s.add_joint(
        PrismaticClearance("guide", GROUND, slider, (0, 0, 0), Z, list(TRI.values()), 0.1, CP)
    )
    s.add_load(Force(slider, PUSH, point=PUSH_AT))
    res = run(s, integrator=integrator)
    check_run(res, s)
    assert res.q[:, 2] == pytest.approx(PUSHED[integrator](res.t), abs=1e-9)
    assert res.q[-1, 1] == pytest.approx(-CP, rel=1e-6)  # dropped by c onto the bottom face
    front, back = slider_resting_forces()
    # edge 1 is the bottom face (vertices 1 and 2); how a face's load splits between its two
    # vertices is not determined by rigid contact, their sum is
    lam = dict(zip(joint.gap_labels, res.lam[-1], strict=True))
    on_bottom = {
        end: sum(f for k, f in lam.items() if k.startswith(end) and k.endswith("e1"))
        for end in ("front", "back")
    }
    assert on_bottom == pytest.approx({"front": front, "back": back}, abs=1e-6)
    assert all(abs(f) < 1e-6 for k, f in lam.items() if not k.endswith("e1"))


def test_pendulum_with_revolute_clearance_runs():
    """Pendulum (hole, line body with the stops) on a fixed short pin (ground, ends), released
    horizontal; its centre of mass 0.05 m off the joint plane makes it tilt and slide axially."""
    s = System(gravity=(0.0, -G, 0.0))
    pend = s.add_body(RigidBody("pendulum", 1.0, (2e-3, 0.085, 0.085), position=(0.5, 0.0, 0.05)))
    s.add_joint(RevoluteClearance("pin", pend, GROUND, (0, 0, 0), Z, 0.05, 0.0101, 0.01, 1e-4))
    res = run(s)
    check_run(res, s)
    assert np.all(res.lam.max(axis=0)[:3] > 0)  # both ends and stop 1 took load
    kinetic, potential, total = res.energy[-1]
    assert potential < -1.0 and kinetic > 1.0  # it swings
    assert total <= 1e-9 and total > -0.05  # inelastic contacts dissipate a little
