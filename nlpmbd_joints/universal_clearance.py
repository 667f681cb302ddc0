"""Universal joint with clearance at its centre: a spherical clearance plus the ideal cross."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_vector
from nlpmbd.model.contact import ContactLaw
from nlpmbd.validation import unit_vector

from .spherical_clearance import SphericalClearance
from .universal import PERPENDICULAR_TOL


class UniversalClearance(SphericalClearance):
    """A cross joint whose centre has play: the child's pin-crossing point (a ball of radius r)
    moves in a spherical seat of radius R > r in the parent, while the two pin axes stay
    perpendicular; frictionless unless its contact law says otherwise.

    This models worn or loose bearing seats of a Cardan cross as translational play of its
    centre (clearance c = R - r in every direction); the cross itself stays rigid, so the
    angular play that unequal seat wear would add is left out.

    Geometry, global at t = 0: both centres at `center` (m); the unit `parent_axis` fixed in the
    parent and the unit `child_axis` fixed in the child, perpendicular. One gap, label "ball",
    as SphericalClearance's (m, positive = penetration, scale c, force on the child towards the
    seat's centre); one equality, label "cross": (A_c u'_c) . (A_p u'_p) = 0 (dimensionless).
    """

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        center: ArrayLike,
        socket_radius: float,
        ball_radius: float,
        parent_axis: ArrayLike,
        child_axis: ArrayLike,
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(name, parent, child, center, socket_radius, ball_radius, contact)
        u_p = unit_vector(f"{name}.parent_axis", parent_axis)
        u_c = unit_vector(f"{name}.child_axis", child_axis)
        if abs(float(np.dot(u_p, u_c))) > PERPENDICULAR_TOL:
            raise InputError(f"{name}.child_axis must be perpendicular to {name}.parent_axis")
        self.u_parent = initial_local_vector(parent, u_p)
        self.u_child = initial_local_vector(child, u_c)

    @property
    def eq_labels(self):
        return ("cross",)

    def equalities(self, poses, t):
        P, C = poses[self.parent], poses[self.child]
        return [ca.dot(C.vector(self.u_child), P.vector(self.u_parent))]
