"""Test-only systems: a box whose corners must stay above the plane y = 0 (unilateral contacts)."""

from __future__ import annotations

import casadi as ca
import numpy as np
from pyquaternion import Quaternion

from nlpmbd import RigidBody, System
from nlpmbd.joint import Joint


class CornersAbovePlane(Joint):
    """Gap Phi_j = -y of corner j (m): negative above the plane y = 0, positive = penetration."""

    def __init__(self, name, body, corners):
        from nlpmbd import GROUND

        super().__init__(name, GROUND, body)
        self.corners = [np.asarray(c, float) for c in corners]

    @property
    def gap_labels(self):
        return tuple(f"corner{k}" for k in range(len(self.corners)))

    def gaps(self, poses):
        P = poses[self.child]
        return [-P.point(c)[1] for c in self.corners]

    def contact_frames(self, poses):
        P = poses[self.child]
        return [(ca.DM([0, 1, 0]), P.point(c)) for c in self.corners]


def tilted_box(height: float = 0.05, tilt_deg: float = 20.0, spin: float = 3.0) -> System:
    """A 0.2 x 0.1 x 0.1 m, 1 kg box, tilted about two axes, dropped with a spin."""
    a, b, c = 0.2, 0.1, 0.1
    m = 1.0
    J = (m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12, m * (a**2 + b**2) / 12)
    rot = Quaternion(axis=[0, 0, 1], degrees=tilt_deg) * Quaternion(axis=[1, 0, 0], degrees=tilt_deg / 2)
    corners = [np.array([sx * a / 2, sy * b / 2, sz * c / 2])
               for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    lowest = min((rot.rotate(cn))[1] for cn in corners)
    system = System(gravity=(0.0, -9.81, 0.0))
    box = system.add_body(RigidBody("box", m, J, position=(0.0, height - lowest, 0.0),
                                    orientation=rot, velocity=(0.3, 0.0, 0.0),
                                    angular_velocity=(0.0, spin, 0.0)))
    system.add_joint(CornersAbovePlane("floor", box, corners))
    return system
