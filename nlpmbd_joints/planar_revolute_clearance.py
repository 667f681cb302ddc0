"""Revolute clearance joint of a planar mechanism: one radial gap in the mid-plane."""

from __future__ import annotations

import numpy as np

from .cylindrical_clearance import CylindricalClearance


class PlanarRevoluteClearance(CylindricalClearance):
    """A pin (child) in a hole (parent) with radial clearance c, closing the loop of a planar
    mechanism whose other joints already keep every body in the plane normal to `axis`.

    The clearance counterpart of PlanarRevoluteJoint: a RevoluteClearance would add an axial
    equality and two radial gaps (at the pin's ends) that bound the out-of-plane translation
    and tilts the rest of the mechanism already fixes, i.e. redundant constraints. Here only
    the in-plane play is kept: one gap "radial" (m), exactly CylindricalClearance's gap for a
    single end point, the pin's mid-point P = `center` (global at t = 0, frozen into the
    `ends_on` body), measured perpendicular to the line body's axis u (`axis`, frozen at t = 0):

        Phi = sqrt(d . d + eps^2) - sqrt(c^2 + eps^2),  d = w - (w . u) u,  w = P - center_line,

    eps = 1e-3 c, c = hole_radius - pin_radius; negative = open. Contact frame as in
    CylindricalClearance (force on the pin along -n, n from the hole's axis to the pin's).
    `length` (m) is the engaged pin length, kept for reports; it does not enter the gap. The
    contact slips in the mechanism's plane (slip_planes: the axis u), so its friction has one
    tangent, exact.
    """

    def _end_points(self) -> list[np.ndarray]:
        return [self.center]  # one radial gap, at the pin's mid-point

    @property
    def gap_labels(self):
        return ("radial",)

    @property
    def gap_scales(self):
        return (self.clearance,)

    def slip_planes(self, poses):
        return [poses[self.line_body].vector(self.u_line)]
