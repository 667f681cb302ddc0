"""Siconos' impacting stick: a rod whose lower end hits the ground twice, Newton e = 1 with
Coulomb friction mu = 0.01, where the kinematic impact law adds energy at the first impact.

Parameters from the Siconos tutorials (`examples/mechanics/ImpactingStick`, issue 31's reference
`siconos_impacting_stick`): a planar rod of length 1 m and 1 kg, I = m l^2 / 12, g = 10 m/s^2
along -Y; its centre at ((l/2) sin 45 deg, (l/2) cos 45 deg + 0.01) m and its axis 45 deg from
the vertical, so that the lower end starts 0.01 m above the ground y = 0 and 0.707 m along X;
initial velocity (-0.5, 0.1) m/s and 0.1 rad/s about Z. The lower end is a `PlaneContact`
(body point (0, -l/2, 0)) with `HardContact(restitution=1, mu=0.01)` (Siconos: tangential
restitution 0, as here).

Newton's law restores the normal velocity of the contact point; with friction the rod's spin
couples it to the tangential one, so the kinetic energy can rise at an impact (Siconos: +7.07e-4
J at the first, -5.99e-4 J at the second).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pyquaternion import Quaternion

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

if TYPE_CHECKING:
    from nlpmbd import System

LENGTH = 1.0
PARAMETERS = (
    Parameter("mass", 1.0, "rod mass", float, low=0.0, low_open=True, unit="kg"),
    Parameter("restitution", 1.0, "Newton's coefficient of restitution", float, low=0.0, high=1.0),
    Parameter("mu", 0.01, "Coulomb friction coefficient", float, low=0.0),
    Parameter(
        "tilt",
        45.0,
        "initial angle of the rod from the vertical",
        float,
        low=-89.0,
        high=89.0,
        unit="deg",
    ),  # fmt: skip
    Parameter("lift", 0.01, "initial height of the lower end", float, low=0.0, unit="m"),
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System
    from nlpmbd_joints import PlaneContact

    m, half = params["mass"], LENGTH / 2
    inertia = m * LENGTH**2 / 12
    theta = math.radians(params["tilt"])
    system = System(gravity=(0.0, -10.0, 0.0))
    rod = system.add_body(
        RigidBody(
            "rod",
            m,
            (inertia, inertia, inertia),  # only the one about Z acts: the motion is planar
            position=(half * math.sin(theta), half * math.cos(theta) + params["lift"], 0.0),
            orientation=Quaternion(axis=[0, 0, 1], angle=theta),
            velocity=(-0.5, 0.1, 0.0),
            angular_velocity=(0.0, 0.0, 0.1),
        )
    )
    law = HardContact(restitution=params["restitution"], mu=params["mu"])
    system.add_joint(PlaneContact("ground", rod, [(0.0, -half, 0.0)], contact=law))
    return system


CASE = Case(
    name="impacting_stick",
    description="rod whose end hits the ground twice, e = 1, mu = 0.01 (Siconos)",
    parameters=PARAMETERS,
    builder=build,
    t_end=0.2,
    h_min=1e-4,
    h_max=1e-4,
)
