"""Andrews' squeezing mechanism: IFToMM/UDC benchmark A03, the "andrews" problem of the Test Set
for IVP Solvers (Mazzia, Magherini), Hairer and Wanner, Solving ODEs II, section VII.7.

Seven planar bodies (Z out of the plane, no gravity) on ten revolute pairs, a spring
c0 = 4530 N/m (rest length 0.07785 m) from the ground point C to the triangle's point D, a
constant motor torque of 0.033 N m on the crank OF. Hairer's coordinates q = (beta, Theta,
gamma, Phi, delta, Omega, epsilon) fix the body angles: OF beta, EF beta + Theta (from E to F),
BE gamma - pi/2, AG delta, GE Phi + delta - pi/2, AH epsilon - pi/2, HE Omega + epsilon; body x
runs along each link from its first named point, the centres of mass are the A03 table's
(ra; da from F; (sa, sb) from B; (ta, tb) from A; e - ea from G; (u_a, -u_b) from A;
zf - fa from H), E is common to EF, GE, HE and the triangle. Start: the test set's consistent
y(0) (30 digits), at rest. The tree O, F, E1 (EF-GE), G, E2 (EF-HE), H, E3 (EF-triangle) are
RevoluteJoint; the three loops close at A (AG), A (AH) and B (triangle) with PlanarRevoluteJoint
(their in-plane equations only: the tree already keeps every body in the plane).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import Case, Parameter

if TYPE_CHECKING:
    from nlpmbd import RigidBody, System

A, B, C = (
    np.array([-0.06934, -0.00227, 0.0]),
    np.array([-0.03635, 0.03273, 0.0]),
    np.array([0.014, 0.072, 0.0]),
)
RR, D, SS, E, ZT, ZF, U = 0.007, 0.028, 0.035, 0.02, 0.04, 0.02, 0.04  # m: link lengths
MASS = {"OF": 0.04325, "EF": 0.00365, "BE": 0.02373, "GE": 0.00706, "AG": 0.0705,
        "HE": 0.00706, "AH": 0.05498}  # fmt: skip
INERTIA = {"OF": 2.194e-6, "EF": 4.41e-7, "BE": 5.255e-6, "GE": 5.667e-7, "AG": 1.169e-5,
           "HE": 5.667e-7, "AH": 1.912e-5}  # fmt: skip
#: centre of mass in each body's axes, from its first point (O, E, B, G, A, H, A)
CENTRE = {"OF": (0.00092, 0.0), "EF": (D - 0.0115, 0.0), "BE": (0.01874, 0.01043),
          "GE": (E - 0.01421, 0.0), "AG": (0.02308, 0.00916), "HE": (ZF - 0.01421, 0.0),
          "AH": (0.01228, -0.00449)}  # fmt: skip
SPRING_POINT = (0.018, 0.02)  # D on the triangle, from B in its axes
C0, L0, MOMENT = 4530.0, 0.07785, 0.033
#: the test set's consistent start (beta, Theta, gamma, Phi, delta, Omega, epsilon)
Q0 = (-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
      0.222668390165885884674473185609, 0.487364979543842550225598953530,
      -0.222668390165885884674473185609, 1.23054744454982119249735015568)  # fmt: skip
Z = np.array([0.0, 0.0, 1.0])

PARAMETERS = (Parameter("moment", MOMENT, "motor torque on the crank", float, low=0.0, unit="N m"),)


def _e(angle: float) -> np.ndarray:
    return np.array([np.cos(angle), np.sin(angle), 0.0])


def layout(q: tuple[float, ...] = Q0) -> dict[str, tuple[np.ndarray, float]]:
    """Each body's first point and angle at Hairer's coordinates q."""
    beta, theta, gamma, phi, delta, omega, eps = q
    F = RR * _e(beta)
    E_pt = F - D * _e(beta + theta)
    return {
        "OF": (np.zeros(3), beta), "EF": (E_pt, beta + theta), "BE": (B, gamma - np.pi / 2),
        "GE": (A + ZT * _e(delta), phi + delta - np.pi / 2), "AG": (A, delta),
        "HE": (A + U * _e(eps - np.pi / 2), omega + eps), "AH": (A, eps - np.pi / 2),
    }  # fmt: skip


def _body(name: str, start: np.ndarray, angle: float) -> RigidBody:
    from nlpmbd import RigidBody

    cx, cy = CENTRE[name]
    R = Quaternion(axis=Z, angle=angle)
    centre = start + R.rotate(np.array([cx, cy, 0.0]))
    return RigidBody(name, MASS[name], (INERTIA[name],) * 3, position=centre, orientation=R)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import GROUND, SpringDamper, System
    from nlpmbd.model.forces import Torque
    from nlpmbd_joints import RevoluteJoint
    from nlpmbd_joints.planar_revolute import PlanarRevoluteJoint

    system = System(gravity=(0.0, 0.0, 0.0))
    at = layout()
    b = {name: system.add_body(_body(name, *at[name])) for name in MASS}
    F, E_pt = at["OF"][0] + RR * _e(at["OF"][1]), at["EF"][0]
    G, H = at["GE"][0], at["HE"][0]
    tree = (("O", "ground", "OF", np.zeros(3)), ("F", "OF", "EF", F), ("E1", "EF", "GE", E_pt),
            ("G", "GE", "AG", G), ("E2", "EF", "HE", E_pt), ("H", "HE", "AH", H),
            ("E3", "EF", "BE", E_pt))  # fmt: skip
    parents: dict[str, Any] = {"ground": GROUND, **b}
    for name, parent, child, point in tree:
        system.add_joint(RevoluteJoint(name, parents[parent], b[child], point=point, axis=Z))
    for name, child, point in (("A1", "AG", A), ("A2", "AH", A), ("B", "BE", B)):
        system.add_joint(PlanarRevoluteJoint(name, GROUND, b[child], point=point, axis=Z))
    R = Quaternion(axis=Z, angle=at["BE"][1])
    spring_point = B + R.rotate(np.array([*SPRING_POINT, 0.0]))
    system.add_load(
        SpringDamper("spring", GROUND, b["BE"], tuple(C), tuple(spring_point), C0, 0.0, L0)
    )
    system.add_load(Torque(b["OF"], (0.0, 0.0, params["moment"]), frame="global", name="motor"))
    return system


CASE = Case(
    name="andrews",
    description="Andrews' squeezing mechanism, IFToMM A03 / IVP test set (7 bodies, 3 loops)",
    parameters=PARAMETERS,
    builder=build,
    t_end=0.03,
    h_min=1e-5,
    h_max=1e-5,
)
