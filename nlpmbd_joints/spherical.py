"""Ideal spherical joint (Haug's constraint library, paper section 2.2)."""

from __future__ import annotations

from numpy.typing import ArrayLike

from nlpmbd.model.bodies import Body
from nlpmbd.validation import location

from .frames import AxisFrame, FramedJoint


class SphericalJoint(FramedJoint):
    """Ball joint: the joint point of the child coincides with that of the parent.

    Geometry: `point` is the global joint centre at t = 0 (m). Three equalities
    (P_child - P_parent)_x,y,z = 0 in global axes, metres; the multipliers are the global
    components of the reaction on the child (N).
    """

    REDUNDANT_WHEN = "point"

    def __init__(self, name: str, parent: Body, child: Body, point: ArrayLike) -> None:
        super().__init__(name, parent, child)
        point = location(f"{name}.point", point)
        self.frame = AxisFrame(name, parent, child, point, (0.0, 0.0, 1.0))

    @property
    def eq_labels(self):
        return ("dx", "dy", "dz")

    def equalities(self, poses, t):
        f = self.frame
        d = poses[self.child].point(f.s_child) - poses[self.parent].point(f.s_parent)
        return [d[0], d[1], d[2]]
