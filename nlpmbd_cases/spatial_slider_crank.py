"""Spatial slider-crank: the IFToMM multibody benchmark "Spatial rigid slider-crank mechanism".

Source: the IFToMM benchmark's definition as modelled in Exudyn's sliderCrank3Dbenchmark (the
published solutions of Masarati and Gonzalez use the same data). Gravity 9.81 m/s^2 along -Z.
Crank AB: 0.08 m, 0.12 kg, centre of mass at its middle, inertia diag(1e-4, 1e-4, 1e-5) kg m^2
about it (its own axis last), revolute joint about global X at A = (0, 0.1, 0.12) m, starting
along +Z and turning at 6 rad/s about +X. Rod BC: 0.3 m, 0.5 kg, centre of mass at its middle,
inertia diag(4e-4, 4e-3, 4e-3) about its axis and two normals (body x along B -> C, z the part
of B normal to it); spherical joint to the crank at B = (0, 0.1, 0.2); universal joint to the
slider at C, the slider's pin along its guide (global X), the rod's pin normal to the rod and to
that pin ((0, -2, 1) / sqrt 5 at the start). Slider: 2 kg, inertia 1e-4 kg m^2 about each axis,
prismatic joint along global X through the origin, starting at C = (0.2, 0, 0), unforced.
Initial velocities follow from the crank's 6 rad/s and the joints (`rod_angular_velocity`):
slider 0.24 m/s, rod centre (0.12, -0.24, 0) m/s, rod (1.92, -0.96, 0.48) rad/s: the benchmark's
published velocity field (Exudyn's omega1Init), which this cross satisfies exactly. (Until
issue 31 the cross had the slider's pin along Y and the rod's along X, and the rod started at
(2.4, -1.2, 0) rad/s: a different mechanism, 4.8e-3 m from the published solutions in 1 s.)
One degree of freedom; the crank is free after the start; references/ref_spatial_slider_crank.py
is the ideal mechanism's minimal-coordinate reference.

Clearance (`clearance_at`: "none", "all", "crank" (= A), "rod" (= B) or a comma list of the
loose joints among A, B, C, D, e.g. "A,D"), radial clearance `clearance` c at each:
A, RevoluteClearance (pin of radius 5 mm and length 20 mm fixed to the ground, hole in the
crank, axial play c); B, SphericalClearance (ball of radius 5 mm on the rod, socket in the
crank); C, UniversalClearance (the cross's centre, a 5 mm ball on the rod, has play c in a seat
in the slider; its pins, as the ideal joint's, stay perpendicular); D, PrismaticClearance (a
20 mm square slider, 40 mm long, in a guide along X with play c on each side, gravity holding
it on the floor). Hard contacts, frictionless and inelastic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter

from .four_bar import loose_joints

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System
    from nlpmbd.model.joint import Joint

A, B, C = np.array([0.0, 0.1, 0.12]), np.array([0.0, 0.1, 0.2]), np.array([0.2, 0.0, 0.0])
OMEGA_CRANK = np.array([6.0, 0.0, 0.0])
V_SLIDER = np.array([0.24, 0.0, 0.0])
SLIDER_PIN = np.array([1.0, 0.0, 0.0])  # the cross's pin in the slider: along the guide
RADIUS, PIN_LENGTH = 5e-3, 0.02  # m: the pin at A, the balls at B and C
SLIDER_SECTION, SLIDER_LENGTH = 0.02, 0.04  # m: the square slider in its guide at D
ALIASES = {"crank": "A", "rod": "B"}

PARAMETERS = (
    Parameter(
        "clearance_at", "none",
        "loose joints: none, all, crank (A), rod (B) or a comma list of A,B,C,D", str,
    ),
    Parameter(
        "clearance", 1e-4, "radial clearance (and axial play at A)", float,
        low=0.0, low_open=True, high=1e-3, unit="m",
    ),
)  # fmt: skip


def rod_pin() -> np.ndarray:
    """The cross's pin in the rod at the start: normal to the rod and to the slider's pin."""
    n = np.cross(C - B, SLIDER_PIN)
    return n / np.linalg.norm(n)


def rod_angular_velocity() -> np.ndarray:
    """The rod's angular velocity at the start (global): its part across the rod from the
    velocities of B (crank) and C (slider), its spin about the rod's axis e from the cross
    condition d/dt (w . u) = w_rod . (w x u) = 0 (w the rod's pin, u the slider's, which does
    not turn)."""
    e = (C - B) / np.linalg.norm(C - B)
    v_b = np.cross(OMEGA_CRANK, B - A)
    across = np.cross(e, V_SLIDER - v_b) / np.linalg.norm(C - B)
    n = np.cross(rod_pin(), SLIDER_PIN)
    return across - np.dot(across, n) / np.dot(e, n) * e


def rod_axes() -> np.ndarray:
    """The rod's body axes at the start (columns): x along C - B, z the part of B normal to x."""
    x = (C - B) / np.linalg.norm(C - B)
    z = B - np.dot(B, x) * x
    z /= np.linalg.norm(z)
    return np.column_stack([x, np.cross(z, x), z])


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System
    from nlpmbd_joints import SphericalClearance, SphericalJoint, UniversalClearance, UniversalJoint

    system = System(gravity=(0.0, 0.0, -9.81))
    crank = system.add_body(
        RigidBody(
            "crank", 0.12, (1e-4, 1e-4, 1e-5), position=(A + B) / 2,
            velocity=np.cross(OMEGA_CRANK, (B - A) / 2), angular_velocity=OMEGA_CRANK,
        )
    )  # fmt: skip
    R, w_rod = rod_axes(), rod_angular_velocity()
    v_rod = np.cross(OMEGA_CRANK, B - A) + np.cross(w_rod, (C - B) / 2)
    rod = system.add_body(
        RigidBody(
            "rod", 0.5, (4e-4, 4e-3, 4e-3), position=(B + C) / 2,
            orientation=Quaternion(matrix=R), velocity=v_rod, angular_velocity=R.T @ w_rod,
        )
    )  # fmt: skip
    slider = system.add_body(RigidBody("slider", 2.0, (1e-4,) * 3, position=C, velocity=V_SLIDER))
    loose = loose_joints(params["clearance_at"], ("A", "B", "C", "D"), ALIASES)
    c = params["clearance"]
    system.add_joint(_crank_joint(crank, c) if "A" in loose else _ideal_a(crank))
    if "B" in loose:
        system.add_joint(SphericalClearance("B", crank, rod, B, RADIUS + c, RADIUS))
    else:
        system.add_joint(SphericalJoint("B", crank, rod, point=B))
    if "C" in loose:
        system.add_joint(
            UniversalClearance("C", slider, rod, C, RADIUS + c, RADIUS, SLIDER_PIN, rod_pin())
        )
    else:
        system.add_joint(UniversalJoint("C", slider, rod, C, SLIDER_PIN, rod_pin()))
    system.add_joint(_slider_joint(slider, c) if "D" in loose else _ideal_d(slider))
    return system


def _ideal_a(crank: RigidBody) -> Joint:
    from nlpmbd import GROUND
    from nlpmbd_joints import RevoluteJoint

    return RevoluteJoint("A", GROUND, crank, point=A, axis=(1, 0, 0))


def _ideal_d(slider: RigidBody) -> Joint:
    from nlpmbd import GROUND
    from nlpmbd_joints import PrismaticJoint

    return PrismaticJoint("D", GROUND, slider, point=(0, 0, 0), axis=(1, 0, 0))


def _slider_joint(slider: RigidBody, c: float) -> Joint:
    from nlpmbd import GROUND
    from nlpmbd_joints import PrismaticClearance

    half = SLIDER_SECTION / 2
    square = [(-half, -half), (half, -half), (half, half), (-half, half)]
    return PrismaticClearance(
        "D", GROUND, slider, center=C, axis=(1, 0, 0), vertices=square,
        length=SLIDER_LENGTH, clearance=c, section_x=(0, 1, 0),
    )  # fmt: skip


def _crank_joint(crank: RigidBody, c: float) -> Joint:
    from nlpmbd import GROUND
    from nlpmbd_joints import RevoluteClearance

    return RevoluteClearance(
        "A", hole=crank, pin=GROUND, center=A, axis=(1, 0, 0), length=PIN_LENGTH,
        hole_radius=RADIUS + c, pin_radius=RADIUS, axial_play=c, ends_on="pin",
    )  # fmt: skip


CASE = Case(
    name="spatial_slider_crank",
    description="IFToMM spatial rigid slider-crank (revolute, spherical, universal, prismatic)",
    parameters=PARAMETERS,
    builder=build,
    t_end=2.0,
    h_min=1e-4,
    h_max=1e-3,
)
