"""Translational clearance joint of a planar mechanism: a rectangular slider between two
parallel guide surfaces (the joint of flores_leine_glocker and flores_et_al_2008)."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_point, initial_local_vector
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint
from nlpmbd.validation import distance, location, unit_vector

#: The gaps' corners: label, sign along the guide axis (front = +), sign across it (upper = +).
CORNER_SIGNS: tuple[tuple[str, float, float], ...] = (
    ("front_upper", 1.0, 1.0),
    ("front_lower", 1.0, -1.0),
    ("back_upper", -1.0, 1.0),
    ("back_lower", -1.0, -1.0),
)


class PlanarPrismaticClearance(ContactJoint):
    """A slider (child) of length 2a and width 2b between two guide surfaces (parent) a distance
    2 (b + c) apart, in the plane with unit `normal`; for mechanisms whose other joints keep the
    slider in that plane (a spatial slider needs PrismaticClearance).

    Geometry, global at t = 0 (m): the guide's mid-line passes through `center` along the unit
    `axis`; w = normal x axis points to the "upper" surface. The slider is centred there, its
    corners at center +/- a axis +/- b w, fixed in the slider. Gaps [the planar form of eqs.
    38-39]: each upper corner P stays below the upper surface, Phi = (P - O) . w - (b + c) <= 0,
    each lower corner above the lower one, Phi = -(P - O) . w - (b + c) <= 0 (O and w frozen
    into the guide): four gaps, -c at the centred start, labels "<front|back>_<upper|lower>"
    (front = +axis). Contact frame: the corner as contact point; the force on the slider acts
    along -w (upper) or +w (lower). Scales: c.
    """

    def __init__(
        self,
        name: str,
        guide: Body,
        slider: Body,
        center: ArrayLike,
        axis: ArrayLike,
        length: float,
        width: float,
        clearance: float,
        normal: ArrayLike = (0.0, 0.0, 1.0),
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(name, guide, slider, contact)
        center = location(f"{name}.center", center)
        u = unit_vector(f"{name}.axis", axis)
        n = unit_vector(f"{name}.normal", normal)
        if abs(float(np.dot(n, u))) > 1e-9:
            raise InputError(f"{name}.normal must be perpendicular to {name}.axis")
        a = 0.5 * distance(f"{name}.length", length)
        b = 0.5 * distance(f"{name}.width", width)
        self.clearance = distance(f"{name}.clearance", clearance)
        w = np.cross(n, u)
        self.half_width, self.half_length, self.center = b, a, center
        self.origin = initial_local_point(guide, center)
        self.w = initial_local_vector(guide, w)
        self.plane = initial_local_vector(guide, n)
        self.corners = {
            label: initial_local_point(slider, center + sa * a * u + sb * b * w)
            for label, sa, sb in CORNER_SIGNS
        }

    def describe(self) -> dict:
        """What the guide figures need (guide_frame.GuideFrame.from_geometry): the bodies, c,
        the slider's size, the guide's origin, axis u and across direction w in the guide's
        axes, and the slider's centre, axis and across direction in its own axes."""
        c = self.corners
        vectors = {
            "origin": self.origin,
            "axis": np.cross(self.w, self.plane),  # u = w x n, in the guide's axes
            "across": self.w,
            "slider_center": 0.25 * sum(c.values()),
            "slider_axis": (c["front_upper"] - c["back_upper"]) / (2 * self.half_length),
            "slider_across": (c["front_upper"] - c["front_lower"]) / (2 * self.half_width),
        }
        return {
            "figures": "planar_guide",  # drawn by guide_files.save_joint_figures
            "slider": self.child.name,
            "guide": self.parent.name,
            "clearance": float(self.clearance),
            "half_width": float(self.half_width),
            "half_length": float(self.half_length),
            "center_y": float(self.center[1]),
            **{f"{k}_{x}": float(v[i]) for k, v in vectors.items() for i, x in enumerate("xyz")},
        }

    @property
    def gap_labels(self):
        return tuple(self.corners)

    @property
    def gap_scales(self):
        return (self.clearance,) * 4

    def _frame(self, poses):
        G = poses[self.parent]
        return G.point(self.origin), G.vector(self.w)

    def gaps(self, poses):
        O, w = self._frame(poses)
        S, reach = poses[self.child], self.half_width + self.clearance
        out = []
        for label, s in self.corners.items():
            side = 1.0 if label.endswith("upper") else -1.0
            out.append(side * ca.dot(S.point(s) - O, w) - reach)
        return out

    def slip_planes(self, poses):
        return [poses[self.parent].vector(self.plane)] * len(self.corners)

    def contact_frames(self, poses):
        _, w = self._frame(poses)
        S = poses[self.child]
        return [
            (-w if label.endswith("upper") else w, S.point(s)) for label, s in self.corners.items()
        ]
