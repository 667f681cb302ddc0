"""A flexible body: a planar Q4 finite-element strip whose nodal positions are coordinates of
the step (issue 18; docs/FORMULATION.md section 17).

Coordinates. Each node k has two coordinates, its global position (x_k, y_k) in the plane
z = position[2]; its velocity (x_k', y_k') is two entries of v. The body neither rotates nor
carries a reference frame: the displacements u = x - X from the reference positions X (the
strip's mesh translated by `position`) enter linear elasticity directly. That holds while the
strip translates and its rotations stay small, as the slider in a guide does. A body that turns
by a finite angle needs a floating frame (rigid r, p plus deformation in body axes, whose mass
matrix then depends on the deformation and carries the quadratic velocity terms), left for later.

Equations of motion of the nodes, their block of the step's v-space equations:
M (v - vm) / h + C v + K (xm - X + h v) = f + (contact and joint forces): the internal forces are
implicit in the step (linear in the new velocities; backward Euler), because the strip's highest
modes are far stiffer than any step an explicit force would allow (E = 1000 Pa, 25 elements:
w_max = 1.2e3 rad/s, and Rayleigh beta = 0.544 s gives them a damping rate beta w^2 / 2 = 3.6e5
1/s). f holds gravity, distributed with the (consistent or lumped) mass, and PointLoads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..validation import finite_array, name_string, short_repr
from .bodies import GROUND
from .fem import PlaneStressStrip

if TYPE_CHECKING:  # SciPy loads on first use: a rigid system's run does not need it
    import scipy.sparse as sp


class MassLumping(Enum):
    """Which mass matrix the nodes carry: the consistent one, or its row sums (the paper's)."""

    LUMPED = "lumped"
    CONSISTENT = "consistent"


@dataclass(frozen=True, eq=False)
class FlexibleBody:
    """A PlaneStressStrip placed in the plane z = position[2], its lower-left corner at
    `position` (m), moving at `velocity` (vx, vy) (m/s) at t = 0, undeformed. Node numbers,
    faces and DOF order are the strip's (model/fem.py): row-major from the lower-left corner."""

    name: str
    strip: PlaneStressStrip
    position: Any = (0.0, 0.0, 0.0)
    velocity: Any = (0.0, 0.0)
    lumping: MassLumping = MassLumping.LUMPED
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name_string("body name", self.name)
        if self.name == GROUND.name:
            raise InputError("body name 'ground' is reserved for the fixed frame")
        if not isinstance(self.strip, PlaneStressStrip):
            raise InputError(
                f"{self.name}.strip must be a PlaneStressStrip, got {short_repr(self.strip)}"
            )
        set_ = object.__setattr__
        set_(self, "position", finite_array(f"{self.name}.position", self.position, (3,)))
        set_(self, "velocity", finite_array(f"{self.name}.velocity", self.velocity, (2,)))
        try:
            set_(self, "lumping", MassLumping(self.lumping))
        except ValueError:
            raise InputError(
                f"{self.name}.lumping must be one of lumped, consistent, "
                f"got {short_repr(self.lumping)}"
            ) from None

    # -- nodes --------------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return self.strip.n_nodes

    def node(self, k: int) -> Node:
        """The handle of node k, usable as a joint's body (its pose: the node's position,
        identity rotation)."""
        if not (isinstance(k, (int, np.integer)) and 0 <= k < self.n_nodes):
            raise InputError(f"{self.name}: node must be in [0, {self.n_nodes - 1}], got {k!r}")
        return Node(self, int(k))

    def face(self, name: str) -> list[Node]:
        """The nodes of face lower, upper (increasing x), left or right (increasing y)."""
        faces = self.strip.faces()
        if name not in faces:
            raise InputError(f"{self.name}: face must be one of {sorted(faces)}, got {name!r}")
        return [self.node(int(k)) for k in faces[name]]

    @property
    def reference(self) -> np.ndarray:
        """Reference (undeformed) global node positions (n_nodes, 2), m: X."""
        return self.strip.nodes() + self.position[:2]

    def point_weights(self, point: Any) -> list[tuple[int, float]]:
        """(node, weight) pairs of the bilinear interpolation at a point of the strip given in
        its reference coordinates (m, from the lower-left corner): x(point) = sum w_k x_k."""
        s = self.strip
        p = finite_array(f"{self.name} point", point, (2,))
        if not (0 <= p[0] <= s.width and 0 <= p[1] <= s.height):
            raise InputError(
                f"{self.name}: point must lie in [0, {s.width}] x [0, {s.height}], got {p.tolist()}"
            )
        a, b = p[0] / s.width * s.elements_x, p[1] / s.height * s.elements_y
        i, j = min(int(a), s.elements_x - 1), min(int(b), s.elements_y - 1)
        xi, eta = a - i, b - j
        pairs = [
            (s.node(i, j), (1 - xi) * (1 - eta)),
            (s.node(i + 1, j), xi * (1 - eta)),
            (s.node(i + 1, j + 1), xi * eta),
            (s.node(i, j + 1), (1 - xi) * eta),
        ]
        return [(k, float(w)) for k, w in pairs if w > 0]

    # -- matrices (assembled once) ------------------------------------------------------------
    def _matrices(self) -> Any:
        if "m" not in self._cache:
            self._cache["m"] = self.strip.assemble()
        return self._cache["m"]

    @property
    def lumped(self) -> bool:
        return self.lumping is MassLumping.LUMPED

    def mass_matrix(self) -> sp.csr_matrix:
        """M (2n, 2n), kg."""
        m = self._matrices()
        return m.lumped_mass if self.lumped else m.mass

    def stiffness(self) -> sp.csr_matrix:
        """K (2n, 2n), N/m."""
        return self._matrices().stiffness

    def damping(self) -> sp.csr_matrix:
        """Rayleigh C = alpha M + beta K (2n, 2n), N s/m, with the body's mass matrix."""
        return self._matrices().damping(lumped=self.lumped)

    @property
    def mass(self) -> float:
        """Total mass, kg."""
        return self.strip.total_mass

    def describe(self) -> dict:
        """Plain numbers for figures and the animation (a result's meta["flexible"])."""
        s = self.strip
        return {
            "name": self.name,
            "nodes": self.n_nodes,
            "elements": [s.elements_x, s.elements_y],
            "size": [s.width, s.height, s.thickness],
            "position": self.position.tolist(),
            "youngs_modulus": s.youngs_modulus,
            "quads": s.quads().tolist(),
            "corners": s.corners().tolist(),
            "faces": {k: v.tolist() for k, v in s.faces().items()},
        }

    def __repr__(self) -> str:
        return f"FlexibleBody({self.name!r}, {self.n_nodes} nodes)"


@dataclass(frozen=True)
class Node:
    """Node `index` of a FlexibleBody, as a joint or load sees it: a point without rotation."""

    body: FlexibleBody
    index: int

    @property
    def name(self) -> str:
        return f"{self.body.name}[{self.index}]"

    @property
    def position(self) -> np.ndarray:
        """Reference global position (3,), m."""
        return np.r_[self.body.reference[self.index], self.body.position[2]]

    def to_body(self, point_global: np.ndarray) -> np.ndarray:
        """Offset of a global point from the node (a node frame is parallel to the global)."""
        return np.asarray(point_global, float) - self.position

    def vector_to_body(self, vector_global: np.ndarray) -> np.ndarray:
        return np.asarray(vector_global, float)

    def __repr__(self) -> str:
        return f"Node({self.name})"
