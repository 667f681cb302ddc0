"""Glocker's woodpecker toy: a sleeve with a hole slightly wider than its vertical pole, a bird
on a pin and a torsion spring, three frictional contacts with impacts (the sleeve's two edges on
the pole, the beak hitting it); a limit cycle in which the sleeve jams, slips down and the beak
pecks.

Model and numbers of Pfeiffer and Glocker (1996), Leine, Glocker and van Campen (2003), as the
Siconos tutorial `examples/mechanics/Woodpecker` (issue 31's reference `siconos_woodpecker`)
states them: sleeve 0.3 g, J_M = 5e-9 kg m^2, hole radius r_M = 3.1 mm, half height
h_M = 5.8 mm, pole radius r_O = 2.5 mm; bird 4.5 g, J_S = 7e-7 kg m^2, its pin l_M = 10 mm to
the right of the sleeve's centre and its centre of mass l_G = 15 mm further; beak at (-l_S, h_S)
= (-20.1, 20) mm from the bird's centre of mass; spring c_phi = 0.0056 N m/rad (rest angle 0);
mu = 0.3 everywhere, Newton e = 0.5 at the beak and 0 at the sleeve, g = 9.81.

As in that model the sleeve's centre stays on the pole's axis (its horizontal play is neglected):
here a carriage on a prismatic joint along Y carries half the sleeve's mass and the sleeve,
pinned to it at its centre of mass, the other half, so the pair is the sleeve sliding and
tilting. The sleeve's two right edges (r_M, -+h_M) and the beak touch the pole's surface
x = r_O (`PlaneContact`). The bodies move at finite angles: the reference integrates the
small-angle (linearised) equations of the same bodies, whose limit cycle differs
(benchmarks/reference_problems/woodpecker.py separates the two).

Initial state: the reference's (y = 0, phi_S = -0.2788 rad, y' = -0.3411 m/s, phi_S' = -7.4583
rad/s, phi_M' = 0) with the sleeve's tilt at which its lower edge touches the pole at finite
angles (-0.10090 rad; the reference's -0.1036 is the linearised gap's zero, 16 um inside here).
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

M_M, M_S, J_M, J_S = 0.0003, 0.0045, 5e-9, 7e-7  # kg, kg m^2
R_M, H_M, L_M, L_G, H_S, L_S = 0.0031, 0.0058, 0.010, 0.015, 0.02, 0.0201  # m
Y_DOT, PHI_S, PHI_S_DOT = -0.3411, -0.2788, -7.4583  # m/s, rad, rad/s
Z = (0.0, 0.0, 1.0)

PARAMETERS = (
    Parameter("mu", 0.3, "Coulomb friction coefficient of the three contacts", float, low=0.0),
    Parameter(
        "beak_restitution", 0.5, "Newton's restitution of the beak", float, low=0.0, high=1.0
    ),
    Parameter(
        "sleeve_restitution",
        0.0,
        "Newton's restitution of the sleeve's edges",
        float,
        low=0.0,
        high=1.0,
    ),  # fmt: skip
    Parameter(
        "spring",
        0.0056,
        "torsion spring between sleeve and bird",
        float,
        low=0.0,
        low_open=True,
        unit="N m/rad",
    ),  # fmt: skip
    Parameter(
        "pole_radius",
        0.0025,
        "radius of the pole (the sleeve's hole: 0.0031 m)",
        float,
        low=0.001,
        high=0.003,
        unit="m",
    ),  # fmt: skip
)


def sleeve_tilt(pole_radius: float) -> float:
    """The tilt (rad, < 0) at which the sleeve's lower edge (r_M, -h_M) touches the pole:
    r_M cos phi + h_M sin phi = r_O."""
    return math.atan2(H_M, R_M) - math.acos(pole_radius / math.hypot(R_M, H_M))


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, RigidBody, RotationalSpringDamper, System
    from nlpmbd_joints import PlaneContact, PrismaticJoint, RevoluteJoint

    a, b = sleeve_tilt(params["pole_radius"]), PHI_S
    pin = (L_M * math.cos(a), L_M * math.sin(a), 0.0)
    centre = (pin[0] + L_G * math.cos(b), pin[1] + L_G * math.sin(b), 0.0)
    bird_v = (-L_G * math.sin(b) * PHI_S_DOT, Y_DOT + L_G * math.cos(b) * PHI_S_DOT, 0.0)
    system = System(gravity=(0.0, -9.81, 0.0))
    carriage = system.add_body(
        RigidBody("carriage", M_M / 2, (J_M,) * 3, velocity=(0.0, Y_DOT, 0.0))
    )
    sleeve = system.add_body(
        RigidBody(
            "sleeve",
            M_M / 2,
            (J_M,) * 3,  # only the one about Z acts: the motion is planar
            orientation=Quaternion(axis=Z, angle=a),
            velocity=(0.0, Y_DOT, 0.0),
        )
    )
    bird = system.add_body(
        RigidBody(
            "bird",
            M_S,
            (J_S,) * 3,
            position=centre,
            orientation=Quaternion(axis=Z, angle=b),
            velocity=bird_v,
            angular_velocity=(0.0, 0.0, PHI_S_DOT),
        )
    )
    system.add_joint(PrismaticJoint("pole", GROUND, carriage, (0, 0, 0), (0, 1, 0)))
    system.add_joint(RevoluteJoint("centre", carriage, sleeve, point=(0, 0, 0), axis=Z))
    system.add_joint(RevoluteJoint("pin", sleeve, bird, point=pin, axis=Z))
    system.add_load(
        RotationalSpringDamper("spring", sleeve, bird, Z, params["spring"], angle0=a - b)
    )
    pole = {"plane_point": (params["pole_radius"], 0.0, 0.0), "normal": (1.0, 0.0, 0.0)}
    mu = params["mu"]
    edges = [(R_M, -H_M, 0.0), (R_M, H_M, 0.0)]
    law = HardContact(restitution=params["sleeve_restitution"], mu=mu)
    system.add_joint(PlaneContact("edges", sleeve, edges, contact=law, **pole))
    law = HardContact(restitution=params["beak_restitution"], mu=mu)
    system.add_joint(PlaneContact("beak", bird, [(-L_S, H_S, 0.0)], contact=law, **pole))
    return system


CASE = Case(
    name="woodpecker",
    description="Glocker's woodpecker toy: sleeve on a pole, bird on a spring, three contacts",
    parameters=PARAMETERS,
    builder=build,
    t_end=0.3,
    h_min=1e-5,
    h_max=1e-4,
)
