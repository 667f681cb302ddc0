"""The flexible slider of Zheng and Wang ([R5] of docs/FORMULATION.md), shared by `stick_slip`
and `slider_crank_moment` with `slider=flexible`: a Q4 plane-stress strip (nlpmbd/model/fem.py)
in a horizontal guide fixed to the ground, every node of its lower and upper faces a contact
candidate against the guide's lower and upper faces (NodeContact, one gap per node).

The strip is `width` along the guide (x) by `height` across (y), unit thickness, lumped mass
(the paper's choice), Rayleigh damping; its reference lower-left corner is `corner` (global).
The guide's lower face is the plane y = lower (default: the strip's lower face, seated), its
upper face y = lower + height + play, play = 2 clearance when the strip starts centred
(lower = corner y - clearance), else clearance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpmbd import Parameter
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.fem import square_mesh as mesh  # (along, across) the guide; model files share it
from nlpmbd.validation import finite_scalar

if TYPE_CHECKING:
    from nlpmbd import System
    from nlpmbd.model.flexible import FlexibleBody

PARAMETERS_TABLE1 = {"poisson_ratio": 0.3, "rayleigh_alpha": 0.010, "rayleigh_beta": 0.544}


def slider_parameters(elements: int, meshes: str, fewest: int = 1) -> tuple[Parameter, ...]:
    """The cases' `slider`, `youngs_modulus` and `elements` parameters (`elements` by default,
    `meshes` its examples, at least `fewest`)."""
    flexible_only = {"slider": ("flexible",)}
    return (
        Parameter(
            "slider",
            "rigid",
            "rigid body or Q4 finite elements",
            str,
            choices=("rigid", "flexible"),
        ),
        Parameter(
            "youngs_modulus",
            1000.0,
            "Young's modulus E of the flexible slider",
            float,
            low=0.0,
            low_open=True,
            unit="Pa",
            applies=flexible_only,
        ),
        Parameter(
            "elements",
            elements,
            f"number of Q4 elements ({meshes})",
            int,
            low=fewest,
            high=400,
            applies=flexible_only,
        ),
    )


def flexible_options(params: Mapping[str, Any]) -> dict[str, Any]:
    """A flexible slider runs on the QP path (about 40x faster per step than the NLP's fixed
    point of friction over its many node contacts: 0.6 against 24 ms on the oscillator)."""
    return {"solver": "qp"} if params["slider"] == "flexible" else {}


def flexible_slider(
    system: System,
    *,
    width: float,
    height: float,
    areal_density: float,
    youngs_modulus: float,
    elements: int,
    corner: tuple[float, float],
    clearance: float,
    law: ContactLaw,
    centred: bool = False,
) -> FlexibleBody:
    """Add the strip and its node contacts with the guide to `system`; return the strip.
    `centred`: the strip starts with `clearance` on either side, else seated on the lower face
    with all of it above."""
    from nlpmbd import GROUND
    from nlpmbd.model.fem import PlaneStressStrip
    from nlpmbd.model.flexible import FlexibleBody
    from nlpmbd_joints.node_joints import node_contacts

    nx, ny = mesh(elements)
    strip = PlaneStressStrip.from_areal_density(
        width=width,
        height=height,
        elements_x=nx,
        elements_y=ny,
        youngs_modulus=finite_scalar("youngs_modulus", youngs_modulus, low=0.0, low_open=True),
        areal_density=areal_density,
        **PARAMETERS_TABLE1,
    )
    body = system.add_body(FlexibleBody("slider", strip, position=(*corner, 0.0)))
    lower = corner[1] - (clearance if centred else 0.0)
    play = 2 * clearance if centred else clearance
    faces: list[tuple[str, Any, float]] = [
        ("lower", (0.0, 1.0, 0.0), lower),
        ("upper", (0.0, -1.0, 0.0), lower + height + play),
    ]
    for face, normal, y in faces:
        for joint in node_contacts(
            face, GROUND, body.face(face), (0.0, y, 0.0), normal, law, clearance=clearance
        ):
            system.add_joint(joint)
    return body
