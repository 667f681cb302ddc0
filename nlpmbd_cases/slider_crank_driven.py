"""Slider-crank driven at constant speed with a translational clearance joint at the slider.

Source: P. Flores, J. Ambrosio, J.C.P. Claro, H.M. Lankarani, "Translational joints with clearance
in rigid multibody systems", ASME J. Comput. Nonlinear Dynam. 3(1) (2008) 011007 ([R3] of
docs/FORMULATION.md). Table 1: crank 0.05 m, 0.30 kg, 1.0e-4 kg m^2; connecting rod 0.12 m,
0.21 kg, 2.5e-4 kg m^2; slider 0.14 kg, 1.0e-4 kg m^2. Table 2: slider 50 x 50 x 50 mm, clearance
0.5 mm (section 5 sweeps 0.5 / 0.2 / 0.1 / 0.01 mm), restitution 0.9, E = 207 GPa, nu = 0.3 for
slider and guide, step 1e-5 s. Section 5: crank at 5000 rpm from the top dead end (theta = 0,
slider farthest from O), slider centred, no friction, no gravity (the paper mentions none), two
crank turns (0.024 s).

`guide = ideal`: the ideal translational joint. `guide = hard`: the clearance joint with
complementarity contact and Newton restitution e (contact.py). `guide = compliant`: the paper's
force laws (contact.py): `law = nonlinear`, Lankarani-Nikravesh with Hertz exponent 1.5 and the
stiffness of a 1 mm corner radius, eq. (17): K = 4 / (3 (sigma_i + sigma_j)) sqrt(R) =
4.80e9 N/m^1.5; `law = linear`, K delta with the flat-face stiffness of eq. (20) for a 50 x 50 mm
face, K = a / (0.475 (sigma_i + sigma_j)) = 5.99e9 N/m, shared by the face's two corners (each
carries K / 2: a face in full contact gives the paper's K delta). Geometry convention:
cases/slider_crank_parts.py; the crank is driven by a DrivingAngle whose multiplier is the
driving moment (`SimulationResult.driving_load("drive")`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import ContactLaw, HardContact

from .slider_crank_parts import SliderCrank, build_slider_crank

if TYPE_CHECKING:
    from nlpmbd import System

SIGMA = (1 - 0.3**2) / 207e9  # (1 - nu^2) / E, eq. (18), Table 2
K_CORNER = 4 / (3 * 2 * SIGMA) * np.sqrt(1e-3)  # eq. (17), R = 1 mm
K_FACE = 0.025 / (0.475 * 2 * SIGMA)  # eq. (20), square face of side 2a = 50 mm
GEOMETRY = SliderCrank(
    crank_length=0.05,
    crank_mass=0.30,
    crank_inertia=1.0e-4,
    rod_length=0.12,
    rod_mass=0.21,
    rod_inertia=2.5e-4,
    slider_mass=0.14,
    slider_inertia=1.0e-4,
    slider_length=0.05,
    slider_width=0.05,
    slider_thickness=0.05,
)

PARAMETERS = (
    Parameter("speed", 5000.0, "crank speed", float, low=0.0, low_open=True, high=1e5, unit="rpm"),
    Parameter("guide", "hard", "guide joint", str, choices=("ideal", "hard", "compliant")),
    Parameter(
        "clearance",
        0.5e-3,
        "clearance c on each side",
        float,
        low=0.0,
        low_open=True,
        high=5e-3,
        unit="m",
        applies={"guide": ("hard", "compliant")},
    ),
    Parameter(
        "law",
        "nonlinear",
        "compliant force law",
        str,
        choices=("nonlinear", "linear"),
        applies={"guide": ("compliant",)},
    ),
    Parameter(
        "restitution",
        0.9,
        "coefficient of restitution e",
        float,
        low=0.0,
        high=1.0,
        applies={"guide": ("hard", "compliant")},
    ),
    Parameter(
        "mu",
        0.0,
        "friction coefficient at the guide",
        float,
        low=0.0,
        high=2.0,
        applies={"guide": ("hard", "compliant")},
    ),
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd.model.compliant import CompliantContact

    omega = params["speed"] * 2 * np.pi / 60
    geometry = SliderCrank(**{**GEOMETRY.__dict__, "omega0": omega})
    contact: ContactLaw | None = None
    if params["guide"] == "hard":
        contact = HardContact(restitution=params["restitution"], mu=params["mu"])
    elif params["guide"] == "compliant":
        linear = params["law"] == "linear"
        contact = CompliantContact(
            stiffness=K_FACE / 2 if linear else K_CORNER,
            exponent=1.0 if linear else 1.5,
            restitution=params["restitution"],
            mu=params["mu"],
        )
    return build_slider_crank(
        geometry,
        gravity=0.0,
        guide="ideal" if params["guide"] == "ideal" else "clearance",
        clearance=params["clearance"],
        contact=contact,
        drive_speed=omega,
    )


CASE = Case(
    name="slider_crank_driven",
    description="slider-crank at 5000 rpm, translational clearance joint (Flores et al. 2008)",
    parameters=PARAMETERS,
    builder=build,
    t_end=0.024,
    h_min=1e-5,
    h_max=1e-5,
)
