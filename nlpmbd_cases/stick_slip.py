"""Stick-slip oscillator: a rigid or flexible slider on a spring, forced along a guide.

Source: X. Zheng, Q. Wang, "A methodology for modeling and simulating frictional translational
joint with a flexible slider and clearance in multibody systems" (Beihang University; [R5] of
docs/FORMULATION.md), Table 1. `slider=rigid` (default): a rigid slider, for which the paper's E,
nu and Rayleigh damping do not apply. `slider=flexible`: the paper's finite-element slider
(nlpmbd_cases/flexible_slider.py): `elements` Q4 elements (25 -> 5 x 5), E = `youngs_modulus`, nu =
0.3, Rayleigh 0.010 / 0.544, lumped mass, seated on the lower face with 2 c above it (the rigid
slider's play: its guide is 2 (b + c) high, c on each side);
every lower- and upper-face node is a hard contact with the friction of `mu`, `mu_static`; the
spring acts on the left face's mid-height point, F on the right face s = 0.05 m below the top
(`force_from=auto`; only a high line of action makes the upper corners touch the upper guide, as
the paper's Fig. 8 shows; references/ref_flexible_slider.py). Rigid slider: Slider 0.6 m along the
guide by 0.5 m across, 1/3 kg/m^2 -> 0.1 kg, J = 5.083e-3 kg m^2; clearance 2.5 mm; kinetic and
static friction 0.15 / 0.20; spring k = 1 N/m (printed "N/s") from the ground to the slider's
centre, unstretched at the start; force F = 1.5 sin(pi t / 10) N along the guide, acting 0.05 m
above the slider's mid-height (the paper's s; above or below is not stated); gravity 9.81 m/s^2
across the guide (-Y), so the slider rides on the lower surface. Planar in XY; no out-of-plane load
acts, so the slider stays in the plane without further joints. The rigid slider starts centred in
the guide and drops the 2.5 mm onto the lower surface (`start=seated`: on it, as the paper). The
contacts are complementarity contacts (the paper uses a penalty law with K = 1e4 N/m and chi = 1e3
N s/m; use `contact = compliant` for a Hunt-Crossley law of that stiffness, restitution from
`restitution`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpmbd import Case, Parameter
from nlpmbd.errors import InputError
from nlpmbd.model.contact import ContactLaw, HardContact, SpringDamperContact

from .flexible_slider import flexible_options, flexible_slider, slider_parameters

if TYPE_CHECKING:
    from nlpmbd import System

LENGTH, WIDTH, MASS, INERTIA = 0.6, 0.5, 0.1, 5.083e-3
S = 0.05  # the paper's s (m)

PARAMETERS = (
    Parameter("mu", 0.15, "kinetic friction coefficient", float, low=0.0, high=2.0),
    Parameter(
        "mu_static",
        0.20,
        "static friction coefficient",
        float,
        low=0.0,
        high=2.0,
        applies={"contact": ("hard", "spring_damper")},
    ),
    Parameter("amplitude", 1.5, "force amplitude F_max", float, unit="N"),
    Parameter("frequency", np.pi / 10, "force frequency", float, low=0.0, unit="rad/s"),
    Parameter("stiffness", 1.0, "spring stiffness k", float, low=0.0, unit="N/m"),
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
    Parameter(
        "contact",
        "hard",
        "contact law: complementarity, Hunt-Crossley (explicit), or the paper's spring-damper "
        "K = 1e4 N/m, chi = 1e3 N s/m (implicit in the step)",
        str,
        choices=("hard", "compliant", "spring_damper"),
    ),
    Parameter("restitution", 0.0, "restitution e", float, low=0.0, high=1.0),
    *slider_parameters(25, "as square a mesh as it divides: 25 -> 5 x 5"),
    Parameter(
        "start",
        "centred",
        "the rigid slider starts centred in the guide or seated on its lower face",
        str,
        choices=("centred", "seated"),
        applies={"slider": ("rigid",)},
    ),
    Parameter(
        "force_from",
        "auto",
        "F acts s above the middle or s below the top (auto: middle rigid, top flexible)",
        str,
        choices=("auto", "middle", "top"),
    ),
)


def _force_height(params: Mapping[str, Any]) -> float:
    """Height of F's line of action above the slider's mid-height, m."""
    where = params["force_from"]
    if where == "auto":
        where = "top" if params["slider"] == "flexible" else "middle"
    return S if where == "middle" else WIDTH / 2 - S


def _law(params: Mapping[str, Any]) -> ContactLaw:
    from nlpmbd.model.compliant import CompliantContact

    law: ContactLaw
    if params["contact"] == "spring_damper":
        law = SpringDamperContact(
            stiffness=1e4, damping=1e3, mu=params["mu"], mu_static=params["mu_static"]
        )
    elif params["contact"] == "hard":
        law = HardContact(
            restitution=params["restitution"], mu=params["mu"], mu_static=params["mu_static"]
        )
    else:
        law = CompliantContact(
            stiffness=1e4,
            exponent=1.0,
            restitution=params["restitution"],
            damping="hunt-crossley",
            mu=params["mu"],
        )
    return law


def build(params: Mapping[str, Any]) -> System:
    import casadi as ca

    from nlpmbd import GROUND, Force, RigidBody, System
    from nlpmbd_joints import PlanarPrismaticClearance

    system = System(gravity=(0.0, -9.81, 0.0))
    if params["slider"] == "flexible":
        return _flexible(system, params)
    y0 = -params["clearance"] if params["start"] == "seated" else 0.0
    slider = system.add_body(RigidBody("slider", MASS, (INERTIA,) * 3, position=(0, y0, 0)))
    k, F, w = params["stiffness"], params["amplitude"], params["frequency"]
    y = _force_height(params)
    system.add_load(Force(slider, lambda t, s: [-k * s.position[0], 0.0, 0.0], name="spring"))
    system.add_load(
        Force(slider, lambda t, s: [F * ca.sin(w * t), 0.0, 0.0], point=(0, y, 0), name="drive")
    )
    law = _law(params)
    system.add_joint(
        PlanarPrismaticClearance(
            "guide",
            guide=GROUND,
            slider=slider,
            center=(0, 0, 0),
            axis=(1, 0, 0),
            length=LENGTH,
            width=WIDTH,
            clearance=params["clearance"],
            contact=law,
        )
    )
    return system


CASE = Case(
    name="stick_slip",
    description="rigid or flexible slider on a spring, forced along a guide with stick-slip "
    "(Zheng, Wang)",
    parameters=PARAMETERS,
    builder=build,
    options=flexible_options,
    t_end=40.0,
    h_min=2e-3,
    h_max=2e-3,
)


def _flexible(system: System, params: Mapping[str, Any]) -> System:
    """The paper's flexible slider (nlpmbd_cases/flexible_slider.py), seated on the lower face
    of the rigid slider's guide (faces at -W/2 - c and W/2 + c: 2 c of play in all): the spring
    acts on the left face's mid-height point, F on the right face at its height."""
    import casadi as ca

    from nlpmbd.model.flexible_loads import PointLoad

    if params["contact"] == "compliant":
        raise InputError(
            "contact must be hard or spring_damper with slider=flexible, got compliant (its "
            "explicit force would need h < 1e-5 s on nodes of grams; spring_damper is the "
            "paper's law, implicit)"
        )
    c = params["clearance"]
    body = flexible_slider(
        system,
        width=LENGTH,
        height=WIDTH,
        areal_density=MASS / (LENGTH * WIDTH),
        youngs_modulus=params["youngs_modulus"],
        elements=params["elements"],
        corner=(-LENGTH / 2, -WIDTH / 2 - c),
        clearance=2 * c,
        law=_law(params),
    )
    k, F, w = params["stiffness"], params["amplitude"], params["frequency"]
    x0 = -LENGTH / 2
    system.add_load(
        PointLoad(body, (0.0, WIDTH / 2), lambda t, s: [-k * (s.position[0] - x0), 0.0], "spring")
    )
    y = WIDTH / 2 + _force_height(params)
    system.add_load(PointLoad(body, (LENGTH, y), lambda t, s: [F * ca.sin(w * t), 0.0], "drive"))
    return system
