"""Slider-crank driven by a sinusoidal crank moment, slider with play and friction in its guide.

Source: X. Zheng, Q. Wang, "A methodology for modeling and simulating frictional translational
joint with a flexible slider and clearance in multibody systems" (Beihang University; [R5] of
docs/FORMULATION.md), Table 2, with a rigid slider, or with `slider=flexible` the paper's
finite-element slider (nlpmbd_cases/flexible_slider.py: `elements` Q4 elements, 4 -> 2 x 2,
8 -> 4 x 2; E = `youngs_modulus`, nu 0.3, Rayleigh 0.010 / 0.544, lumped mass; centred in its
guide like the rigid one; every lower- and upper-face node a hard contact with friction; the
rod's pin C an exact NodePin at the centre node, where the paper uses a penalty spring).
Crank 1.8 m, 2.0 kg; rod 2.0 m, 1.0 kg (uniform: J = m l^2 / 12 about the centre, 0.54 and
0.3333 kg m^2); slider 0.5 m along the guide by 0.3 m across, 20/3 kg/m^2 -> 1.0 kg,
J = 0.02833 kg m^2; clearance 2.5 mm; kinetic and static friction 0.03 / 0.04; moment
P = 6 sin(pi t / 6) N m on the crank; gravity 9.81 m/s^2 along -Y, across the guide. The crank
starts at rest at angle 0 (crank and rod along +X, slider at x = 3.8 m), the slider centred. The
paper runs 200 s; the default here is 30 s. With these numbers gravity's moment on the crank
(about 26 N m when horizontal) exceeds P, so the crank first swings down; the paper does not say
how its mechanism is oriented (see references/ref_stick_slip.py). Geometry convention:
nlpmbd_cases/slider_crank_parts.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpmbd import Case, Parameter
from nlpmbd.errors import InputError
from nlpmbd.model.contact import HardContact

from .flexible_slider import flexible_options, flexible_slider, mesh, slider_parameters
from .slider_crank_parts import (
    SliderCrank,
    Z,
    add_crank_and_rod,
    build_slider_crank,
    pin_positions,
    sinusoidal_moment,
)

if TYPE_CHECKING:
    from nlpmbd import System

GEOMETRY = SliderCrank(
    crank_length=1.8,
    crank_mass=2.0,
    crank_inertia=2.0 * 1.8**2 / 12,
    rod_length=2.0,
    rod_mass=1.0,
    rod_inertia=1.0 * 2.0**2 / 12,
    slider_mass=1.0,
    slider_inertia=1.0 * (0.5**2 + 0.3**2) / 12,
    slider_length=0.5,
    slider_width=0.3,
    slider_thickness=0.3,
)

PARAMETERS = (
    Parameter("amplitude", 6.0, "crank moment amplitude P0", float, unit="N m"),
    Parameter("frequency", np.pi / 6, "crank moment frequency", float, low=0.0, unit="rad/s"),
    Parameter("mu", 0.03, "kinetic friction coefficient", float, low=0.0, high=2.0),
    Parameter("mu_static", 0.04, "static friction coefficient", float, low=0.0, high=2.0),
    Parameter(
        "clearance",
        2.5e-3,
        "clearance c on each side",
        float,
        low=0.0,
        low_open=True,
        high=0.05,
        unit="m",
    ),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
    *slider_parameters(4, "4 -> 2 x 2, 8 -> 4 x 2; even along and across: a centre node", 4),
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import Torque

    contact = HardContact(mu=params["mu"], mu_static=params["mu_static"])
    if params["slider"] == "flexible":
        system = _flexible(params, contact)
    else:
        system = build_slider_crank(
            GEOMETRY,
            gravity=params["g"],
            guide="clearance",
            clearance=params["clearance"],
            contact=contact,
        )
    crank = next(b for b in system.bodies if b.name == "crank")
    system.add_load(
        Torque(
            crank,
            sinusoidal_moment(params["amplitude"], params["frequency"]),
            frame="global",
            name="crank_moment",
        )
    )
    return system


CASE = Case(
    name="slider_crank_moment",
    description="slider-crank driven by a sinusoidal moment, rigid or flexible slider with "
    "friction (Zheng, Wang)",
    parameters=PARAMETERS,
    builder=build,
    options=flexible_options,
    t_end=30.0,
    h_min=1e-3,
    h_max=1e-3,
)


def _flexible(params: Mapping[str, Any], contact: HardContact) -> System:
    """The paper's flexible slider (nlpmbd_cases/flexible_slider.py), centred in its guide like
    the rigid one; the rod's pin C is an exact NodePin at the slider's centre node."""
    from nlpmbd import GROUND, System
    from nlpmbd_joints import RevoluteJoint
    from nlpmbd_joints.node_joints import NodePin

    nx, ny = mesh(params["elements"])
    if nx % 2 or ny % 2:
        raise InputError(
            f"elements must give an even mesh both ways (a node at the slider's centre for the "
            f"rod's pin), got {params['elements']} -> {nx} x {ny}"
        )
    g = GEOMETRY
    system = System(gravity=(0.0, -params["g"], 0.0))
    B, C, _ = pin_positions(g)
    crank, rod = add_crank_and_rod(system, g)
    system.add_joint(RevoluteJoint("pivot", GROUND, crank, point=(0, 0, 0), axis=Z))
    system.add_joint(RevoluteJoint("crank_pin", crank, rod, point=tuple(B), axis=Z))
    a, b = g.slider_length, g.slider_width
    body = flexible_slider(
        system,
        width=a,
        height=b,
        areal_density=g.slider_mass / (a * b),
        youngs_modulus=params["youngs_modulus"],
        elements=params["elements"],
        corner=(C[0] - a / 2, C[1] - b / 2),
        clearance=params["clearance"],
        law=contact,
        centred=True,
    )
    centre = body.node(body.strip.node(nx // 2, ny // 2))
    system.add_joint(NodePin("slider_pin", rod, centre))
    return system
