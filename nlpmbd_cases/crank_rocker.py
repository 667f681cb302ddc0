"""Crank-rocker whose slider runs with Coulomb friction in a slot along the rocker.

Source: Wang X., Wang Q., Zhuang F., "The numerical method for multibody system with frictional
translational joints and driving constraints" (in Chinese), Journal of Dynamics and Control (2013),
doi:10.6052/1672-6553-2013-090 ([R4] of docs/FORMULATION.md), section 3.1 (its Fig. 2 is missing
from the copy we worked from; the geometry below is the one its equations imply). Planar in XY, Y
up. Rocker OA: pinned to the ground at O = (0, 0), J = 16/3 kg m^2 about O, 4 kg, centre of mass
1 m from O (a uniform 2 m rod), pointing along +Y at t = 0; its slot runs along its own axis. Crank
O1B: pinned at O1 = (0, 1) m, J = 1/6 kg m^2 about O1, 2 kg, centre of mass 0.25 m from O1, length
0.5 m, along +Y at t = 0 and driven clockwise at 3 rad/s (a DrivingAngle about -Z, "drive", whose
load is the paper's clockwise-positive driving moment). Slider B: 0.5 kg (a particle in the paper;
here a 40 x 20 mm block with J = 1.7e-4 kg m^2 about Z), pinned to the crank tip, sliding in the
slot with mu = 0.2. Rocker damping c = 0 or 8 N m s/rad (a RotationalSpringDamper). Gravity
9.81 m/s^2 along -Y (the paper names no gravity but calls Y vertical; assumed). Step 1e-3 s
(section 3.2).

The paper's slot holds the slider on both sides without play (a bilateral constraint with
friction); nlpmbd's friction acts at unilateral contacts, so the slot is a
PlanarPrismaticClearance with a small play `clearance` (0.1 mm by default): the slider bears
on one wall at a time and crosses the play when the normal force changes sign (at crank angles
0 and pi). Slot normal force N > 0 when the slider bears on the wall at +X at t = 0 (the
"lower" surface of the joint, whose w axis is -X).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System

OMEGA = 3.0  # rad/s, crank speed (clockwise)
SLIDER = (0.04, 0.02)  # m, slider length along the slot and width across it

PARAMETERS = (
    Parameter("damping", 0.0, "rocker viscous damping c", float, low=0.0, unit="N m s/rad"),
    Parameter("mu", 0.2, "friction coefficient in the slot", float, low=0.0, high=2.0),
    Parameter(
        "clearance",
        1e-4,
        "play of the slider in the slot, each side",
        float,
        low=0.0,
        low_open=True,
        high=5e-3,
        unit="m",
    ),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
)


def _bodies(system: System) -> tuple[RigidBody, RigidBody, RigidBody]:
    """Rocker, crank and slider at t = 0, moving as the driven crank dictates."""
    from nlpmbd import RigidBody

    up = Quaternion(axis=(0.0, 0.0, 1.0), angle=np.pi / 2)  # body x along the link, pointing +Y
    w_rocker = -OMEGA / 3.0  # rad/s about +Z at t = 0: the slot must follow B (B at 1.5 m)
    rocker = system.add_body(
        RigidBody(
            "rocker",
            4.0,
            (4 / 3, 4 / 3, 4 / 3),
            position=(0.0, 1.0, 0.0),
            orientation=up,
            velocity=(-w_rocker * 1.0, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, w_rocker),
        )
    )
    crank = system.add_body(
        RigidBody(
            "crank",
            2.0,
            (1 / 24, 1 / 24, 1 / 24),
            position=(0.0, 1.25, 0.0),
            orientation=up,
            velocity=(OMEGA * 0.25, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, -OMEGA),
        )
    )
    L, W = SLIDER
    J = 0.5 * (L**2 + W**2) / 12
    slider = system.add_body(
        RigidBody(
            "slider",
            0.5,
            (J, J, J),
            position=(0.0, 1.5, 0.0),
            orientation=up,
            velocity=(OMEGA * 0.5, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, w_rocker),
        )
    )
    return rocker, crank, slider


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, System
    from nlpmbd.model.springs import RotationalSpringDamper
    from nlpmbd_joints import DrivingAngle, PlanarPrismaticClearance, RevoluteJoint

    system = System(gravity=(0.0, -params["g"], 0.0))
    z = np.array([0.0, 0.0, 1.0])
    rocker, crank, slider = _bodies(system)
    L, W = SLIDER
    system.add_joint(RevoluteJoint("rocker_pivot", GROUND, rocker, point=(0, 0, 0), axis=z))
    system.add_joint(RevoluteJoint("crank_pivot", GROUND, crank, point=(0, 1, 0), axis=z))
    system.add_joint(RevoluteJoint("slider_pin", crank, slider, point=(0, 1.5, 0), axis=z))
    system.add_joint(DrivingAngle("drive", GROUND, crank, lambda t: OMEGA * t, axis=-z))
    system.add_joint(
        PlanarPrismaticClearance(
            "slot",
            guide=rocker,
            slider=slider,
            center=(0, 1.5, 0),
            axis=(0, 1, 0),
            length=L,
            width=W,
            clearance=params["clearance"],
            contact=HardContact(mu=params["mu"]),
        )
    )
    if params["damping"] > 0:
        system.add_load(
            RotationalSpringDamper(
                "rocker_damper", GROUND, rocker, axis=(0.0, 0.0, 1.0), damping=params["damping"]
            )
        )
    return system


CASE = Case(
    name="crank_rocker",
    description="crank-rocker, slider in the rocker's slot with friction (Wang, Wang, Zhuang)",
    parameters=PARAMETERS,
    builder=build,
    t_end=4 * np.pi / OMEGA,
    h_min=1e-3,
    h_max=1e-3,
)
