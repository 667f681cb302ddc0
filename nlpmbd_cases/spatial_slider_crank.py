"""Spatial slider-crank: the IFToMM multibody benchmark "Spatial rigid slider-crank mechanism".

Source: the IFToMM benchmark's definition as modelled in Exudyn's sliderCrank3Dbenchmark (the
published solutions of Masarati, Masoudi and others use the same data). Gravity 9.81 m/s^2
along -Z. Crank AB: 0.08 m, 0.12 kg, centre of mass at its middle, inertia diag(1e-4, 1e-4,
1e-5) kg m^2 about it (its own axis last), revolute joint about global X at A = (0, 0.1, 0.12) m,
starting along +Z and turning at 6 rad/s about +X. Rod BC: 0.3 m, 0.5 kg, centre of mass at its
middle, inertia diag(4e-4, 4e-3, 4e-3) about its axis and two normals (body x along B -> C, z
the part of B normal to it); spherical joint to the crank at B = (0, 0.1, 0.2); universal joint
to the slider at C, the slider's pin along global Y and the rod's along global X at the start.
Slider: 2 kg, inertia 1e-4 kg m^2 about each axis, prismatic joint along global X through the
origin, starting at C = (0.2, 0, 0), unforced. Initial velocities follow from the crank's 6
rad/s and the joints (`rod_angular_velocity`): slider 0.24 m/s, rod centre (0.12, -0.24, 0) m/s,
rod (2.4, -1.2, 0) rad/s (Exudyn's model starts the rod at (1.92, -0.96, 0.48), whose spin about
the rod's axis breaks its own cross condition at a rate of 0.48 rad/s).
One degree of freedom; the crank is free after the start. All joints ideal (clearance variants:
issue 15, to come); references/ref_spatial_slider_crank.py is its minimal-coordinate reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import GROUND, Case, RigidBody, System
from nlpmbd_joints import PrismaticJoint, RevoluteJoint, SphericalJoint, UniversalJoint

A, B, C = np.array([0.0, 0.1, 0.12]), np.array([0.0, 0.1, 0.2]), np.array([0.2, 0.0, 0.0])
OMEGA_CRANK = np.array([6.0, 0.0, 0.0])
V_SLIDER = np.array([0.24, 0.0, 0.0])


def rod_angular_velocity() -> np.ndarray:
    """The rod's angular velocity at the start (global): its part across the rod from the
    velocities of B (crank) and C (slider), its spin about the rod's axis e from the cross
    condition d/dt (w . Y) = w_rod . Z = 0 (w the rod-fixed vector that starts along X)."""
    e = (C - B) / np.linalg.norm(C - B)
    v_b = np.cross(OMEGA_CRANK, B - A)
    across = np.cross(e, V_SLIDER - v_b) / np.linalg.norm(C - B)
    return across - across[2] / e[2] * e


def rod_axes() -> np.ndarray:
    """The rod's body axes at the start (columns): x along C - B, z the part of B normal to x."""
    x = (C - B) / np.linalg.norm(C - B)
    z = B - np.dot(B, x) * x
    z /= np.linalg.norm(z)
    return np.column_stack([x, np.cross(z, x), z])


def build(params: Mapping[str, Any]) -> System:
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
    system.add_joint(RevoluteJoint("A", GROUND, crank, point=A, axis=(1, 0, 0)))
    system.add_joint(SphericalJoint("B", crank, rod, point=B))
    system.add_joint(UniversalJoint("C", slider, rod, C, (0, 1, 0), (1, 0, 0)))
    system.add_joint(PrismaticJoint("D", GROUND, slider, point=(0, 0, 0), axis=(1, 0, 0)))
    return system


CASE = Case(
    name="spatial_slider_crank",
    description="IFToMM spatial rigid slider-crank (revolute, spherical, universal, prismatic)",
    parameters=(),
    builder=build,
    t_end=2.0,
    h_min=1e-4,
    h_max=1e-3,
)
