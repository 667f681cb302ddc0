"""A tilted, spinning box dropped on the floor y = 0: unilateral contacts at its eight corners.

Parameters chosen for nlpmbd (not from the paper): a 0.2 x 0.1 x 0.1 m box of 1 kg, tilted by
`tilt` degrees about Z and `tilt / 2` about X, its lowest corner `height` above the floor, moving
at 0.3 m/s along X and spinning at `spin` rad/s about body y. Contacts are frictionless and
perfectly inelastic (the paper's model), so the box lands, rocks and settles on a face while
sliding. It exercises complementarity without clearance joints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter

if TYPE_CHECKING:
    from nlpmbd import System

PARAMETERS = (
    Parameter("mass", 1.0, "box mass", float, low=0.0, low_open=True, unit="kg"),
    Parameter("height", 0.05, "initial height of the lowest corner", float, low=0.0, unit="m"),
    Parameter(
        "tilt",
        20.0,
        "initial tilt about Z (half of it about X)",
        float,
        low=-90.0,
        high=90.0,
        unit="deg",
    ),
    Parameter("spin", 3.0, "initial spin about body y", float, unit="rad/s"),
    Parameter("vx", 0.3, "initial velocity along X", float, unit="m/s"),
)
EDGES = (0.2, 0.1, 0.1)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System
    from nlpmbd_joints import PlaneContact

    a, b, c = EDGES
    m = params["mass"]
    J = (m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12, m * (a**2 + b**2) / 12)
    rot = Quaternion(axis=[0, 0, 1], degrees=params["tilt"]) * Quaternion(
        axis=[1, 0, 0], degrees=params["tilt"] / 2
    )
    corners = [
        np.array([sx * a / 2, sy * b / 2, sz * c / 2])
        for sx in (-1, 1)
        for sy in (-1, 1)
        for sz in (-1, 1)
    ]
    lowest = min(rot.rotate(p)[1] for p in corners)
    system = System(gravity=(0.0, -9.81, 0.0))
    box = system.add_body(
        RigidBody(
            "box",
            m,
            J,
            position=(0.0, params["height"] - lowest, 0.0),
            orientation=rot,
            velocity=(params["vx"], 0.0, 0.0),
            angular_velocity=(0.0, params["spin"], 0.0),
        )
    )
    system.add_joint(PlaneContact("floor", box, corners))
    return system


CASE = Case(
    name="box_drop",
    description="tilted spinning box dropped on a frictionless floor (8 corner contacts)",
    parameters=PARAMETERS,
    builder=build,
    t_end=1.0,
    h_min=1e-3,
    h_max=2e-3,
)
