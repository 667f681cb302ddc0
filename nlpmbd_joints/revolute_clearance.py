"""Revolute joint with radial and axial clearance (paper section 3.3, eqs. 40-42)."""

from __future__ import annotations

import casadi as ca
from numpy.typing import ArrayLike

from nlpmbd.model.bodies import Body, initial_local_point
from nlpmbd.model.contact import ContactLaw
from nlpmbd.validation import distance

from .cylindrical_clearance import CylindricalClearance


class RevoluteClearance(CylindricalClearance):
    """A pin (child) in a hole (parent) with radial clearance c and total axial play c_a.

    The radial part is exactly `CylindricalClearance` (gaps "end1", "end2", see there; same
    geometry arguments, `center`, `axis` and `length` global at t = 0, m). Two axial stops are
    added: planes fixed in the line body (the body that does not carry the end points),
    perpendicular to its current unit axis u, through S_1, S_2 = center -/+ ((length + c_a)/2)
    axis (frozen at t = 0). The end points P_1, P_2 of the `ends_on` body must stay between them
    [eq. 41, written with one axis u instead of n_j1 = u, n_j2 = -u of eq. 40]:

        Phi_stop1 = (S_1 - P_1) . u <= 0,    Phi_stop2 = (P_2 - S_2) . u <= 0   (m),

    each -c_a/2 at the centred start. Labels ("end1", "end2", "stop1", "stop2"), scales
    (c, c, c_a, c_a). Contact point of a stop: its end point P_x. Force direction on the pin
    (the translational part of -dPhi/dr_pin): if the end points are on the pin, stop1 pushes it
    along +u and stop2 along -u; if they are on the hole (the stops then move with the pin),
    stop1 pushes the pin along -u and stop2 along +u.

    axial_play == 0: two opposite stops that are both active would violate the solver's
    constraint qualification, so no stop gaps are emitted. One equality "axial",
    ((P_1 + P_2)/2 - center_line) . u = 0 (m), makes the joint axially ideal instead.
    """

    def __init__(
        self,
        name: str,
        hole: Body,
        pin: Body,
        center: ArrayLike,
        axis: ArrayLike,
        length: float,
        hole_radius: float,
        pin_radius: float,
        axial_play: float,
        ends_on: str = "pin",
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(
            name, hole, pin, center, axis, length, hole_radius, pin_radius, ends_on, contact
        )
        self.axial_play = distance(f"{name}.axial_play", axial_play, low_open=False)
        half = 0.5 * (self.length + self.axial_play) * self.axis
        self.s_stops = [
            initial_local_point(self.line_body, self.center + sign * half) for sign in (-1, 1)
        ]

    def _stops(self, poses):
        """(Phi_stop1, Phi_stop2), end points and u."""
        (P1, P2), _, u = self._axis_geometry(poses)
        L = poses[self.line_body]
        S1, S2 = (L.point(s) for s in self.s_stops)
        return (ca.dot(S1 - P1, u), ca.dot(P2 - S2, u)), (P1, P2), u

    def describe(self) -> dict:
        """CylindricalClearance's description plus the total axial play c_a (m)."""
        return {**super().describe(), "axial_play": float(self.axial_play)}

    @property
    def gap_labels(self):
        stops = ("stop1", "stop2") if self.axial_play > 0 else ()
        return (*super().gap_labels, *stops)

    @property
    def gap_scales(self):
        stops = (self.axial_play, self.axial_play) if self.axial_play > 0 else ()
        return (*super().gap_scales, *stops)

    def gaps(self, poses):
        radial = super().gaps(poses)
        return radial + list(self._stops(poses)[0]) if self.axial_play > 0 else radial

    def gap_offsets(self, poses):
        return [*super().gap_offsets(poses), *[None] * (self.n_gap - len(self.s_ends))]

    def contact_frames(self, poses):
        radial = super().contact_frames(poses)
        if self.axial_play == 0:
            return radial
        _, (P1, P2), u = self._stops(poses)
        sign = 1.0 if self.ends_on == "pin" else -1.0
        return [*radial, (sign * u, P1), (-sign * u, P2)]

    @property
    def eq_labels(self):
        return ("axial",) if self.axial_play == 0 else ()

    def equalities(self, poses, t):
        if self.axial_play > 0:
            return []
        (P1, P2), origin, u = self._axis_geometry(poses)
        return [ca.dot(0.5 * (P1 + P2) - origin, u)]
