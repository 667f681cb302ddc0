"""Siconos' column of beads: ten touching steel beads dropped on the floor with Newton
restitution e = 1, whose simultaneous impacts rebound the column as one block.

Parameters from the Siconos tutorials (`examples/mechanics/ColumnOfBeads/BeadColumnED_NewtonLaw`,
issue 31's reference `siconos_bead_column`): beads of radius 5 mm and density 7780 kg/m^3
(m = 4.0736e-3 kg), the lowest centre 0.055 m above the floor, each next one touching the one
below, all at rest, g = 9.81 m/s^2; contacts frictionless with e = 1 everywhere: the floor a
`PlaneContact` at the lowest bead's centre against the plane y = R, each pair of neighbours a
`SphereContact`. The generalised Newton law (not the wave of a Newton's cradle) gives every
bead +0.9905 m/s after the first impact, at t = 0.100964 s, and the column returns to its start.

Options: the second-order scheme (the defaults take euler with restitution): free fall is
exact in it, so the energy is kept to round-off between impacts and to O(h_min) across them;
semi-implicit Euler's energy oscillates by O(g h |v|) in flight.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

if TYPE_CHECKING:
    from nlpmbd import System

RADIUS, DENSITY = 0.005, 7780.0
PARAMETERS = (
    Parameter("beads", 10, "number of beads", int, low=1, high=50),
    Parameter(
        "drop", 0.05, "initial gap between the lowest bead and the floor", float, low=0.0, unit="m"
    ),  # fmt: skip
    Parameter("restitution", 1.0, "Newton's coefficient of restitution", float, low=0.0, high=1.0),
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System
    from nlpmbd_joints import PlaneContact, SphereContact

    m = DENSITY * 4.0 / 3.0 * np.pi * RADIUS**3
    inertia = 0.4 * m * RADIUS**2
    law = HardContact(restitution=params["restitution"])
    system = System(gravity=(0.0, -9.81, 0.0))
    beads = []
    for j in range(params["beads"]):
        y = params["drop"] + RADIUS + 2 * RADIUS * j
        beads.append(
            system.add_body(
                RigidBody(f"bead{j}", m, (inertia, inertia, inertia), position=(0.0, y, 0.0))
            )
        )
    system.add_joint(
        PlaneContact("floor", beads[0], [(0.0, 0.0, 0.0)], (0.0, RADIUS, 0.0), contact=law)
    )
    for j in range(1, len(beads)):
        below, above = beads[j - 1], beads[j]
        system.add_joint(
            SphereContact(
                f"pair{j}", below, above, below.position, above.position, RADIUS, RADIUS, law
            )
        )
    return system


CASE = Case(
    name="bead_column",
    description="ten touching beads dropped on the floor, e = 1: simultaneous impacts (Siconos)",
    parameters=PARAMETERS,
    builder=build,
    t_end=0.5,
    h_min=1e-6,
    h_max=1e-3,
    options=lambda params: {"integrator": "verlet"},
)
