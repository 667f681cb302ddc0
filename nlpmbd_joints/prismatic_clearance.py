"""Prismatic joint with clearance: a polygonal slider in a guide (paper section 3.2, eqs. 38-39)."""

from __future__ import annotations

import casadi as ca
import numpy as np
from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.model.bodies import Body, initial_local_point, initial_local_vector
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint
from nlpmbd.validation import distance, finite_array, location, numeric_array, unit_vector

#: Relative tolerance for repeated vertices and collinear edges.
DEGENERATE_TOL = 1e-9
FACES = (("front", -0.5), ("back", 0.5))


def _polygon(name: str, vertices: ArrayLike) -> tuple[np.ndarray, float]:
    """Checked (N, 2) convex polygon and its orientation (+1 counter-clockwise, -1 clockwise)."""
    bad = InputError(f"{name}.vertices must be an (N, 2) array of numbers")
    V = numeric_array(vertices, bad)
    if V.ndim != 2 or V.shape[1] != 2 or V.shape[0] < 3:
        raise InputError(f"{name}.vertices must have shape (N, 2) with N >= 3, got {V.shape}")
    if not np.all(np.isfinite(V)):
        raise InputError(f"{name}.vertices must be finite")
    size = float(np.max(np.abs(V)))
    Vs = V / size if size > 0 else V  # the tests below are scale-free: no overflow
    edges = np.roll(Vs, -1, axis=0) - Vs  # edge k: vertex k -> vertex k + 1
    lengths = np.linalg.norm(edges, axis=1)
    scale = float(np.max(np.linalg.norm(Vs - Vs.mean(axis=0), axis=1)))
    if scale == 0 or np.min(lengths) <= DEGENERATE_TOL * scale:
        k = int(np.argmin(lengths))
        raise InputError(
            f"{name}.vertices must be distinct, but vertices {k} and {(k + 1) % len(V)} coincide"
        )
    prev = np.roll(edges, 1, axis=0)  # edge k - 1, ending at vertex k
    cross = prev[:, 0] * edges[:, 1] - prev[:, 1] * edges[:, 0]
    dot = np.sum(prev * edges, axis=1)
    sines = cross / (lengths * np.roll(lengths, 1))
    if np.min(np.abs(sines)) <= DEGENERATE_TOL:
        k = int(np.argmin(np.abs(sines)))
        raise InputError(
            f"{name}.vertices must not have 3 consecutive collinear points (at vertex {k})"
        )
    turning = float(np.sum(np.arctan2(cross, dot)))
    if not (np.all(sines > 0) or np.all(sines < 0)) or abs(abs(turning) - 2 * np.pi) > 1e-6:
        raise InputError(f"{name}.vertices must form a convex, non-self-intersecting polygon")
    return V, float(np.sign(sines[0]))


class PrismaticClearance(ContactJoint):
    """A slider (child) of convex polygonal section in a guide (parent) with clearance c.

    Geometry, global at t = 0 (m): the slider's centre `center` lies on the unit `axis`. Its
    section frame is e1 = `section_x` made perpendicular to the axis and normalised,
    e2 = axis x e1; `vertices` (N, 2), N >= 3, are the section's corners (e1, e2 coordinates
    relative to `center`), in either order. The front and back faces at center -/+
    (length/2) axis give 2N vertices fixed in the slider. The guide has N bounding planes:
    edge k runs from vertex k to k + 1; its plane is the edge pushed outward by `clearance`,
    through Q_k = V_k + c m_k (m_k the outward unit normal of the edge in the section plane),
    with inward unit normal n_k = -m_k, both frozen into the guide. For an equilateral triangle
    of edge e_i the guide's edge is e_i + 2 sqrt(3) c. The guide is an infinite prism: nothing
    limits the axial motion.

    Gaps (m): each slider vertex P stays inside the two planes of its adjacent edges (k - 1 and
    k) [eq. 38]: Phi = -(r_P - r_Q) . n <= 0, -c at the centred start, 4N in all [eq. 39].
    Labels "<face>_v<vertex>_e<edge>" (e.g. "front_v0_e2"), indices in the user's vertex
    order; scales all c. Contact frame: the vertex P as contact point; the force on the slider
    acts along the plane's current inward normal n (global), which equals the translational
    part of -dPhi/dr_slider.
    """

    def __init__(
        self,
        name: str,
        guide: Body,
        slider: Body,
        center: ArrayLike,
        axis: ArrayLike,
        vertices: ArrayLike,
        length: float,
        clearance: float,
        section_x: ArrayLike = (1.0, 0.0, 0.0),
        contact: ContactLaw | None = None,
    ) -> None:
        super().__init__(name, guide, slider, contact)
        self.center = location(f"{name}.center", center)
        self.axis = unit_vector(f"{name}.axis", axis)
        self.length = distance(f"{name}.length", length)
        self.clearance = distance(f"{name}.clearance", clearance)
        sx = finite_array(f"{name}.section_x", section_x, (3,))
        big = float(np.max(np.abs(sx)))
        sx = sx if big < 1e150 else sx / big  # no overflow below
        e1 = sx - np.dot(sx, self.axis) * self.axis
        if float(np.linalg.norm(e1)) <= DEGENERATE_TOL * max(float(np.linalg.norm(sx)), 1e-300):
            raise InputError(
                f"{name}.section_x must be non-zero and not parallel to axis {self.axis.tolist()}, "
                f"got {sx.tolist()}"
            )
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(self.axis, e1)
        V, orientation = _polygon(name, vertices)
        self.vertices = V
        N = len(V)
        Vn = V if np.max(np.abs(V)) < 1e150 else V / np.max(np.abs(V))  # no overflow below
        edges = np.roll(Vn, -1, axis=0) - Vn
        m = orientation * np.column_stack([edges[:, 1], -edges[:, 0]])
        m /= np.linalg.norm(m, axis=1, keepdims=True)

        def in_space(xy):
            return np.outer(xy[:, 0], e1) + np.outer(xy[:, 1], e2)

        Q = self.center + in_space(V + self.clearance * m)
        self.s_planes = [initial_local_point(guide, x) for x in Q]
        self.n_planes = [initial_local_vector(guide, -x) for x in in_space(m)]
        self.s_vertices = {
            face: [
                initial_local_point(slider, x)
                for x in self.center + in_space(V) + f * self.length * self.axis
            ]
            for face, f in FACES
        }
        self._pairs = [
            (face, k, e) for face, _ in FACES for k in range(N) for e in ((k - 1) % N, k)
        ]

    def _terms(self, poses):
        """Per gap: (vertex position, plane point, inward normal), global."""
        G, S = poses[self.parent], poses[self.child]
        planes = [
            (G.point(s), G.vector(n)) for s, n in zip(self.s_planes, self.n_planes, strict=True)
        ]
        return [(S.point(self.s_vertices[face][k]), *planes[e]) for face, k, e in self._pairs]

    @property
    def gap_labels(self):
        return tuple(f"{face}_v{k}_e{e}" for face, k, e in self._pairs)

    @property
    def gap_scales(self):
        return (self.clearance,) * len(self._pairs)

    def gaps(self, poses):
        return [-ca.dot(P - Q, n) for P, Q, n in self._terms(poses)]

    def contact_frames(self, poses):
        return [(n, P) for P, _, n in self._terms(poses)]
