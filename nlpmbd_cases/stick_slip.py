"""Stick-slip oscillator: a rigid slider on a spring, forced along a guide with friction.

Source: X. Zheng, Q. Wang, "A methodology for modeling and simulating frictional translational
joint with a flexible slider and clearance in multibody systems" (Beihang University; [R5] of
docs/FORMULATION.md), Table 1, with a rigid slider (the paper's is a finite-element body; its E, nu
and Rayleigh damping do not apply). Slider 0.6 m along the guide by 0.5 m across, 1/3 kg/m^2 ->
0.1 kg, J = 5.083e-3 kg m^2; clearance 2.5 mm; kinetic and static friction 0.15 / 0.20; spring
k = 1 N/m (printed "N/s") from the ground to the slider's centre, unstretched at the start; force
F = 1.5 sin(pi t / 10) N along the guide, acting 0.05 m above the slider's mid-height (the paper's
s; above or below is not stated); gravity 9.81 m/s^2 across the guide (-Y), so the slider rides on
the lower surface. Planar in XY; no out-of-plane load acts, so the slider stays in the plane
without further joints. The slider starts centred in the guide and drops the 2.5 mm onto the lower
surface (the paper starts it seated). The contacts are complementarity contacts (the paper uses a
penalty law with K = 1e4 N/m and chi = 1e3 N s/m; use `contact = compliant` for a Hunt-Crossley law
of that stiffness, restitution from `restitution`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import casadi as ca
import numpy as np

from nlpmbd import GROUND, Case, Force, Parameter, RigidBody, System
from nlpmbd.model.compliant import CompliantContact
from nlpmbd.model.contact import ContactLaw, HardContact
from nlpmbd_joints import PlanarPrismaticClearance

LENGTH, WIDTH, MASS, INERTIA = 0.6, 0.5, 0.1, 5.083e-3

PARAMETERS = (
    Parameter("mu", 0.15, "kinetic friction coefficient", float, low=0.0, high=2.0),
    Parameter(
        "mu_static",
        0.20,
        "static friction coefficient",
        float,
        low=0.0,
        high=2.0,
        applies={"contact": ("hard",)},
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
    Parameter("contact", "hard", "contact law", str, choices=("hard", "compliant")),
    Parameter("restitution", 0.0, "restitution e", float, low=0.0, high=1.0),
)


def build(params: Mapping[str, Any]) -> System:
    system = System(gravity=(0.0, -9.81, 0.0))
    slider = system.add_body(RigidBody("slider", MASS, (INERTIA,) * 3))
    k, F, w = params["stiffness"], params["amplitude"], params["frequency"]
    system.add_load(Force(slider, lambda t, s: [-k * s.position[0], 0.0, 0.0], name="spring"))
    system.add_load(
        Force(slider, lambda t, s: [F * ca.sin(w * t), 0.0, 0.0], point=(0, 0.05, 0), name="drive")
    )
    law: ContactLaw
    if params["contact"] == "hard":
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
    description="rigid slider on a spring, forced along a guide with stick-slip (Zheng, Wang)",
    parameters=PARAMETERS,
    builder=build,
    t_end=40.0,
    h_min=2e-3,
    h_max=2e-3,
)
