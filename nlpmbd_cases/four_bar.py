"""Planar four-bar linkage (Grashof crank-rocker) with clearance in any subset of its four pins.

Geometry (our choice, a classic Grashof crank-rocker; no paper's numbers): planar in XY, Y up,
Z out of the plane. Ground link A -> D along +X, L0 = 0.38 m; crank A -> B, L1 = 0.10 m; coupler
B -> C, L2 = 0.35 m; rocker D -> C, L3 = 0.30 m. Grashof: shortest + longest = 0.48 m <= 0.65 m
= sum of the other two, and the shortest link (the crank) is next to the ground, so the crank
turns fully and the rocker swings between 98.0 and 138.9 deg from +X (transmission angle
50..95 deg). Uniform slender links of 2 kg/m: crank 0.2 kg, coupler 0.7 kg, rocker 0.6 kg,
centre of mass mid-link, inertia m L^2 / 12 about Z (1.667e-4, 7.146e-3, 4.5e-3 kg m^2; the same
value about the body's x and y, which planar motion does not use). Gravity 9.81 m/s^2 along -Y.

Pins (all about Z): A = (0, 0, 0), ground-crank; B, crank-coupler (crank tip); C, coupler-rocker
(rocker tip); D = (0.38, 0, 0), ground-rocker. The crank starts along +X (B = (0.1, 0, 0)) with
C on the upper branch (C above A-D, rocker at 105.9 deg) and is DRIVEN at constant speed
(`speed`, default 60 rpm, counter-clockwise about +Z: a DrivingAngle "drive", whose multiplier
is the driving moment): the ideal rocker angle is then pure loop-closure kinematics, an
independent exact check, and the clearance shows up as the deviation of the rocker from it and
as contact forces, with no drift of a free crank mixed in. Initial velocities are the ideal
linkage's (references/ref_four_bar.py has the independent Freudenstein solution).

Redundancy: four spatial revolute joints over-constrain a planar loop by three equations (out-
of-plane translation and two tilts). As the slider-cranks do with PlanarPrismaticJoint, the
loop-closing pin C keeps only its in-plane equations (PlanarRevoluteJoint, 2 equalities) and,
when loose, only its in-plane radial gap (PlanarRevoluteClearance). A, B and D are
RevoluteJoint, or when loose RevoluteClearance (pin of radius 5 mm and length 20 mm, radial
clearance `clearance`, axial play 0: an axial equality, two radial end gaps). Hole in the
crank at A, in the coupler at B and C, in the rocker at D. Hard contacts, frictionless,
inelastic (restitution 0).

`clearance_at`: "none", "all", or a comma list of the loose pins among A, B, C, D ("A,C").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter
from nlpmbd.errors import InputError
from nlpmbd.validation import short_repr

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System
    from nlpmbd.model.joint import Joint

L0, L1, L2, L3 = 0.38, 0.10, 0.35, 0.30  # m: ground, crank, coupler, rocker
DENSITY = 2.0  # kg/m, uniform slender links
RADIUS, PIN_LENGTH = 5e-3, 0.02  # m: every pin
JOINTS = ("A", "B", "C", "D")
Z = np.array([0.0, 0.0, 1.0])

PARAMETERS = (
    Parameter("clearance_at", "none", "loose pins: none, all or a comma list of A,B,C,D", str),
    Parameter(
        "clearance", 1e-4, "radial clearance of every loose pin", float,
        low=0.0, low_open=True, high=1e-3, unit="m",
    ),
    Parameter("speed", 60.0, "crank speed", float, low=0.0, high=1e4, unit="rpm"),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
)  # fmt: skip


def loose_joints(
    value: str, joints: tuple[str, ...] = JOINTS, aliases: dict[str, str] | None = None
) -> frozenset[str]:
    """The joints named by `clearance_at` ("none", "all", an alias or e.g. "A,C"), or
    InputError. `aliases` maps a word to a joint (spatial_slider_crank: "crank" -> "A")."""
    text = (aliases or {}).get(value.strip(), value.strip())
    if text == "none":
        return frozenset()
    if text == "all":
        return frozenset(joints)
    names = [n.strip() for n in text.split(",")]
    if not names or any(n not in joints for n in names) or len(set(names)) != len(names):
        words = "".join(f", '{a}'" for a in aliases or {})
        raise InputError(
            f"clearance_at must be 'none', 'all'{words} or a comma list of distinct joints "
            f"from {','.join(joints)} (e.g. '{joints[0]},{joints[2]}'), got {short_repr(value)}"
        )
    return frozenset(names)


def pin_positions(theta: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(B, C, coupler angle phi, rocker angle psi) at crank angle theta, upper branch: C is the
    intersection of the circles |C - B| = L2 and |C - D| = L3 to the left of D -> B."""
    B = L1 * np.array([np.cos(theta), np.sin(theta), 0.0])
    D = np.array([L0, 0.0, 0.0])
    e = float(np.linalg.norm(B - D))
    delta = np.arccos((e**2 + L3**2 - L2**2) / (2 * e * L3))  # angle at D between DB and DC
    psi = float(np.arctan2(B[1] - D[1], B[0] - D[0]) - delta) % (2 * np.pi)
    C = D + L3 * np.array([np.cos(psi), np.sin(psi), 0.0])
    phi = float(np.arctan2(C[1] - B[1], C[0] - B[0]))
    return B, C, phi, psi


def rates(theta: float, omega: float) -> tuple[float, float]:
    """(phi_dot, psi_dot) from L1 w n(theta) + L2 phi_dot n(phi) = L3 psi_dot n(psi)."""
    _, _, phi, psi = pin_positions(theta)

    def n(a: float) -> np.ndarray:
        return np.array([-np.sin(a), np.cos(a)])

    M = np.column_stack([L2 * n(phi), -L3 * n(psi)])
    phi_dot, psi_dot = np.linalg.solve(M, -L1 * omega * n(theta))
    return float(phi_dot), float(psi_dot)


def _link(
    system: System,
    name: str,
    start: np.ndarray,
    length: float,
    angle: float,
    v_start: np.ndarray,
    rate: float,
) -> RigidBody:
    """A uniform link from `start` at `angle`, turning at `rate`, its start moving at v_start."""
    from nlpmbd import RigidBody

    m = DENSITY * length
    J = m * length**2 / 12
    e = np.array([np.cos(angle), np.sin(angle), 0.0])
    v = np.asarray(v_start) + rate * np.cross(Z, 0.5 * length * e)
    return system.add_body(
        RigidBody(
            name, m, (J, J, J), position=np.asarray(start) + 0.5 * length * e,
            orientation=Quaternion(axis=Z, angle=angle), velocity=v,
            angular_velocity=(0.0, 0.0, rate),
        )
    )  # fmt: skip


def _pin(name: str, hole: RigidBody, pin: Any, at: np.ndarray, loose: bool, c: float) -> Joint:
    """Pin `name` at `at` about Z: ideal, or with radial clearance c (C: the planar kinds)."""
    from nlpmbd_joints import RevoluteClearance, RevoluteJoint
    from nlpmbd_joints.planar_revolute import PlanarRevoluteJoint
    from nlpmbd_joints.planar_revolute_clearance import PlanarRevoluteClearance

    if name == "C":
        if not loose:
            return PlanarRevoluteJoint(name, hole, pin, point=at, axis=Z)
        return PlanarRevoluteClearance(
            name, hole=hole, pin=pin, center=at, axis=Z, length=PIN_LENGTH,
            hole_radius=RADIUS + c, pin_radius=RADIUS,
        )  # fmt: skip
    if not loose:
        return RevoluteJoint(name, pin, hole, point=at, axis=Z)
    return RevoluteClearance(
        name, hole=hole, pin=pin, center=at, axis=Z, length=PIN_LENGTH,
        hole_radius=RADIUS + c, pin_radius=RADIUS, axial_play=0.0, ends_on="pin",
    )  # fmt: skip


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, System
    from nlpmbd_joints import DrivingAngle

    loose, c = loose_joints(params["clearance_at"]), params["clearance"]
    omega = params["speed"] * 2 * np.pi / 60
    system = System(gravity=(0.0, -params["g"], 0.0))
    B, C, phi, psi = pin_positions(0.0)
    phi_dot, psi_dot = rates(0.0, omega)
    D = np.array([L0, 0.0, 0.0])
    crank = _link(system, "crank", np.zeros(3), L1, 0.0, np.zeros(3), omega)
    coupler = _link(system, "coupler", B, L2, phi, np.cross(omega * Z, B), phi_dot)
    rocker = _link(system, "rocker", D, L3, psi, np.zeros(3), psi_dot)
    system.add_joint(_pin("A", crank, GROUND, np.zeros(3), "A" in loose, c))
    system.add_joint(_pin("B", coupler, crank, B, "B" in loose, c))
    system.add_joint(_pin("C", coupler, rocker, C, "C" in loose, c))
    system.add_joint(_pin("D", rocker, GROUND, D, "D" in loose, c))
    system.add_joint(DrivingAngle("drive", GROUND, crank, lambda t: omega * t, axis=Z))
    return system


CASE = Case(
    name="four_bar",
    description="four-bar crank-rocker driven at 60 rpm, clearance in any subset of its pins",
    parameters=PARAMETERS,
    builder=build,
    t_end=2.0,
    h_min=1e-4,
    h_max=1e-3,
)
