"""Assembly of Q4 plane-stress stiffness and mass matrices through scikit-fem (`skfem`).

Plain arrays in, scipy.sparse CSR matrices out, in the interleaved DOF order of the caller's
node numbering: x of node k at 2k, y at 2k + 1. skfem is imported inside the functions so that
`import nlpmbd` does not load it. The strip's geometry and numbering live in model/fem.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp


def _basis(nodes: np.ndarray, quads: np.ndarray) -> Any:
    """A vector Q4 basis on the mesh `nodes` (n, 2), `quads` (e, 4) counterclockwise."""
    from skfem import Basis, ElementQuad1, ElementVector, MeshQuad

    mesh = MeshQuad(np.ascontiguousarray(nodes.T), np.ascontiguousarray(quads.T))
    # 2 x 2 Gauss (skfem's intorder 2 or 3), the full integration of Q4, no reduced one (Q4 as
    # the paper uses it): exact for the mass of any quadrilateral and the stiffness of rectangles.
    basis = Basis(mesh, ElementVector(ElementQuad1()), intorder=2)
    expected = np.arange(2 * len(nodes)).reshape(-1, 2).T
    if not np.array_equal(basis.nodal_dofs, expected):  # skfem's order has been interleaved
        raise RuntimeError("scikit-fem numbered the vector DOFs differently than x, y per node")
    return basis


def plane_stress_lame(youngs_modulus: float, poisson_ratio: float) -> tuple[float, float]:
    """Lame parameters (lambda*, mu) of plane stress, in Pa.

    skfem's `linear_elasticity(lambda, mu)` is the 2D operator of plane strain when given the 3D
    Lame parameters; plane stress (sigma_zz = 0) is the same operator with
    lambda* = 2 lambda mu / (lambda + 2 mu) = E nu / (1 - nu^2) and the same mu = E / (2 (1 + nu)).
    """
    from skfem.models.elasticity import lame_parameters

    lam, mu = lame_parameters(youngs_modulus, poisson_ratio)
    return 2.0 * lam * mu / (lam + 2.0 * mu), mu


def stiffness_and_mass(
    nodes: np.ndarray,
    quads: np.ndarray,
    *,
    youngs_modulus: float,
    poisson_ratio: float,
    thickness: float,
    density: float,
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(K, M) of a plane-stress membrane of uniform `thickness` (m): K in N/m, M (consistent) in
    kg, both (2n, 2n) CSR, symmetric. `density` is per volume (kg/m^3)."""
    from skfem import BilinearForm
    from skfem.helpers import dot
    from skfem.models.elasticity import linear_elasticity

    basis = _basis(nodes, quads)
    lam, mu = plane_stress_lame(youngs_modulus, poisson_ratio)

    @BilinearForm
    def mass(u: Any, v: Any, _: Any) -> Any:
        return dot(u, v)

    # Both forms are per unit thickness in the plane; the membrane is uniform through it.
    stiffness = thickness * linear_elasticity(lam, mu).assemble(basis)
    consistent = (density * thickness) * mass.assemble(basis)
    return _symmetric_csr(stiffness), _symmetric_csr(consistent)


def lumped(mass: sp.spmatrix) -> sp.csr_matrix:
    """Row-sum lumping: diagonal CSR with the row sums of `mass` (positive for Q4 on convex
    quadrilaterals); it keeps the total mass and the first moments of mass exact."""
    return sp.diags(np.asarray(mass.sum(axis=1)).ravel()).tocsr()


def _symmetric_csr(a: sp.spmatrix) -> sp.csr_matrix:
    """`a` as CSR with the round-off asymmetry of the quadrature removed (the engine may rely on
    exact symmetry, e.g. for a Cholesky factorization)."""
    a = sp.csr_matrix(a)
    out = sp.csr_matrix(0.5 * (a + a.T))
    out.sort_indices()
    return out
