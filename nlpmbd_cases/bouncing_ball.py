"""Siconos' bouncing ball: a ball dropped on the floor with Newton restitution e = 0.9, followed
through the accumulation (Zeno) point of its impacts to rest.

Parameters from the Siconos tutorials (`examples/mechanics/BouncingBall`, issue 31's reference
`siconos_bouncing_ball`): 1 kg, g = 9.81 m/s^2, e = 0.9, dropped from rest at 1 m. As there the
gap is the centre's height itself (the ball's radius 0.1 m only gives its inertia): a
`PlaneContact` at the centre against the floor y = 0. Closed form: impacts at
t_1 = sqrt(2 h0 / g), t_(k+1) = t_k + 2 e^k sqrt(2 g h0) / g, apexes e^(2k) h0, rest from
t_inf = t_1 + 2 sqrt(2 h0 / g) e / (1 - e) = 8.579 s on.

Options: the second-order scheme, which the defaults leave for euler wherever restitution is
present (a curved gap's impact could gain energy in its velocity stage). Here the gap is a
plane's, linear in q, and Stoermer-Verlet is exact in free fall, so the error controller's
rejections place every impact to h_min = 1e-5 s: with euler the flights' O(h) error made the
k-th impact drift by up to 25 steps (benchmarks/reference_problems/bouncing_ball.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

if TYPE_CHECKING:
    from nlpmbd import System

RADIUS = 0.1
PARAMETERS = (
    Parameter("mass", 1.0, "ball mass", float, low=0.0, low_open=True, unit="kg"),
    Parameter("height", 1.0, "initial height of the centre", float, low=0.0, unit="m"),
    Parameter("restitution", 0.9, "Newton's coefficient of restitution", float, low=0.0, high=1.0),
    Parameter("gravity", 9.81, "gravitational acceleration", float, low=0.0, unit="m/s^2"),
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System
    from nlpmbd_joints import PlaneContact

    m = params["mass"]
    inertia = 0.4 * m * RADIUS**2
    system = System(gravity=(0.0, -params["gravity"], 0.0))
    ball = system.add_body(
        RigidBody("ball", m, (inertia, inertia, inertia), position=(0.0, params["height"], 0.0))
    )
    law = HardContact(restitution=params["restitution"])
    system.add_joint(PlaneContact("floor", ball, [(0.0, 0.0, 0.0)], contact=law))
    return system


CASE = Case(
    name="bouncing_ball",
    description="ball dropped on the floor, e = 0.9, through the Zeno point to rest (Siconos)",
    parameters=PARAMETERS,
    builder=build,
    t_end=10.0,
    h_min=1e-5,
    h_max=5e-3,
    options=lambda params: {"integrator": "verlet"},
)
