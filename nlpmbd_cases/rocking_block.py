"""Housner's rocking block: a rectangular block rocking on its two bottom corners, the impacts
perfectly inelastic (e = 0) and friction high enough to stick, so that each impact turns the
block about the corner that lands.

A block of our choice (Housner 1963 gives the law, not a block): 0.2 m wide, 0.6 m tall, 1 kg,
so alpha = atan(b / h) = 18.43 deg (b, h the half width and half height); tilted by `tilt` onto
its right corner and released at rest. Its bottom corners are a `PlaneContact` with
`HardContact(mu=1)`, in the plane of the motion (z = 0, a planar rocking). At each corner switch
angular momentum about the landing corner is kept: omega+ / omega- = 1 - 1.5 sin^2(alpha) =
0.85 for this block.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

if TYPE_CHECKING:
    from nlpmbd import System

PARAMETERS = (
    Parameter("width", 0.2, "block width (2 b)", float, low=0.0, low_open=True, unit="m"),
    Parameter("height", 0.6, "block height (2 h)", float, low=0.0, low_open=True, unit="m"),
    Parameter("tilt", 0.1, "initial tilt onto the right corner", float, low=0.0, unit="rad"),
    Parameter("mu", 1.0, "Coulomb friction coefficient (sticking)", float, low=0.0),
)


def alpha(params: Mapping[str, Any]) -> float:
    """The block's slenderness angle atan(b / h) (rad)."""
    return math.atan2(params["width"], params["height"])


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System
    from nlpmbd_joints import PlaneContact

    b, h, m = params["width"] / 2, params["height"] / 2, 1.0
    inertia = m * (b * b + h * h) / 3  # about the centre, for the 2b x 2h rectangle
    theta = -params["tilt"]  # clockwise about Z: the left corner lifts, the right one (b, -h) rests
    rot = Quaternion(axis=[0, 0, 1], angle=theta)
    corner = rot.rotate(np.array([b, -h, 0.0]))
    system = System(gravity=(0.0, -9.81, 0.0))
    block = system.add_body(
        RigidBody(
            "block",
            m,
            (inertia, inertia, inertia),  # only the one about Z acts: the motion is planar
            position=(-corner[0], -corner[1], 0.0),  # the right corner on the floor at x = 0
            orientation=rot,
        )
    )
    corners = [(-b, -h, 0.0), (b, -h, 0.0)]
    system.add_joint(PlaneContact("floor", block, corners, contact=HardContact(mu=params["mu"])))
    return system


CASE = Case(
    name="rocking_block",
    description="Housner's rectangular block rocking on its corners, e = 0, sticking friction",
    parameters=PARAMETERS,
    builder=build,
    t_end=2.0,
    h_min=1e-5,
    h_max=1e-3,
)
