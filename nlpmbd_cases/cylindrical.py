"""Cylindrical clearance joint: a block sliding on a fixed rod (paper 4.1).

Parameters chosen for nlpmbd (the paper's Table 1 was lost; see docs/FORMULATION.md section 7):
fixed massless rod along global Z through the origin, radius 0.010 m; slider block
0.06 x 0.04 x 0.10 m (x, y, z), m = 1 kg, J' = diag(9.67e-4, 1.133e-3, 4.33e-4) kg m^2 (a
uniform box), bored with a hole of radius 0.0101 m (radial clearance c = 0.1 mm) along its
0.10 m length; it starts at rest, centred on the rod. A constant force F = [0, 0, 10] N acts at
the body point s'_f = [0, 0.02, 0.05] m, gravity 9.81 m/s^2 along -Y; 1 s with h in
[1e-3, 1e-2] s. Expect: the slider drops and tilts until its two ends touch the rod on opposite
sides, then slides along Z with the constant acceleration F / m (frictionless contact).

`offset > 0` moves the bore off the centre of mass (along body x), so the slider also swings
about the rod like a pendulum while it slides: the rod's contact force turns with it.
`joint = ideal`: an ideal cylindrical joint on the rod's axis instead (the limit c -> 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nlpmbd import Case, Parameter

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System

SIZE = (0.06, 0.04, 0.10)

PARAMETERS: tuple[Parameter, ...] = (
    Parameter("mass", 1.0, "slider mass", float, low=0.0, low_open=True, unit="kg"),
    Parameter(
        "clearance", 1e-4, "radial clearance c", float, low=0.0, low_open=True, high=0.005, unit="m"
    ),
    Parameter("rod_radius", 0.010, "rod radius", float, low=0.0, low_open=True, unit="m"),
    Parameter("force", 10.0, "axial force F_z at the body point (0, 0.02, 0.05)", float, unit="N"),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
    Parameter(
        "offset",
        0.0,
        "centre of mass distance from the rod axis along X (0: the paper's centred bore)",
        float,
        low=0.0,
        high=1.0,
        unit="m",
    ),
    Parameter("joint", "clearance", "joint model on the rod", str, choices=("clearance", "ideal")),
)
PARAMETERS = tuple(
    replace(p, applies={"joint": ("clearance",)}) if p.name in ("clearance", "rod_radius") else p
    for p in PARAMETERS
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, Force, RigidBody, System
    from nlpmbd_joints import CylindricalJoint

    a, b, c = SIZE
    m = params["mass"]
    inertia = (m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12, m * (a**2 + b**2) / 12)
    system = System(gravity=(0.0, -params["g"], 0.0))
    slider = system.add_body(RigidBody("slider", m, inertia, position=(params["offset"], 0.0, 0.0)))
    if params["joint"] == "ideal":
        system.add_joint(CylindricalJoint("rod", GROUND, slider, point=(0, 0, 0), axis=(0, 0, 1)))
    else:
        _add_clearance(system, slider, params)
    system.add_load(Force(slider, (0.0, 0.0, params["force"]), point=(0.0, 0.02, 0.05), name="F"))
    return system


def _add_clearance(system: System, slider: RigidBody, params: Mapping[str, Any]) -> None:
    from nlpmbd import GROUND
    from nlpmbd_joints import CylindricalClearance

    r = params["rod_radius"]
    system.add_joint(
        CylindricalClearance(
            "rod",
            hole=slider,
            pin=GROUND,
            center=(0, 0, 0),
            axis=(0, 0, 1),
            length=SIZE[2],
            hole_radius=r + params["clearance"],
            pin_radius=r,
            ends_on="hole",
        )
    )


CASE = Case(
    name="cylindrical",
    description="block on a fixed rod with radial clearance, pushed along the rod (paper 4.1)",
    parameters=PARAMETERS,
    builder=build,
    t_end=1.0,
    h_min=1e-3,
    h_max=1e-2,
)
