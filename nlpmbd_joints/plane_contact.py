"""Unilateral contact of body points with a fixed plane (frictionless and perfectly inelastic
unless its contact law says otherwise)."""

from __future__ import annotations

import casadi as ca
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import GROUND, RigidBody
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint
from nlpmbd.validation import location, numeric_array, short_repr, unit_vector, vector_norm

from .frames import COINCIDENT_TOL


class PlaneContact(ContactJoint):
    """Body-fixed points (e.g. the corners of a box) that may not pass through a ground plane.

    Geometry: `points` are body-frame offsets s'_j from the centre of mass (m); the plane passes
    through the global point `plane_point` with unit `normal` pointing to the allowed side.
    One gap per point, Phi_j = -(r + A s'_j - plane_point) . normal (m): negative while the
    point is above the plane, positive = penetration (docs/FORMULATION.md section 3 convention).
    The contact force lambda_j >= 0 acts along `normal` at the point. The points must be
    distinct: two contacts at one point would give redundant gaps.
    """

    def __init__(
        self,
        name: str,
        body: RigidBody,
        points: ArrayLike,
        plane_point: ArrayLike = (0.0, 0.0, 0.0),
        normal: ArrayLike = (0.0, 1.0, 0.0),
        contact: ContactLaw | None = None,
    ) -> None:
        if not isinstance(body, RigidBody):
            raise InputError(f"{name}.body must be a RigidBody, got {short_repr(body)}")
        super().__init__(name, GROUND, body, contact)
        bad = InputError(f"{name}.points must be a non-empty list of 3-vectors (body frame, m)")
        pts = numeric_array(points, bad)
        if pts.ndim != 2 or pts.shape[1] != 3 or pts.shape[0] == 0:
            raise bad
        self.points = [location(f"{name}.points[{k}]", p) for k, p in enumerate(pts)]
        # two contacts at one point give identical gap rows: redundant, the NLP cannot solve it
        scale = max(1.0, *(vector_norm(p) for p in self.points))
        for k, p in enumerate(self.points):
            for j in range(k):
                if vector_norm(p / scale - self.points[j] / scale) <= COINCIDENT_TOL:
                    raise InputError(
                        f"{name}.points must be distinct, but points {j} and {k} coincide "
                        f"at {p.tolist()}"
                    )
        self.plane_point = location(f"{name}.plane_point", plane_point)
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
