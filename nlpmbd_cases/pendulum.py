"""Pendulum on a pin along the global Z axis (the paper's section 5.4 study).

Parameters chosen for nlpmbd (the paper's Table 4 was lost; see docs/FORMULATION.md section 7):
m = 1 kg, J' = diag(2e-3, 0.085, 0.085) kg m^2, centre of mass at (cm_x, 0, cm_z) with
cm_x = 0.5 m, cm_z = 0, gravity 9.81 m/s^2 along -Y. The pin axis is global Z through the
origin; the pendulum starts at rest, horizontal (along +X), centred on the pin. Baseline step
range h in [1e-3, 2e-3] s, 10 s.

`joint = ideal`: an ideal revolute joint. `joint = clearance`: a revolute clearance joint
[eqs. 40-42]: fixed pin of radius 0.01 m and length 0.05 m in the pendulum's hole, radial
clearance `clearance` (1e-4 m; the paper also prints 0.1 m) and total axial play `axial_play`
(0 here: an ideal axial constraint, since two opposite stops with no play cannot both be
inequalities). `joint = backlash`: an ideal revolute joint with angular play +-`backlash` about
the start (`RevoluteBacklash`, stops at radius 1 m): released against nothing, the pendulum
falls onto the stop at -backlash and bounces on it with Newton's `restitution` until it rests
there. Options: the second-order scheme (the default only has euler with restitution); run
with `--h-min 1e-5` to have its controller place each impact (tests/test_backlash.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

if TYPE_CHECKING:
    from nlpmbd import System

PARAMETERS: tuple[Parameter, ...] = (
    Parameter("mass", 1.0, "pendulum mass", float, low=0.0, low_open=True, unit="kg"),
    Parameter(
        "cm_x",
        0.5,
        "centre of mass distance from the pin along X",
        float,
        low=0.0,
        low_open=True,
        unit="m",
    ),
    Parameter("cm_z", 0.0, "centre of mass offset along the pin axis Z", float, unit="m"),
    Parameter(
        "jxx",
        2e-3,
        "inertia about body x (along the rod)",
        float,
        low=0.0,
        low_open=True,
        unit="kg m^2",
    ),
    Parameter("jyy", 0.085, "inertia about body y", float, low=0.0, low_open=True, unit="kg m^2"),
    Parameter(
        "jzz",
        0.085,
        "inertia about body z (pin axis)",
        float,
        low=0.0,
        low_open=True,
        unit="kg m^2",
    ),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
    Parameter(
        "joint", "ideal", "joint model at the pin", str, choices=("ideal", "clearance", "backlash")
    ),
    Parameter(
        "clearance",
        1e-4,
        "radial clearance c = hole radius - pin radius",
        float,
        low=0.0,
        low_open=True,
        high=0.1,
        unit="m",
    ),
    Parameter(
        "axial_play",
        0.0,
        "total axial play c_a (0 = ideal axial constraint)",
        float,
        low=0.0,
        high=0.1,
        unit="m",
    ),
    Parameter(
        "pin_radius",
        0.01,
        "pin radius (ideal: its friction circle's lever)",
        float,
        low=0.0,
        low_open=True,
        high=1.0,
        unit="m",
    ),
    Parameter(
        "pin_length", 0.05, "engaged pin length", float, low=0.0, low_open=True, high=10.0, unit="m"
    ),
    Parameter(
        "mu",
        0.0,
        "Coulomb friction at the pin: its contacts (clearance), its friction circle (ideal)",
        float,
        low=0.0,
        high=2.0,
    ),
    Parameter(
        "backlash",
        0.3,
        "angular play b of the pin: stops at +-b about the start",
        float,
        low=0.0,
        low_open=True,
        high=3.0,
        unit="rad",
    ),
    Parameter(
        "restitution", 0.5, "Newton's coefficient of restitution at the stops", float, 0.0, 1.0
    ),
    Parameter(
        "frictionloss",
        0.0,
        "constant friction torque of the ideal pin (breakaway and sliding)",
        float,
        low=0.0,
        unit="N m",
    ),
)

#: Parameters of the clearance joint: only with joint=clearance
_CLEARANCE_ONLY = ("clearance", "axial_play", "pin_length")
#: Parameters of the backlash joint: only with joint=backlash
_BACKLASH_ONLY = ("backlash", "restitution")
_IDEAL_ONLY = ("frictionloss",)
#: The pin's radius and friction: the clearance joint's contacts, or the ideal pin's circle
_PIN = ("pin_radius", "mu")
PARAMETERS = tuple(
    replace(p, applies={"joint": ("ideal",)})
    if p.name in _IDEAL_ONLY
    else replace(p, applies={"joint": ("ideal", "clearance")})
    if p.name in _PIN
    else replace(p, applies={"joint": ("clearance",)})
    if p.name in _CLEARANCE_ONLY
    else replace(p, applies={"joint": ("backlash",)})
    if p.name in _BACKLASH_ONLY
    else p
    for p in PARAMETERS
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, RigidBody, System
    from nlpmbd_joints import RevoluteBacklash, RevoluteClearance, RevoluteJoint

    system = System(gravity=(0.0, -params["g"], 0.0))
    body = system.add_body(
        RigidBody(
            "pendulum",
            params["mass"],
            (params["jxx"], params["jyy"], params["jzz"]),
            position=(params["cm_x"], 0.0, params["cm_z"]),
        )
    )
    if params["joint"] == "ideal":
        friction = {"frictionloss": params["frictionloss"], "mu": params["mu"]}
        r = params["pin_radius"]
        pin = RevoluteJoint("pin", GROUND, body, (0, 0, 0), (0, 0, 1), **friction, pin_radius=r)
        system.add_joint(pin)
    elif params["joint"] == "backlash":
        law = HardContact(restitution=params["restitution"])
        system.add_joint(
            RevoluteBacklash("pin", GROUND, body, (0, 0, 0), params["backlash"], contact=law)
        )
    else:
        r = params["pin_radius"]
        system.add_joint(
            RevoluteClearance(
                "pin",
                hole=body,
                pin=GROUND,
                center=(0, 0, 0),
                axis=(0, 0, 1),
                length=params["pin_length"],
                hole_radius=r + params["clearance"],
                pin_radius=r,
                axial_play=params["axial_play"],
                ends_on="pin",
                contact=HardContact(mu=params["mu"]),
            )
        )
    return system


CASE = Case(
    name="pendulum",
    description=(
        "pendulum released horizontally on a Z pin, ideal, clearance (paper 5.4) or backlash"
    ),
    parameters=PARAMETERS,
    builder=build,
    t_end=10.0,
    h_min=1e-3,
    h_max=2e-3,
    # backlash: the second-order scheme places the stops' impacts, and its controller resolves
    # each to h_min = 1e-5 s (tests/test_backlash.py); h_min = 1e-3 s left the run 17x its
    # error_tol at the same cost (5138 steps against 5310 over 10 s)
    options=lambda params: (
        {"integrator": "verlet", "h_min": 1e-5} if params["joint"] == "backlash" else {}
    ),
)
