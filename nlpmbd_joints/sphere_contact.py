"""Unilateral contact of two spheres (point-point contact between bodies)."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_point
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint
from nlpmbd.validation import distance, location


class SphereContact(ContactJoint):
    """Two spheres, one on each body, that may not interpenetrate (frictionless and perfectly
    inelastic unless the contact law says otherwise).

    Geometry, global at t = 0 (m): the centres `parent_center` (frozen into the parent, which
    may be GROUND) and `child_center` (frozen into the child), radii `parent_radius` and
    `child_radius`; the spheres may start touching but not concentric. One gap (m), label
    "sphere": with d = C_child - C_parent (current poses),

        Phi = parent_radius + child_radius - |d|,

    negative while apart, positive = penetration (docs/FORMULATION.md section 3 convention).
    The force lambda >= 0 pushes the child away from the parent along n = d / |d|, at the
    parent's surface point C_parent + parent_radius n.
    """

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        parent_center: ArrayLike,
        child_center: ArrayLike,
        parent_radius: float,
        child_radius: float,
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(name, parent, child, contact)
        a = location(f"{name}.parent_center", parent_center)
        b = location(f"{name}.child_center", child_center)
        self.parent_radius = distance(f"{name}.parent_radius", parent_radius)
        self.child_radius = distance(f"{name}.child_radius", child_radius)
        if not np.linalg.norm(b - a) > 1e-9 * (self.parent_radius + self.child_radius):
            raise InputError(
                f"{name}: parent_center and child_center must differ (the contact normal is "
                f"their direction), both are {a.tolist()}"
            )
        self.s_parent = initial_local_point(parent, a)
        self.s_child = initial_local_point(child, b)

    def _centres(self, poses):
        """(C_parent, d = C_child - C_parent, |d|)."""
        a = poses[self.parent].point(self.s_parent)
        d = poses[self.child].point(self.s_child) - a
        return a, d, ca.sqrt(ca.dot(d, d))

    @property
    def gap_labels(self):
        return ("sphere",)

    def gaps(self, poses):
        return [self.parent_radius + self.child_radius - self._centres(poses)[2]]

    def contact_frames(self, poses):
        a, d, norm = self._centres(poses)
        n = d / norm
        return [(n, a + self.parent_radius * n)]
