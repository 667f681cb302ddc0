"""A gear mesh with backlash between two shafts on parallel axes, each in bearings of the ground."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import GROUND, Body
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint
from nlpmbd.model.pose import Poses
from nlpmbd.validation import distance, location, unit_vector

from .frames import AxisFrame
from .revolute_limits import relative_angle


class GearBacklash(ContactJoint):
    """The teeth of an external spur-gear pair with circumferential backlash b (m).

    Geometry, global at t = 0 (m): gear 1 (`gear1`, parent) turns about the line through
    `center1` along the unit `axis`, gear 2 (`gear2`, child) about the parallel line through
    `center2`; pitch radii r1 = `radius1`, r2 = `radius2` with |center2 - center1| across
    the axis = r1 + r2. The shafts' bearings (revolute joints to the ground) are separate
    joints: this one only meshes the teeth. phi_k is gear k's rotation relative to the ground
    about the axis since t = 0 (rad, right-handed, in (-pi, pi): `relative_angle`), so the
    model is for oscillating gears (rattle), not for shafts turning past half a revolution.
    Rolling without backlash would keep the arc s = r1 phi1 + r2 phi2 (m) at 0 (speed ratio
    omega2 / omega1 = -r1 / r2); the teeth let it move in [-b/2, b/2]:

        drive: s - b/2 <= 0,   coast: -s - b/2 <= 0                  (> 0 = penetration)

    Scales: b/2 each. Contact force: lambda (N) at the pitch point P = C1 + r1 e (e the unit
    vector from C1 to C2), along the pitch circles' tangent t = u x e: on gear 2 +lambda t at
    the drive flank and -lambda t at the coast flank (gear 1 takes the opposite). The teeth
    roll at P, so Coulomb friction has no slip to act on.
    """

    def __init__(
        self,
        name: str,
        gear1: Body,
        gear2: Body,
        center1: ArrayLike,
        center2: ArrayLike,
        radius1: float,
        radius2: float,
        backlash: float,
        axis: ArrayLike = (0.0, 0.0, 1.0),
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(name, gear1, gear2, contact)
        if GROUND in (gear1, gear2):
            raise InputError(f"{name}: gear1 and gear2 must be bodies, not GROUND")
        c1, c2 = location(f"{name}.center1", center1), location(f"{name}.center2", center2)
        u = unit_vector(f"{name}.axis", axis)
        self.radius1 = distance(f"{name}.radius1", radius1)
        self.radius2 = distance(f"{name}.radius2", radius2)
        self.backlash = distance(f"{name}.backlash", backlash)
        across = (c2 - c1) - np.dot(c2 - c1, u) * u
        spacing = float(np.linalg.norm(across))
        if abs(spacing - (self.radius1 + self.radius2)) > 1e-9 * max(spacing, 1.0):
            raise InputError(
                f"{name}: the centres must be radius1 + radius2 = "
                f"{self.radius1 + self.radius2} apart across the axis, got {spacing}"
            )
        self.e = across / spacing
        pitch = c1 + self.radius1 * self.e
        self.frames = (
            AxisFrame(name, GROUND, gear1, pitch, u),
            AxisFrame(name, GROUND, gear2, pitch, u),
        )
        self.t = np.cross(u, self.e)

    @property
    def gap_labels(self):
        return ("drive", "coast")

    @property
    def gap_scales(self):
        return (self.backlash / 2,) * 2

    def arc(self, poses: Poses) -> ca.SX:
        """s = r1 phi1 + r2 phi2 (m), the teeth's relative travel along the pitch circles."""
        phi1, phi2 = (
            relative_angle(f, poses[GROUND], poses[b])
            for f, b in zip(self.frames, self.bodies, strict=True)
        )
        return self.radius1 * phi1 + self.radius2 * phi2

    def gaps(self, poses):
        s, half = self.arc(poses), self.backlash / 2
        return [s - half, -s - half]

    def contact_frames(self, poses):
        # The bearings keep the gears on their axes: P and t are the ground's, as at t = 0.
        G = poses[GROUND]
        x, t = G.point(self.frames[0].point), G.vector(self.t)
        return [(t, x), (-t, x)]

    def describe(self) -> dict:
        return {
            "radius1": self.radius1,
            "radius2": self.radius2,
            "backlash": self.backlash,
            "clearance": self.gap_scales[0],
        }
