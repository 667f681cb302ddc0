"""Planar four-bar with three revolute clearance joints and a tracking-controlled crank: Siconos'
FourBarLinkageWith3clearance example (siconos-tutorials b6c9bfd1; Akhadkar, Acary, Brogliato,
Multibody Syst. Dyn. 38:101, 2016), with its data.

Planar in XY, gravity 9.81 m/s^2 along -Y, Z out of the plane. Crank l1 = 1 m on an ideal pivot
A at the origin; coupler l2 = 4 m; rocker l3 = 2.5 m pivoted at D = (3, 0); uniform links of
1 kg, J = m l^2 / 12 about their centres (mid-length). Clearance joints B (crank-coupler), C
(coupler-rocker) and D (rocker-ground): bearing radius 60 mm, journal radius 55 mm, radial
clearance c = 5 mm; journal on the crank at B, on the coupler at C, on the rocker at D (as the
reference's tangential Jacobians have them). Contact: restitution 0, Coulomb mu = 0.1. The
crank's torque is the reference's passivity-based tracking controller of q_d = 6 sin(0.75 pi t)
(Kp = 200, lambda = 10; nlpmbd_cases/four_bar_controller.py), applied at the start of each
step. Initial state: the reference's q0 (crank at 1.57082 rad, journals centred), at rest.

Joints as in the `four_bar` case: A a RevoluteJoint; B and D RevoluteClearance (axial
equality, the radial gap at each end of a 0.1 m pin: they also hold the coupler and rocker in
the plane, where nothing pushes them out of it); C, the loop's last pin, a
PlanarRevoluteClearance (its in-plane gap only, no redundant out-of-plane equations).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter

if TYPE_CHECKING:
    from nlpmbd import System
    from nlpmbd.model.pose import BodyState

# the controller (CasADi) and the engine are imported in the builder: `nlpmbd list` stays light

BEARING, JOURNAL = 0.06, 0.055  # m: c = 5 mm
PIN_LENGTH = 0.1  # m: out-of-plane support only, planar motion does not see it
Q0 = (1.570823772407980, 0.3532842020624460, 1.264872058968431, 1.876454585097650,
      1.691962091335582, 0.3764686197082958, 1.191962183453451)  # fmt: skip
Z = np.array([0.0, 0.0, 1.0])

PARAMETERS = (
    Parameter("mu", 0.1, "friction coefficient at each clearance joint", float, low=0.0, high=2.0),
    Parameter("restitution", 0.0, "normal restitution e", float, low=0.0, high=1.0),
    Parameter(
        "clearance", 0.005, "radial clearance of B, C and D (journal radius 55 mm)",
        float, low=0.0, low_open=True, high=0.05, unit="m",
    ),
)  # fmt: skip


def _link(system: System, name: str, mass: float, length: float, centre: Any, angle: float) -> Any:
    from nlpmbd import RigidBody

    return system.add_body(
        RigidBody(
            name, mass, (mass * length**2 / 12,) * 3, position=(centre[0], centre[1], 0.0),
            orientation=Quaternion(axis=Z, angle=angle),
        )
    )  # fmt: skip


def crank_angle(t: Any, state: BodyState) -> Any:
    """The crank's angle, continuous past +-pi: q_d(t) plus the wrapped difference from it (the
    crank stays within pi of its target: 1.57 rad at the start, millimetres later)."""
    import casadi as ca

    from .four_bar_controller import desired

    qd, _, _ = desired(t)
    c, s = state.rotation[0, 0], state.rotation[1, 0]
    return qd + ca.atan2(s * ca.cos(qd) - c * ca.sin(qd), c * ca.cos(qd) + s * ca.sin(qd))


def _control(t: Any, state: BodyState) -> list[Any]:
    from .four_bar_controller import torque

    return [0.0, 0.0, torque(t, crank_angle(t, state), state.angular_velocity[2])]


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, System
    from nlpmbd.model.contact import HardContact
    from nlpmbd.model.forces import Torque
    from nlpmbd_joints import RevoluteClearance, RevoluteJoint
    from nlpmbd_joints.planar_revolute_clearance import PlanarRevoluteClearance

    from .four_bar_controller import L0, L1, L2, L3, M1, M2, M3

    q = Q0
    law = HardContact(restitution=params["restitution"], mu=params["mu"])
    hole = JOURNAL + params["clearance"]
    system = System(gravity=(0.0, -9.81, 0.0))
    e1 = np.array([np.cos(q[0]), np.sin(q[0])])
    crank = _link(system, "crank", M1, L1, 0.5 * L1 * e1, q[0])
    coupler = _link(system, "coupler", M2, L2, (q[3], q[4]), q[1])
    rocker = _link(system, "rocker", M3, L3, (L0 + q[5], q[6]), q[2])
    B = np.array([*(L1 * e1), 0.0])
    C = np.array([q[3] + 0.5 * L2 * np.cos(q[1]), q[4] + 0.5 * L2 * np.sin(q[1]), 0.0])
    pin = {"length": PIN_LENGTH, "hole_radius": hole, "pin_radius": JOURNAL, "contact": law}
    system.add_joint(RevoluteJoint("A", GROUND, crank, point=(0, 0, 0), axis=Z))
    system.add_joint(
        RevoluteClearance("B", coupler, crank, B, Z, axial_play=0.0, ends_on="pin", **pin)
    )
    system.add_joint(PlanarRevoluteClearance("C", rocker, coupler, C, Z, ends_on="pin", **pin))
    system.add_joint(
        RevoluteClearance("D", GROUND, rocker, (L0, 0, 0), Z, axial_play=0.0, ends_on="pin", **pin)
    )
    system.add_load(Torque(crank, _control, frame="global", name="controller"))
    return system


CASE = Case(
    name="four_bar_clearance",
    description="four-bar, three revolute clearance joints, tracking-controlled crank (Siconos)",
    parameters=PARAMETERS,
    builder=build,
    t_end=1.0,
    h_min=1e-5,
    h_max=1e-4,
    model_file=False,  # the crank's torque is a controller written in Python
)
