"""Unilateral contact of body points with a fixed plane (frictionless, perfectly inelastic)."""

from __future__ import annotations

import casadi as ca
import numpy as np

from nlpmbd.bodies import GROUND, RigidBody
from nlpmbd.errors import InputError
from nlpmbd.joint import Joint
from nlpmbd.validation import finite_array, unit_vector


class PlaneContact(Joint):
    """Body-fixed points (e.g. the corners of a box) that may not pass through a ground plane.

    Geometry: `points` are body-frame offsets s'_j from the centre of mass (m); the plane passes
    through the global point `plane_point` with unit `normal` pointing to the allowed side.
    One gap per point, Phi_j = -(r + A s'_j - plane_point) . normal (m): negative while the
    point is above the plane, positive = penetration (FORMULATION.md section 3 convention).
    The contact force lambda_j >= 0 acts along `normal` at the point.
    """

    def __init__(
        self,
        name: str,
        body: RigidBody,
        points,
        plane_point=(0.0, 0.0, 0.0),
        normal=(0.0, 1.0, 0.0),
    ) -> None:
        super().__init__(name, GROUND, body)
        pts = np.asarray(points, dtype=float)
        if pts.ndim != 2 or pts.shape[1] != 3 or pts.shape[0] == 0:
            raise InputError(f"{name}.points must be a non-empty list of 3-vectors")
        self.points = [finite_array(f"{name}.points[{k}]", p, (3,)) for k, p in enumerate(pts)]
        self.plane_point = finite_array(f"{name}.plane_point", plane_point, (3,))
        self.normal = unit_vector(f"{name}.normal", normal)

    @property
    def gap_labels(self):
        return tuple(f"point{k}" for k in range(len(self.points)))

    def gaps(self, poses):
        P, n = poses[self.child], ca.DM(self.normal)
        return [-ca.dot(P.point(s) - ca.DM(self.plane_point), n) for s in self.points]

    def contact_frames(self, poses):
        P, n = poses[self.child], ca.DM(self.normal)
        out = []
        for s in self.points:
            x = P.point(s)
            out.append((n, x - ca.dot(x - ca.DM(self.plane_point), n) * n))
        return out
