"""`python -m benchmarks.fem_convergence`: the Q4 plane-stress strip (nlpmbd/model/fem.py)
against closed forms, on meshes of increasing density (issue 18's FEM acceptance).

The strip is a slender beam, L = 1 m long (x), h = 0.05 m high (y, L/h = 20), thickness
0.01 m, E = 1 MPa, nu = 0.3, rho = 1000 kg/m^3 (the values only scale the results).

- Axial: the first free-free axial frequency against bar theory f = sqrt(E / rho) / (2 L), with
  consistent mass (a Rayleigh-Ritz upper bound) and row-sum lumped mass (below). The axial
  mode is picked among the lowest modes as the first elastic one whose kinetic energy is > 90 %
  in x (the free-free strip has four bending modes below it). Love's lateral-inertia
  correction, f (1 - (nu pi r / L)^2 / 2) with r^2 = h^2 / 12, is -0.009 %: printed, not applied.
- Bending: the first frequency of the cantilever (every node of the face x = 0 fixed) against
  Euler-Bernoulli 1.8751^2 / (2 pi L^2) sqrt(E I / (rho A)), I = t h^3 / 12, A = t h.
- Static: the tip deflection (the mean y displacement of the face x = L) under a tip load P
  spread over that face as a uniform shear traction, against P L^3 / (3 E I); the shear term
  P L / (k G A), k = 5/6, adds 0.20 % for L/h = 20 and is shown in the last column.

Fully integrated Q4 locks in bending (parasitic shear): the errors are those of elements of
aspect ratio 1; they fall by about 4 per halving of the element size (O(h^2)).
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse.linalg as sla

from nlpmbd.model.fem import PlaneStressStrip, StripMatrices, node_dofs

LENGTH, HEIGHT, THICKNESS = 1.0, 0.05, 0.01
E, NU, RHO = 1.0e6, 0.3, 1000.0
TIP_LOAD = 1.0e-3  # N
#: (elements along x, through the height): elements of aspect ratio 1 for the bending checks
BENDING_MESHES = ((20, 1), (40, 2), (80, 4), (160, 8))
AXIAL_MESHES = ((4, 1), (8, 1), (16, 1), (32, 2))
CANTILEVER_ROOT = 1.8751040687119611  # first root of cos(x) cosh(x) = -1


def beam(elements_x: int, elements_y: int) -> PlaneStressStrip:
    return PlaneStressStrip(
        width=LENGTH,
        height=HEIGHT,
        elements_x=elements_x,
        elements_y=elements_y,
        youngs_modulus=E,
        poisson_ratio=NU,
        density=RHO,
        thickness=THICKNESS,
    )


# -- closed forms ----------------------------------------------------------------------------
def bar_frequency() -> float:
    """First free-free axial frequency of a bar, Hz."""
    return math.sqrt(E / RHO) / (2.0 * LENGTH)


def love_factor() -> float:
    """Love's lateral-inertia factor on the first axial frequency (plane stress, r^2 = h^2/12)."""
    return 1.0 - 0.5 * (NU * math.pi * HEIGHT / math.sqrt(12.0) / LENGTH) ** 2


def cantilever_frequency() -> float:
    """First Euler-Bernoulli bending frequency of the cantilever, Hz."""
    inertia, area = THICKNESS * HEIGHT**3 / 12.0, THICKNESS * HEIGHT
    return CANTILEVER_ROOT**2 / (2 * math.pi * LENGTH**2) * math.sqrt(E * inertia / (RHO * area))


def tip_deflection(shear: bool = False) -> float:
    """P L^3 / (3 E I), plus P L / (k G A) with k = 5/6 if `shear` (Timoshenko), m."""
    inertia, area = THICKNESS * HEIGHT**3 / 12.0, THICKNESS * HEIGHT
    bending = TIP_LOAD * LENGTH**3 / (3.0 * E * inertia)
    shear_modulus = E / (2.0 * (1.0 + NU))
    return bending + (TIP_LOAD * LENGTH / (5.0 / 6.0 * shear_modulus * area) if shear else 0.0)


# -- finite elements -------------------------------------------------------------------------
def _clamped_left(mats: StripMatrices) -> np.ndarray:
    """The free DOFs of the cantilever: all but those of the face x = 0."""
    fixed = node_dofs(mats.strip.faces()["left"])
    return np.setdiff1d(np.arange(mats.strip.n_dofs), fixed)


def fe_axial_frequency(mats: StripMatrices, lumped: bool = False) -> float:
    """First free-free axial frequency, Hz: the first elastic mode > 90 % x kinetic energy."""
    m = (mats.lumped_mass if lumped else mats.mass).tocsc()
    n_modes = min(16, mats.strip.n_dofs - 2)
    # shifted below zero: K is singular (the rigid-body modes), K + 1 M is not
    w2, modes = sla.eigsh(mats.stiffness.tocsc(), k=n_modes, M=m, sigma=-1.0)
    for i in np.argsort(w2)[3:]:
        v = modes[:, i]
        kinetic_x = v[0::2] @ (m[0::2][:, 0::2] @ v[0::2])
        if kinetic_x > 0.9 * (v @ (m @ v)):
            return math.sqrt(w2[i]) / (2 * math.pi)
    raise RuntimeError("no axial mode among the lowest modes")


def fe_cantilever_frequency(mats: StripMatrices) -> float:
    """First frequency of the strip clamped at x = 0, Hz."""
    free = _clamped_left(mats)
    k = mats.stiffness[free][:, free].tocsc()
    m = mats.mass[free][:, free].tocsc()
    w2 = sla.eigsh(k, k=1, M=m, sigma=0.0, return_eigenvectors=False)
    return math.sqrt(w2[0]) / (2 * math.pi)


def fe_tip_deflection(mats: StripMatrices) -> float:
    """Mean y displacement of the face x = L of the cantilever under the tip load TIP_LOAD in
    +y, m; the displacement method is too stiff, so it approaches from below."""
    strip = mats.strip
    free = _clamped_left(mats)
    right = strip.faces()["right"]
    share = np.ones(len(right))
    share[[0, -1]] = 0.5  # a uniform traction on linear edges: half shares at the ends
    force = np.zeros(strip.n_dofs)
    force[2 * right + 1] = TIP_LOAD * share / share.sum()
    u = np.zeros(strip.n_dofs)
    u[free] = sla.spsolve(mats.stiffness[free][:, free].tocsc(), force[free])
    return float(u[2 * right + 1].mean())


# -- tables ----------------------------------------------------------------------------------
def bending_rows() -> list[tuple[int, int, float, float, float]]:
    """(nx, ny, frequency error, deflection error vs Euler-Bernoulli, vs Timoshenko)."""
    rows = []
    for nx, ny in BENDING_MESHES:
        mats = beam(nx, ny).assemble()
        f = fe_cantilever_frequency(mats) / cantilever_frequency() - 1.0
        d = fe_tip_deflection(mats)
        rows.append((nx, ny, f, d / tip_deflection() - 1.0, d / tip_deflection(True) - 1.0))
    return rows


def axial_rows() -> list[tuple[int, int, float, float]]:
    """(nx, ny, consistent-mass error, lumped-mass error) of the free-free axial frequency."""
    rows = []
    for nx, ny in AXIAL_MESHES:
        mats = beam(nx, ny).assemble()
        errors = [fe_axial_frequency(mats, lumped) / bar_frequency() - 1.0 for lumped in (0, 1)]
        rows.append((nx, ny, *errors))
    return rows


def main() -> None:
    tic = time.perf_counter()
    print(
        f"slender strip L = {LENGTH} m, h = {HEIGHT} m (L/h = {LENGTH / HEIGHT:.0f}), "
        f"t = {THICKNESS} m, E = {E:g} Pa, nu = {NU}, rho = {RHO:g} kg/m^3"
    )
    print(
        f"\nfree-free axial, bar theory f = {bar_frequency():.6g} Hz "
        f"(Love's correction {love_factor() - 1:+.4%}, not applied)"
    )
    print(f"{'mesh':>8} {'consistent M':>13} {'lumped M':>10}")
    for nx, ny, cons, lump in axial_rows():
        print(f"{nx:>4}x{ny:<3} {cons:>+13.4%} {lump:>+10.4%}")
    print(
        f"\ncantilever, Euler-Bernoulli f1 = {cantilever_frequency():.6g} Hz, "
        f"tip deflection {tip_deflection():.6g} m (with shear {tip_deflection(True):.6g} m)"
    )
    print(f"{'mesh':>8} {'f1':>9} {'tip EB':>9} {'tip Timo':>9}")
    for nx, ny, f, d_eb, d_t in bending_rows():
        print(f"{nx:>4}x{ny:<3} {f:>+9.3%} {d_eb:>+9.3%} {d_t:>+9.3%}")
    print(f"\n({time.perf_counter() - tic:.2f} s)")


if __name__ == "__main__":
    main()
