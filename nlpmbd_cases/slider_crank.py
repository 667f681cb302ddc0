"""Undriven slider-crank whose slider has play in its guide: impacts with friction.

Source: P. Flores, R. Leine, C. Glocker, "Modeling and analysis of rigid multibody systems with
translational clearance joints based on the nonsmooth dynamics approach", in Multibody Dynamics:
Computational Methods and Applications, Springer, 2011 ([R2] of docs/FORMULATION.md; journal
version in Multibody System Dynamics 23, 2010), Table 1: crank 0.153 m and rod 0.306 m, 0.038 kg
each, J = 7.4e-5 and 5.9e-4 kg m^2 about their centres of mass (mid-length); slider 2a x
2b = 0.100 x 0.050 m, 0.076 kg, J = 2.7e-6 kg m^2; clearance c = 1 mm on each side of the centred
slider; normal restitution 0.4 and friction coefficient 0.01 at each corner; gravity 9.81 m/s^2
along -Y, across the guide. The crank starts at angle 0 (crank and rod along +X, the outer dead
centre) turning at 150 rad/s, the rod at -75 rad/s (so the slider starts at rest), the slider
centred; nothing drives the crank afterwards. The paper gives no step size; 1e-5 s, the step of the
same group's 2008 paper. Two crank revolutions take about 0.138 s. Geometry convention:
nlpmbd_cases/slider_crank_parts.py (the guide is a PlanarPrismaticClearance; its contacts use
HardContact(restitution, mu)).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

from .slider_crank_parts import SliderCrank, build_slider_crank

if TYPE_CHECKING:
    from nlpmbd import System

GEOMETRY = SliderCrank(
    crank_length=0.153,
    crank_mass=0.038,
    crank_inertia=7.4e-5,
    rod_length=0.306,
    rod_mass=0.038,
    rod_inertia=5.9e-4,
    slider_mass=0.076,
    slider_inertia=2.7e-6,
    slider_length=0.100,
    slider_width=0.050,
    slider_thickness=0.050,
    omega0=150.0,
)

PARAMETERS = (
    Parameter(
        "clearance",
        1e-3,
        "clearance c on each side",
        float,
        low=0.0,
        low_open=True,
        high=0.02,
        unit="m",
    ),
    Parameter("restitution", 0.4, "normal restitution e", float, low=0.0, high=1.0),
    Parameter("mu", 0.01, "friction coefficient", float, low=0.0, high=2.0),
    Parameter(
        "omega0",
        150.0,
        "initial crank speed",
        float,
        low=0.0,
        low_open=True,
        high=1e4,
        unit="rad/s",
    ),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
)


def build(params: Mapping[str, Any]) -> System:
    geometry = SliderCrank(**{**GEOMETRY.__dict__, "omega0": params["omega0"]})
    contact = HardContact(restitution=params["restitution"], mu=params["mu"])
    return build_slider_crank(
        geometry,
        gravity=params["g"],
        guide="clearance",
        clearance=params["clearance"],
        contact=contact,
    )


CASE = Case(
    name="slider_crank",
    description="undriven slider-crank, slider with play in its guide (Flores, Leine, Glocker)",
    parameters=PARAMETERS,
    builder=build,
    t_end=0.14,
    h_min=1e-5,
    h_max=1e-5,
)
