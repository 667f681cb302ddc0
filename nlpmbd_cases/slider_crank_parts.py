"""The planar slider-crank shared by the slider-crank cases: bodies, pins and the guide.

Planar in XY, Z out of the plane. The crank pivots about Z at the origin O; the guide's axis is
X through O. The crank (length l1) runs from O to the pin B at angle theta from +X; the rod
(length l2) from B to the pin C at the slider's centre, which lies on the guide axis. Centres
of mass at the middle of crank and rod. Revolute joints about Z at O, B and C keep everything in
the plane, so the guide only needs its two in-plane equations (PlanarPrismaticJoint) when ideal,
and its four corner gaps (PlanarPrismaticClearance) with clearance. The out-of-plane inertias do not
enter planar motion; they are set equal to the in-plane one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd.model.contact import ContactLaw

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System

Z = (0.0, 0.0, 1.0)


@dataclass(frozen=True)
class SliderCrank:
    """Geometry (m), masses (kg), inertias about Z (kg m^2) and the initial crank state."""

    crank_length: float
    crank_mass: float
    crank_inertia: float
    rod_length: float
    rod_mass: float
    rod_inertia: float
    slider_mass: float
    slider_inertia: float
    slider_length: float  # along the guide
    slider_width: float  # across the guide, in the plane
    slider_thickness: float  # along Z
    theta0: float = 0.0  # rad
    omega0: float = 0.0  # rad/s


def pin_positions(g: SliderCrank) -> tuple[np.ndarray, np.ndarray, float]:
    """(B, C, phi) of the assembled mechanism at theta0: loop closure with C on the X axis."""
    th = g.theta0
    B = g.crank_length * np.array([np.cos(th), np.sin(th), 0.0])
    s = -g.crank_length * np.sin(th) / g.rod_length
    phi = float(np.arcsin(s))
    C = B + g.rod_length * np.array([np.cos(phi), np.sin(phi), 0.0])
    return B, C, phi


def _link(
    system: System,
    name: str,
    mass: float,
    inertia: float,
    start: np.ndarray,
    angle: float,
    v_start: np.ndarray,
    rate: float,
    length: float,
) -> RigidBody:
    """A uniform link in the XY plane starting at `start`, at `angle`, turning at `rate`."""
    from nlpmbd import RigidBody

    centre = start + 0.5 * length * np.array([np.cos(angle), np.sin(angle), 0.0])
    v_centre = v_start + 0.5 * length * rate * np.array([-np.sin(angle), np.cos(angle), 0.0])
    return system.add_body(
        RigidBody(
            name,
            mass,
            (inertia, inertia, inertia),
            position=tuple(centre),
            orientation=Quaternion(axis=Z, angle=angle),
            velocity=tuple(v_centre),
            angular_velocity=(0.0, 0.0, rate),
        )
    )


def _velocities(g: SliderCrank) -> tuple[float, np.ndarray, np.ndarray]:
    """(phi_dot, vB, vC) at theta0 from the loop closure l1 sin(theta) + l2 sin(phi) = 0."""
    th, w = g.theta0, g.omega0
    _, _, phi = pin_positions(g)
    phi_dot = -g.crank_length * w * np.cos(th) / (g.rod_length * np.cos(phi))
    vB = g.crank_length * w * np.array([-np.sin(th), np.cos(th), 0.0])
    vC = vB + g.rod_length * phi_dot * np.array([-np.sin(phi), np.cos(phi), 0.0])
    return phi_dot, vB, vC


def add_crank_and_rod(system: System, g: SliderCrank) -> tuple[RigidBody, RigidBody]:
    """Crank and rod at theta0 with velocities consistent with the loop closure."""
    th, w = g.theta0, g.omega0
    B, _, phi = pin_positions(g)
    phi_dot, vB, _ = _velocities(g)
    crank = _link(
        system, "crank", g.crank_mass, g.crank_inertia, np.zeros(3), th, np.zeros(3), w,
        g.crank_length,
    )  # fmt: skip
    rod = _link(system, "rod", g.rod_mass, g.rod_inertia, B, phi, vB, phi_dot, g.rod_length)
    return crank, rod


def _bodies(system: System, g: SliderCrank) -> tuple[RigidBody, RigidBody, RigidBody]:
    """Crank, rod and slider at theta0 with velocities consistent with the loop closure
    l1 sin(theta) + l2 sin(phi) = 0."""
    from nlpmbd import RigidBody

    _, C, _ = pin_positions(g)
    crank, rod = add_crank_and_rod(system, g)
    vC = _velocities(g)[2]
    I = g.slider_inertia
    slider = system.add_body(
        RigidBody("slider", g.slider_mass, (I, I, I), position=tuple(C), velocity=tuple(vC))
    )
    return crank, rod, slider


def build_slider_crank(
    g: SliderCrank,
    gravity: float,
    guide: str,
    clearance: float = 0.0,
    contact: ContactLaw | None = None,
    drive_speed: float | None = None,
) -> System:
    """The mechanism with `guide` "ideal" or "clearance" (then `clearance` and `contact`).
    `drive_speed` (rad/s): the crank angle is prescribed as theta0 + drive_speed t (a
    DrivingAngle named "drive"); None leaves the crank free."""
    from nlpmbd import GROUND, System
    from nlpmbd_joints import (
        DrivingAngle,
        PlanarPrismaticClearance,
        PlanarPrismaticJoint,
        RevoluteJoint,
    )

    system = System(gravity=(0.0, -gravity, 0.0))
    B, C, _ = pin_positions(g)
    crank, rod, slider = _bodies(system, g)
    system.add_joint(RevoluteJoint("pivot", GROUND, crank, point=(0, 0, 0), axis=Z))
    system.add_joint(RevoluteJoint("crank_pin", crank, rod, point=tuple(B), axis=Z))
    system.add_joint(RevoluteJoint("slider_pin", rod, slider, point=tuple(C), axis=Z))
    if drive_speed is not None:
        system.add_joint(DrivingAngle("drive", GROUND, crank, lambda t: drive_speed * t, axis=Z))
    if guide == "ideal":
        system.add_joint(PlanarPrismaticJoint("guide", GROUND, slider, point=tuple(C)))
        return system
    system.add_joint(
        PlanarPrismaticClearance(
            "guide",
            guide=GROUND,
            slider=slider,
            center=tuple(C),
            axis=(1.0, 0.0, 0.0),
            length=g.slider_length,
            width=g.slider_width,
            clearance=clearance,
            contact=contact,
        )
    )
    return system


def sinusoidal_moment(amplitude: float, frequency: float) -> Callable[[Any, Any], Any]:
    """P(t) = amplitude sin(frequency t) about Z, for a Torque in global axes."""
    import casadi as ca

    return lambda t, state: [0.0, 0.0, amplitude * ca.sin(frequency * t)]
