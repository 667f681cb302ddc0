"""The Painleve rod: a rod sliding on one end with Coulomb friction mu = 5/3, above the
critical 4/3 of a uniform rod, driven by its sliding into the configurations where the
sliding contact has no solution (Painleve's paradox).

A rod of our choice after Genot and Brogliato (1999): 1 m, 1 kg, I = m l^2 / 3 about its
centre (l = 0.5 m the half length), g = 9.81. Its lower end A starts on the ground y = 0 at the
origin, the rod at `angle` above the horizontal leaning towards +X, and slides towards -X at
`speed` (the rod translating, not turning). The end is a `PlaneContact` with
`HardContact(mu=5/3)`. While A slides towards -X the end's normal acceleration is
A + B lambda with B = (1 + 3 cos^2 theta - 3 mu sin theta cos theta) / m, negative for theta
between 45 and 75.96 deg: there a sliding contact can neither hold (lambda = -A / B < 0) nor
open. Friction turns the rod up towards that range, the normal force growing as B -> 0; the
slip stops at 45 deg and the end lifts off. Started inside the range (`angle` 55 deg) the
velocity-level step sticks the end at once with a finite impulse: a tangential impact.
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

HALF = 0.5
PARAMETERS = (
    Parameter("mu", 5 / 3, "Coulomb friction coefficient", float, low=0.0),
    Parameter(
        "angle", 44.0, "initial angle above the horizontal", float, low=1.0, high=89.0, unit="deg"
    ),  # fmt: skip
    Parameter("speed", 5.0, "initial sliding speed towards -X", float, low=0.0, unit="m/s"),
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System
    from nlpmbd_joints import PlaneContact

    m = 1.0
    theta = math.radians(params["angle"])
    inertia = m * HALF**2 / 3  # about the centre, across the rod
    system = System(gravity=(0.0, -9.81, 0.0))
    rod = system.add_body(
        RigidBody(
            "rod",
            m,
            (1e-3 * inertia, inertia, inertia),  # along, across, across (body x along the rod)
            position=(HALF * math.cos(theta), HALF * math.sin(theta), 0.0),
            orientation=Quaternion(axis=[0, 0, 1], angle=theta),
            velocity=(-params["speed"], 0.0, 0.0),
        )
    )
    law = HardContact(mu=params["mu"])
    system.add_joint(PlaneContact("ground", rod, [(-HALF, 0.0, 0.0)], contact=law))
    return system


CASE = Case(
    name="painleve",
    description="Painleve's rod: sliding with mu = 5/3 into the inconsistent configuration",
    parameters=PARAMETERS,
    builder=build,
    t_end=0.05,
    h_min=1e-5,
    h_max=1e-3,
)
