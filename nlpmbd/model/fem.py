"""A flexible planar body: a rectangular strip meshed with Q4 plane-stress elements (issue 18).

Geometry, reference configuration. The strip is `width` (x, m) by `height` (y, m), of uniform
`thickness` (z, m), its lower-left corner at the origin: x in [0, width], y in [0, height]. The
engine places it by adding a translation; the numbering below does not change.

Node numbering. `elements_x` by `elements_y` equal rectangles, nodes row-major from the lower-left
corner: node (i, j), i = 0..elements_x along x and j = 0..elements_y along y, has number
k = j (elements_x + 1) + i. Element (i, j) is number j elements_x + i, its nodes counterclockwise
(i, j), (i+1, j), (i+1, j+1), (i, j+1).

DOF order. Two per node, interleaved: the x displacement of node k at 2k, its y displacement at
2k + 1; x to the right, y up. Matrices (scipy.sparse CSR, symmetric): stiffness K (N/m),
consistent mass M and row-sum lumped mass (kg), Rayleigh damping C = alpha M + beta K (N s/m).
The equations of motion of the nodal displacements u are M u'' + C u' + K u = f (nodal forces,
N, same order); the model is linear (small strains and rotations of the strip).

Faces and corners, as node-number arrays: `faces()["lower"]` (y = 0) and "upper" (y = height)
in increasing x, "left" (x = 0) and "right" (x = width) in increasing y; `corners()` lower-left,
lower-right, upper-right, upper-left; `boundary()` all surface nodes once, counterclockwise from
the lower-left corner (the contact candidates).

Materials. Linear elastic, isotropic: Young's modulus E (Pa), Poisson's ratio nu, plane stress
(sigma_zz = 0, for a thin strip). Density is per volume (kg/m^3); the paper of issue 18 gives an
areal density (kg/m^2): `PlaneStressStrip.from_areal_density` converts, density = areal /
thickness. Assembly is scikit-fem's (model/fem_forms.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..validation import finite_scalar, short_repr

if TYPE_CHECKING:  # SciPy loads on first use: a rigid system's run does not need it
    import scipy.sparse as sp

#: Caps on the elements along a side and in all: far beyond a slider's needs; at the cap, the
#: assembly takes a few GB of memory.
MAX_ELEMENTS_PER_SIDE = 10_000
MAX_ELEMENTS = 1_000_000


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(
            f"{name} must be an integer in [1, {MAX_ELEMENTS_PER_SIDE}], got {short_repr(value)}"
        )
    if not 1 <= value <= MAX_ELEMENTS_PER_SIDE:
        raise InputError(f"{name} must be in [1, {MAX_ELEMENTS_PER_SIDE}], got {value}")
    return int(value)


def _poisson(value: object) -> float:
    nu = finite_scalar("poisson_ratio", value)
    if not -1.0 < nu < 0.5:  # outside, the isotropic material is not positive definite
        raise InputError(f"poisson_ratio must be in (-1, 0.5), got {nu}")
    return nu


def square_mesh(elements: int) -> tuple[int, int]:
    """(elements_x, elements_y) for a total element count: as square as it divides, the longer
    side along x: 25 -> 5 x 5, 4 -> 2 x 2, 8 -> 4 x 2, 3 -> 3 x 1."""
    across = max(d for d in range(1, int(elements**0.5) + 1) if elements % d == 0)
    return elements // across, across


@dataclass(frozen=True)
class PlaneStressStrip:
    """A rectangular Q4 plane-stress strip; see the module docstring for geometry, numbering
    and DOF order. Lengths in m, E in Pa, density in kg/m^3, Rayleigh alpha in 1/s, beta in s."""

    width: float
    height: float
    elements_x: int
    elements_y: int
    youngs_modulus: float
    poisson_ratio: float
    density: float
    thickness: float = 1.0
    rayleigh_alpha: float = 0.0
    rayleigh_beta: float = 0.0

    def __post_init__(self) -> None:
        positive = ("width", "height", "youngs_modulus", "density", "thickness")
        checked: dict[str, Any] = {
            name: finite_scalar(name, getattr(self, name), low=0.0, low_open=True)
            for name in positive
        }
        for name in ("rayleigh_alpha", "rayleigh_beta"):
            checked[name] = finite_scalar(name, getattr(self, name), low=0.0)
        checked["poisson_ratio"] = _poisson(self.poisson_ratio)
        for name in ("elements_x", "elements_y"):
            checked[name] = _count(name, getattr(self, name))
        if checked["elements_x"] * checked["elements_y"] > MAX_ELEMENTS:
            raise InputError(
                f"elements_x * elements_y must be in [1, {MAX_ELEMENTS}], got "
                f"{checked['elements_x'] * checked['elements_y']}"
            )
        for name, value in checked.items():  # plain floats and ints, e.g. from NumPy scalars
            object.__setattr__(self, name, value)

    @classmethod
    def from_areal_density(
        cls, *, areal_density: float, thickness: float = 1.0, **kwargs: Any
    ) -> PlaneStressStrip:
        """The strip with density = areal_density (kg/m^2) / thickness (m); other fields as the
        constructor's keywords."""
        if "density" in kwargs:
            raise InputError("from_areal_density takes areal_density, not density")
        rho_a = finite_scalar("areal_density", areal_density, low=0.0, low_open=True)
        t = finite_scalar("thickness", thickness, low=0.0, low_open=True)
        return cls(density=rho_a / t, thickness=t, **kwargs)

    def with_(self, **changes: Any) -> PlaneStressStrip:
        """A copy with some fields changed (validated again), e.g. a finer mesh."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise InputError(f"PlaneStressStrip has no field {sorted(unknown)[0]!r}")
        return replace(self, **changes)

    # -- sizes ------------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return (self.elements_x + 1) * (self.elements_y + 1)

    @property
    def n_dofs(self) -> int:
        return 2 * self.n_nodes

    @property
    def areal_density(self) -> float:
        """Mass per unit area of the plane, kg/m^2."""
        return self.density * self.thickness

    @property
    def total_mass(self) -> float:
        """density x width x height x thickness, kg."""
        return self.areal_density * self.width * self.height

    # -- numbering --------------------------------------------------------------------------
    def node(self, i: int, j: int) -> int:
        """Number of node (i, j): i = 0..elements_x along x, j = 0..elements_y along y."""
        if not (0 <= i <= self.elements_x and 0 <= j <= self.elements_y):
            raise InputError(
                f"node (i, j) must be in [0, {self.elements_x}] x "
                f"[0, {self.elements_y}], got ({i}, {j})"
            )
        return j * (self.elements_x + 1) + i

    def nodes(self) -> np.ndarray:
        """Reference coordinates (n_nodes, 2), m, in node-number order."""
        x = np.linspace(0.0, self.width, self.elements_x + 1)
        y = np.linspace(0.0, self.height, self.elements_y + 1)
        xx, yy = np.meshgrid(x, y)  # rows: j (y); columns: i (x) -> row-major flatten
        return np.column_stack([xx.ravel(), yy.ravel()])

    def quads(self) -> np.ndarray:
        """Element connectivity (n_elements, 4), node numbers counterclockwise."""
        nx = self.elements_x
        i, j = np.meshgrid(np.arange(nx), np.arange(self.elements_y))
        k = (j * (nx + 1) + i).ravel()
        return np.column_stack([k, k + 1, k + nx + 2, k + nx + 1])

    def faces(self) -> dict[str, np.ndarray]:
        """Node numbers of each face: lower, upper (increasing x), left, right (increasing y)."""
        grid = np.arange(self.n_nodes).reshape(self.elements_y + 1, self.elements_x + 1)
        return {
            "lower": grid[0].copy(),
            "upper": grid[-1].copy(),
            "left": grid[:, 0].copy(),
            "right": grid[:, -1].copy(),
        }

    def corners(self) -> np.ndarray:
        """Node numbers of the corners: lower-left, lower-right, upper-right, upper-left."""
        nx, ny = self.elements_x, self.elements_y
        return np.array([self.node(0, 0), self.node(nx, 0), self.node(nx, ny), self.node(0, ny)])

    def boundary(self) -> np.ndarray:
        """All surface nodes once, counterclockwise from the lower-left corner."""
        f = self.faces()
        return np.concatenate(
            [f["lower"][:-1], f["right"][:-1], f["upper"][::-1][:-1], f["left"][::-1][:-1]]
        )

    # -- matrices ---------------------------------------------------------------------------
    def assemble(self) -> StripMatrices:
        """Stiffness, consistent and lumped mass through scikit-fem (imported here)."""
        from . import fem_forms  # SciPy and scikit-fem on first use

        k, m = fem_forms.stiffness_and_mass(
            self.nodes(),
            self.quads(),
            youngs_modulus=self.youngs_modulus,
            poisson_ratio=self.poisson_ratio,
            thickness=self.thickness,
            density=self.density,
        )
        return StripMatrices(self, k, m, fem_forms.lumped(m))


def node_dofs(nodes: np.ndarray | list[int]) -> np.ndarray:
    """DOF indices of the given node numbers, interleaved: [2k0, 2k0+1, 2k1, 2k1+1, ...]."""
    k = np.asarray(nodes, dtype=int).ravel()
    return np.column_stack([2 * k, 2 * k + 1]).ravel()


@dataclass(frozen=True, eq=False)
class StripMatrices:
    """The assembled strip: (n_dofs, n_dofs) CSR matrices in the interleaved DOF order.

    stiffness K (N/m) has the three rigid-body modes of the free plane (two translations, one
    rotation) as its null space; mass is consistent, lumped_mass its row sums (diagonal)."""

    strip: PlaneStressStrip
    stiffness: sp.csr_matrix
    mass: sp.csr_matrix
    lumped_mass: sp.csr_matrix

    def damping(self, lumped: bool = False) -> sp.csr_matrix:
        """Rayleigh damping C = alpha M + beta K (N s/m), with the consistent or lumped M.

        Mode i of K phi = w^2 M phi then has the damping ratio alpha / (2 w) + beta w / 2."""
        m = self.lumped_mass if lumped else self.mass
        c = self.strip.rayleigh_alpha * m + self.strip.rayleigh_beta * self.stiffness
        import scipy.sparse as sp

        return sp.csr_matrix(c)

    def nodal_masses(self, lumped: bool = False) -> np.ndarray:
        """Mass carried by each node (n_nodes,), kg: the x rows' sums of M; they add up to the
        strip's total mass for either matrix."""
        m = self.lumped_mass if lumped else self.mass
        ones_x = np.zeros(self.strip.n_dofs)
        ones_x[0::2] = 1.0
        return np.asarray(m @ ones_x)[0::2]
