"""A chain of N links on revolute joints, ideal or with radial clearance in every joint (issue 15).

Geometry (our choice): N identical links, each 0.2 m long, 1 kg, centre of mass mid-link,
principal inertia about the centre of mass J' = diag(5e-5, 1/300, 1/300) kg m^2 in body axes
(body x along the link: a 1 cm radius cylinder's m r^2 / 2 about its axis, the slender-rod
m L^2 / 12 about the two normals). Gravity 9.81 m/s^2 along -Y. Joint 0 pins link 0's start to
the ground at the origin; joint i (i >= 1) pins link i's start to link i-1's tip. The chain is
released at rest, straight and horizontal along the unit direction e: link i spans
[0.2 i e, 0.2 (i + 1) e] m, its body x along e.

`layout = planar`: e = +X and every joint axis is global Z (an N-link planar pendulum; N = 2 is
the double pendulum of references/ref_double_pendulum.py). `layout = spatial`: e = (1, 0, 1)/sqrt2
(horizontal, 45 deg between +X and +Z) and the joint axes alternate Z (joints 0, 2, 4, ...) and X
(joints 1, 3, ...). No plane contains the chain and gravity and is a mirror plane of every
axis (reflection in the vertical plane through e swaps Z and X), so the motion is truly 3-D from
the start: gravity turns every joint.

`joint = ideal`: RevoluteJoint (5 equalities each). `joint = clearance`: RevoluteClearance with
the `pendulum` case's pin: radius 0.01 m, engaged length 0.05 m, radial clearance `clearance`
(default 1e-4 m), axial play 0 (an axial equality and two radial end gaps per joint), the pin on
the parent (ground or link i-1's tip), the hole in link i, hard frictionless inelastic contact.
Every joint starts centred. Steps: h in [2.5e-4, 1e-3] s, 1 s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter
from nlpmbd.model.contact import HardContact

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System
    from nlpmbd.model.joint import Joint

LENGTH, MASS = 0.2, 1.0  # m, kg: every link
INERTIA = (5e-5, MASS * LENGTH**2 / 12, MASS * LENGTH**2 / 12)  # kg m^2, body x along the link
PIN_RADIUS, PIN_LENGTH = 0.01, 0.05  # m: every pin (the pendulum case's)
X, Y, Z = np.eye(3)

PARAMETERS = (
    Parameter("links", 4, "number of links N", int, low=1, high=64),
    Parameter("joint", "ideal", "joint model of every pin", str, choices=("ideal", "clearance")),
    Parameter(
        "layout", "planar", "planar: all axes Z; spatial: axes Z, X, Z, ...", str,
        choices=("planar", "spatial"),
    ),
    Parameter(
        "clearance", 1e-4, "radial clearance c of every pin", float,
        low=0.0, low_open=True, high=0.01, unit="m", applies={"joint": ("clearance",)},
    ),
    Parameter("g", 9.81, "gravitational acceleration along -Y", float, low=0.0, unit="m/s^2"),
)  # fmt: skip


def direction_and_axes(layout: str, n: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """(unit direction e of the straight initial chain, the n joint axes), global at t = 0."""
    if layout == "planar":
        return X, [Z] * n
    return (X + Z) / np.sqrt(2.0), [Z if i % 2 == 0 else X for i in range(n)]


def _link(system: System, i: int, e: np.ndarray) -> RigidBody:
    """Link i at rest, centre of mass at 0.2 (i + 1/2) e, body x rotated onto e."""
    from nlpmbd import RigidBody

    tilt = float(np.arctan2(e[2], e[0]))  # rotation about Y by -tilt takes X onto e
    return system.add_body(
        RigidBody(
            f"link{i}", MASS, INERTIA, position=(i + 0.5) * LENGTH * e,
            orientation=Quaternion(axis=Y, angle=-tilt),
        )
    )  # fmt: skip


def _joint(i: int, parent: Any, child: RigidBody, at: np.ndarray, axis: np.ndarray,
           clearance: float | None) -> Joint:  # fmt: skip
    """Joint i at `at` about `axis`: ideal if clearance is None, else a pin in child's hole."""
    from nlpmbd_joints import RevoluteClearance, RevoluteJoint

    if clearance is None:
        return RevoluteJoint(f"j{i}", parent, child, point=at, axis=axis)
    return RevoluteClearance(
        f"j{i}", hole=child, pin=parent, center=at, axis=axis, length=PIN_LENGTH,
        hole_radius=PIN_RADIUS + clearance, pin_radius=PIN_RADIUS, axial_play=0.0,
        ends_on="pin", contact=HardContact(mu=0.0),
    )  # fmt: skip


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, System

    n = params["links"]
    e, axes = direction_and_axes(params["layout"], n)
    clearance = params["clearance"] if params["joint"] == "clearance" else None
    system = System(gravity=(0.0, -params["g"], 0.0))
    parent: Any = GROUND
    for i in range(n):
        link = _link(system, i, e)
        system.add_joint(_joint(i, parent, link, i * LENGTH * e, axes[i], clearance))
        parent = link
    return system


CASE = Case(
    name="chain",
    description="N-link chain released horizontally, planar or spatial, ideal or clearance pins",
    parameters=PARAMETERS,
    builder=build,
    t_end=1.0,
    h_min=2.5e-4,
    h_max=1e-3,
)
