"""Spherical joint with clearance: a ball in a socket of larger radius."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_point
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint
from nlpmbd.validation import distance, location

from .cylindrical_clearance import EPS_FRACTION


class SphericalClearance(ContactJoint):
    """A ball (child) of radius r in a spherical socket (parent) of radius R > r; frictionless
    unless its contact law says otherwise.

    Geometry, global at t = 0 (m): both centres at `center` (the joint starts centred); the
    ball's centre B is frozen into the child, the socket's centre S into the parent. Clearance
    c = R - r. One gap (m), label "ball": with d = B - S (current poses), |d| - c, smoothed at the
    centred start like CylindricalClearance's radial gaps,

        Phi = sqrt(d . d + eps^2) - sqrt(c^2 + eps^2),   eps = 1e-3 c,

    zero exactly at |d| = c, negative open, positive penetration; scale c. Contact frame: the
    force on the ball pushes it back towards the socket's centre, direction -n with
    n = d / sqrt(d . d + eps^2) (the translational part of -dPhi/dB exactly); the contact point
    is on the ball's surface, B + r n.
    """

    def __init__(
        self,
        name: str,
        socket: Body,
        ball: Body,
        center: ArrayLike,
        socket_radius: float,
        ball_radius: float,
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(name, socket, ball, contact)
        center = location(f"{name}.center", center)
        self.ball_radius = distance(f"{name}.ball_radius", ball_radius, low_open=False)
        self.socket_radius = distance(f"{name}.socket_radius", socket_radius)
        if not self.socket_radius > self.ball_radius:
            raise InputError(
                f"{name}.socket_radius must be > ball_radius = {self.ball_radius}, "
                f"got {self.socket_radius}"
            )
        self.clearance = self.socket_radius - self.ball_radius
        self.eps = EPS_FRACTION * self.clearance
        self.s_socket = initial_local_point(socket, center)
        self.s_ball = initial_local_point(ball, center)

    def _offset(self, poses):
        """(ball centre B, d = B - S, sqrt(d . d + eps^2))."""
        B = poses[self.child].point(self.s_ball)
        d = B - poses[self.parent].point(self.s_socket)
        return B, d, ca.sqrt(ca.dot(d, d) + self.eps**2)

    def describe(self) -> dict:
        """What the orbit figures need (nlpmbd/plots/clearance_data.py): the bodies, c, the
        ball's centre (in the ball body) and the socket's (in the socket body)."""
        vectors = {"ball": self.s_ball, "ref": self.s_socket}
        return {
            "clearance_kind": "ball",
            "clearance": float(self.clearance),
            "outer": self.parent.name,
            "inner": self.child.name,
            "points": "ball",
            "points_on": "inner",
            "ball_radius": float(self.ball_radius),
            "socket_radius": float(self.socket_radius),
            **{f"{k}_{c}": float(v[i]) for k, v in vectors.items() for i, c in enumerate("xyz")},
        }

    @property
    def gap_labels(self):
        return ("ball",)

    @property
    def gap_scales(self):
        return (self.clearance,)

    def gaps(self, poses):
        _, _, norm = self._offset(poses)
        return [norm - float(np.hypot(self.clearance, self.eps))]

    def gap_offsets(self, poses):
        return [self._offset(poses)[1]]

    def contact_frames(self, poses):
        B, d, norm = self._offset(poses)
        n = d / norm
        return [(-n, B + self.ball_radius * n)]
