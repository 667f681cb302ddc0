"""Prismatic clearance joint: a triangular slider in a fixed triangular guide (paper 4.2).

Parameters chosen for nlpmbd (the paper's Table 2 was lost; see docs/FORMULATION.md section 7):
equilateral triangular sections, slider edge e_i = 0.05 m, clearance c = 0.3 mm (guide edge
e_j = e_i + 2 sqrt(3) c), slider length 0.10 m, fixed guide along global Z (0.5 m, modelled as
infinite planes), one vertex pointing down (-Y), so that gravity wedges the slider against both
lower faces (with a vertex up it would only rest on its bottom face); slider m = 1 kg,
J' = diag(9.375e-4, 9.375e-4, 2.083e-4) kg m^2; it starts at rest, centred. A constant force
F = [0, 0, 10] N acts at s'_f = [0, 0.02, 0.05] m, gravity 9.81 m/s^2 along -Y; 1 s with h in
[1e-3, 1e-2] s. Expect contact at all six vertices by about 0.2 s, then pure sliding along Z
with h at h_max.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpmbd import Case, Parameter

if TYPE_CHECKING:
    from nlpmbd import System

PARAMETERS = (
    Parameter("mass", 1.0, "slider mass", float, low=0.0, low_open=True, unit="kg"),
    Parameter("edge", 0.05, "slider triangle edge e_i", float, low=0.0, low_open=True, unit="m"),
    Parameter(
        "clearance",
        3e-4,
        "clearance c (outward offset of each guide face)",
        float,
        low=0.0,
        low_open=True,
        high=0.01,
        unit="m",
    ),
    Parameter("length", 0.10, "slider length", float, low=0.0, low_open=True, unit="m"),
    Parameter("force", 10.0, "axial force F_z at the body point (0, 0.02, 0.05)", float, unit="N"),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
)


def triangle(edge: float) -> np.ndarray:
    """Equilateral triangle about its centroid, one vertex down (-Y), counter-clockwise."""
    R = edge / np.sqrt(3.0)
    angles = np.radians([270.0, 30.0, 150.0])
    return np.column_stack([R * np.cos(angles), R * np.sin(angles)])


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, Force, RigidBody, System
    from nlpmbd_joints import PrismaticClearance

    system = System(gravity=(0.0, -params["g"], 0.0))
    slider = system.add_body(RigidBody("slider", params["mass"], (9.375e-4, 9.375e-4, 2.083e-4)))
    system.add_joint(
        PrismaticClearance(
            "guide",
            guide=GROUND,
            slider=slider,
            center=(0, 0, 0),
            axis=(0, 0, 1),
            vertices=triangle(params["edge"]),
            length=params["length"],
            clearance=params["clearance"],
            section_x=(1, 0, 0),
        )
    )
    system.add_load(Force(slider, (0.0, 0.0, params["force"]), point=(0.0, 0.02, 0.05), name="F"))
    return system


CASE = Case(
    name="prismatic",
    description="triangular slider in a triangular guide with clearance (paper 4.2)",
    parameters=PARAMETERS,
    builder=build,
    t_end=1.0,
    h_min=1e-3,
    h_max=1e-2,
)
