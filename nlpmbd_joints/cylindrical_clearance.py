"""Cylindrical joint with radial clearance: a pin in a hole (paper section 3.1, eqs. 34-37)."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_point, initial_local_vector
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint
from nlpmbd.validation import distance, location, short_repr, unit_vector

#: Smoothing length of the radial distance, as a fraction of the radial clearance c.
EPS_FRACTION = 1e-3


class CylindricalClearance(ContactJoint):
    """A pin (child) free to slide and turn in a hole (parent) of larger radius; frictionless
    unless its contact law says otherwise.

    Geometry, global at t = 0 (m): both axes pass through `center` along unit `axis` (the joint
    starts centred). The shorter part has axial length `length`; `ends_on` names it ("pin" or
    "hole"). Its axis end points P_1, P_2 = center -/+ (length/2) axis are frozen into that body
    (the "ends body"); the other body (the "line body") carries the axis line: the point `center`
    and the unit axis u, frozen into it. Radial clearance c = hole_radius - pin_radius > 0.

    Gaps (m), labels "end1", "end2": for x = 1, 2, with w = P_x - center_line (current poses),
    d_x = w - (w . u) u is the perpendicular offset of P_x from the line body's axis (the true
    projection; the paper's printed eq. 34 normalises by |w| instead and is not a length). The
    gap |d_x| - c [eq. 36] has a kink at the centred start d_x = 0, so it is smoothed:

        Phi_x = sqrt(d_x . d_x + eps^2) - sqrt(c^2 + eps^2),   eps = 1e-3 c.

    Phi_x = 0 exactly when |d_x| = c and its gradient vanishes at d_x = 0. It differs from
    |d_x| - c by at most eps, at d_x = 0 (Phi = -0.9990005 c at the centred start), and by less
    than 1e-6 c for |d_x| >= c/2. Negative = open, positive = penetration (docs/FORMULATION.md 3).

    Contact frames (reporting, [eq. 37] restated): n is the unit vector from the hole's axis
    towards the pin's axis at that end, n = d/|d| if ends_on == "pin", n = -d/|d| if
    ends_on == "hole" (there d runs from the pin's axis to the hole's end point); |d| is guarded
    by sqrt(d . d + eps^2), so n = 0 at the centred start and |n| = 1 - 5e-7 at |d| = c. The
    force on the pin pushes it back towards the hole's centre, direction -n; this equals the
    translational part of -dPhi_x/dr_pin exactly, so lambda (-n) is the exact force vector.
    The contact point is on the pin's surface where it meets the hole wall (eq. 37 puts it on
    the wall, a clearance away), (point of the pin's axis at that end) + pin_radius n; that
    axis point is P_x itself (ends on the pin) or P_x - d_x (ends on the hole).
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
        ends_on: str = "pin",
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(name, hole, pin, contact)
        self.center = location(f"{name}.center", center)
        self.axis = unit_vector(f"{name}.axis", axis)
        self.length = distance(f"{name}.length", length)
        self.pin_radius = distance(f"{name}.pin_radius", pin_radius)
        self.hole_radius = distance(f"{name}.hole_radius", hole_radius)
        if not self.hole_radius > self.pin_radius:
            raise InputError(
                f"{name}.hole_radius must be > pin_radius = {self.pin_radius}, "
                f"got {self.hole_radius}"
            )
        if not isinstance(ends_on, str) or ends_on not in ("pin", "hole"):
            raise InputError(f"{name}.ends_on must be 'pin' or 'hole', got {short_repr(ends_on)}")
        self.ends_on = ends_on
        self.clearance = self.hole_radius - self.pin_radius
        self.eps = EPS_FRACTION * self.clearance
        self.ends_body, self.line_body = (pin, hole) if ends_on == "pin" else (hole, pin)
        self.s_ends = [initial_local_point(self.ends_body, p) for p in self._end_points()]
        self.s_line = initial_local_point(self.line_body, self.center)
        self.u_line = initial_local_vector(self.line_body, self.axis)

    def _end_points(self) -> list[np.ndarray]:
        """The end points P_1, P_2 (global at t = 0) that the radial gaps are measured at."""
        half = 0.5 * self.length * self.axis
        return [self.center - half, self.center + half]

    # --- shared geometry -------------------------------------------------------------------
    def _axis_geometry(self, poses):
        """Current end points [P_1, P_2], line point and unit axis u of the line body."""
        E, L = poses[self.ends_body], poses[self.line_body]
        return [E.point(s) for s in self.s_ends], L.point(self.s_line), L.vector(self.u_line)

    def _radial(self, poses):
        """Per end: (P_x, d_x, sqrt(d_x . d_x + eps^2))."""
        ends, origin, u = self._axis_geometry(poses)
        out = []
        for P in ends:
            w = P - origin
            d = w - ca.dot(w, u) * u
            out.append((P, d, ca.sqrt(ca.dot(d, d) + self.eps**2)))
        return out

    # --- Joint hooks -------------------------------------------------------------------------
    def describe(self) -> dict:
        """What the journal-orbit figures need (nlpmbd/plots/clearance_data.py): the bodies, c,
        the radial gaps' end points (in the ends body) and the axis line (in the line body)."""
        labels = self.gap_labels[: len(self.s_ends)]
        vectors = {**dict(zip(labels, self.s_ends, strict=True)), "ref": self.s_line}
        vectors["axis"] = self.u_line
        return {
            "clearance_kind": "pin",
            "clearance": float(self.clearance),
            "outer": self.parent.name,
            "inner": self.child.name,
            "points": ",".join(labels),
            "points_on": "inner" if self.ends_on == "pin" else "outer",
            "length": float(self.length),
            "pin_radius": float(self.pin_radius),
            "hole_radius": float(self.hole_radius),
            **{f"{k}_{c}": float(v[i]) for k, v in vectors.items() for i, c in enumerate("xyz")},
        }

    @property
    def gap_labels(self):
        return ("end1", "end2")

    @property
    def gap_scales(self):
        return (self.clearance, self.clearance)

    def gaps(self, poses):
        offset = float(np.hypot(self.clearance, self.eps))
        return [norm - offset for _, _, norm in self._radial(poses)]

    def gap_offsets(self, poses):
        return [d for _, d, _ in self._radial(poses)]

    def contact_frames(self, poses):
        out = []
        for P, d, norm in self._radial(poses):
            if self.ends_on == "pin":
                n, pin_axis_point = d / norm, P
            else:
                n, pin_axis_point = -d / norm, P - d
            out.append((-n, pin_axis_point + self.pin_radius * n))
        return out
