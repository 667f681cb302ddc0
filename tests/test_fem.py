"""The Q4 plane-stress strip of nlpmbd/model/fem.py against closed forms: numbering, element
matrices, rigid-body modes, mass, axial and bending frequencies, tip deflection, Rayleigh
damping (issue 18). The beam checks share benchmarks/fem_convergence.py's solvers and meshes."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg as la

from benchmarks import fem_convergence as fc
from nlpmbd.errors import InputError
from nlpmbd.model.fem import PlaneStressStrip, node_dofs

BASE = dict(
    width=0.6,
    height=0.5,
    elements_x=5,
    elements_y=3,
    youngs_modulus=1000.0,
    poisson_ratio=0.3,
    density=2.0,
    thickness=0.25,
)


def _strip(**changes) -> PlaneStressStrip:
    return PlaneStressStrip(**{**BASE, **changes})


@pytest.fixture(scope="module")
def mats():
    return _strip().assemble()


# -- numbering -------------------------------------------------------------------------------
def test_node_numbering_faces_and_corners():
    s = _strip()
    xy = s.nodes()
    assert xy.shape == (s.n_nodes, 2) == (24, 2)
    assert np.allclose(xy[s.node(2, 1)], [0.24, 0.5 / 3])  # row-major from the lower-left
    assert s.node(2, 1) == 1 * 6 + 2
    faces = s.faces()
    assert np.all(xy[faces["lower"], 1] == 0) and np.all(np.diff(xy[faces["lower"], 0]) > 0)
    assert np.allclose(xy[faces["upper"], 1], 0.5) and np.all(np.diff(xy[faces["upper"], 0]) > 0)
    assert np.all(xy[faces["left"], 0] == 0) and np.all(np.diff(xy[faces["left"], 1]) > 0)
    assert np.allclose(xy[faces["right"], 0], 0.6) and np.all(np.diff(xy[faces["right"], 1]) > 0)
    assert np.allclose(xy[s.corners()], [[0, 0], [0.6, 0], [0.6, 0.5], [0, 0.5]])
    ring = s.boundary()
    assert len(ring) == len(set(ring)) == 2 * (5 + 3) and ring[0] == s.corners()[0]
    # counterclockwise: the shoelace area of the ring is the strip's, positive
    x, y = xy[ring].T
    assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) == pytest.approx(0.3)
    assert node_dofs([3, 7]).tolist() == [6, 7, 14, 15]


def test_elements_counterclockwise_and_covering():
    s = _strip()
    x, y = s.nodes()[s.quads()].transpose(2, 0, 1)
    areas = 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)
    assert len(areas) == 15 and np.allclose(areas, 0.6 * 0.5 / 15)


# -- element matrices (DOF order and plane stress) ----------------------------------------------
def test_square_element_stiffness_is_the_textbook_plane_stress_q4():
    """Sigmund's 99-line code's KE (nodes counterclockwise from the lower-left, x y each)."""
    nu, e, t = 0.3, 2.0, 0.7
    s = PlaneStressStrip(
        width=1.3,
        height=1.3,
        elements_x=1,
        elements_y=1,
        youngs_modulus=e,
        poisson_ratio=nu,
        density=3.0,
        thickness=t,
    )
    k = [
        1 / 2 - nu / 6,
        1 / 8 + nu / 8,
        -1 / 4 - nu / 12,
        -1 / 8 + 3 * nu / 8,
        -1 / 4 + nu / 12,
        -1 / 8 - nu / 8,
        nu / 6,
        1 / 8 - 3 * nu / 8,
    ]
    pattern = [
        "12345678",
        "21876543",
        "38167452",
        "47618325",
        "56781234",
        "65432187",
        "74523816",
        "83254761",
    ]
    ke = e * t / (1 - nu**2) * np.array([[k[int(c) - 1] for c in row] for row in pattern])
    dofs = node_dofs(s.quads()[0])
    mats = s.assemble()
    assert np.allclose(mats.stiffness.toarray()[np.ix_(dofs, dofs)], ke, rtol=0, atol=1e-14)
    # consistent mass of a rectangle: m / 36 [4 2 1 2; ...] per direction, no x-y coupling
    m4 = 3.0 * t * 1.3**2 / 36 * la.circulant([4, 2, 1, 2])
    assert np.allclose(mats.mass.toarray()[np.ix_(dofs, dofs)], np.kron(m4, np.eye(2)))


def test_uniform_stretch_energy_is_plane_stress(mats):
    """u = (x, -nu y): sigma_xx = E, sigma_yy = 0 in plane stress, so u'Ku = E V and the
    nodal forces are E h t on the face x = W, nothing on the others (a patch test)."""
    s = mats.strip
    x, y = s.nodes().T
    u = np.column_stack([x, -s.poisson_ratio * y]).ravel()
    f = mats.stiffness @ u
    volume = s.width * s.height * s.thickness
    assert u @ f == pytest.approx(s.youngs_modulus * volume, rel=1e-12)
    faces = s.faces()
    assert f[2 * faces["right"]].sum() == pytest.approx(s.youngs_modulus * s.height * s.thickness)
    inner = np.setdiff1d(np.arange(s.n_nodes), np.concatenate([faces["left"], faces["right"]]))
    assert np.abs(f[node_dofs(inner)]).max() < 1e-12 * np.abs(f).max()
    assert np.abs(f[1::2]).max() < 1e-12 * np.abs(f).max()


# -- rigid-body modes and mass -------------------------------------------------------------
def test_stiffness_has_exactly_the_three_rigid_body_modes(mats):
    k = mats.stiffness.toarray()
    assert np.array_equal(k, k.T)
    eig = np.linalg.eigvalsh(k)
    assert np.all(np.abs(eig[:3]) < 1e-12 * eig[-1]) and eig[3] > 1e-4 * eig[-1]
    x, y = mats.strip.nodes().T
    norm_k = np.linalg.norm(k, 2)
    for field in ((1 + 0 * x, 0 * y), (0 * x, 1 + 0 * y), (-(y - 0.2), x - 0.1)):
        u = np.column_stack(field).ravel()
        assert np.linalg.norm(k @ u) <= 1e-10 * norm_k * np.linalg.norm(u)
    w2 = la.eigh(k, mats.mass.toarray(), eigvals_only=True)
    assert np.sum(np.abs(w2) < 1e-9 * w2[-1]) == 3


@pytest.mark.parametrize("lumped", [False, True])
def test_mass_totals(mats, lumped):
    s = mats.strip
    m = mats.lumped_mass if lumped else mats.mass
    total = s.density * s.width * s.height * s.thickness
    assert total == pytest.approx(s.total_mass)
    ones_x = np.tile([1.0, 0.0], s.n_nodes)
    ones_y = np.tile([0.0, 1.0], s.n_nodes)
    assert ones_x @ (m @ ones_x) == pytest.approx(total, rel=1e-13)
    assert ones_y @ (m @ ones_y) == pytest.approx(total, rel=1e-13)
    assert ones_x @ (m @ ones_y) == 0.0
    nodal = mats.nodal_masses(lumped)
    assert nodal.shape == (s.n_nodes,) and np.all(nodal > 0)
    assert nodal.sum() == pytest.approx(total, rel=1e-13)
    # every node carries a quarter of each element it belongs to
    elements = np.bincount(s.quads().ravel(), minlength=s.n_nodes)
    assert np.allclose(nodal, elements * total / (4 * 15))


def test_consistent_mass_rotational_inertia_is_exact(mats):
    s = mats.strip
    x, y = s.nodes().T
    u = np.column_stack([-y, x]).ravel()  # rotation about the origin: exactly bilinear
    w, h = s.width, s.height
    polar = s.areal_density * (h * w**3 + w * h**3) / 3.0  # about the lower-left corner
    assert u @ (mats.mass @ u) == pytest.approx(polar, rel=1e-12)
    assert np.allclose(mats.lumped_mass.toarray(), np.diag(mats.lumped_mass.diagonal()))


# -- frequencies and deflection against beam theory --------------------------------------------
def test_axial_frequency_converges_to_bar_theory():
    rows = fc.axial_rows()
    consistent = np.array([r[2] for r in rows])
    lumped = np.array([r[3] for r in rows])
    # Rayleigh-Ritz: the consistent mass bounds the (Love-corrected) frequency from above
    assert np.all(consistent > fc.love_factor() - 1.0) and np.all(lumped < 0)
    assert np.all(np.abs(consistent[1:]) < np.abs(consistent[:-1]) / 3)  # O(h^2)
    assert np.all(np.abs(lumped[1:]) < np.abs(lumped[:-1]) / 3)
    assert abs(consistent[-1]) < 0.02 and abs(lumped[-1]) < 0.02
    assert abs(consistent[1]) < 0.01  # 8 elements along the bar already


def test_cantilever_frequency_and_tip_deflection_converge():
    rows = fc.bending_rows()
    freq = np.array([r[2] for r in rows])
    tip = np.array([r[3] for r in rows])
    tip_shear = np.array([r[4] for r in rows])
    # Q4 locks in bending: too stiff on every mesh, the error O(h^2) with aspect-1 elements
    assert np.all(freq > 0) and np.all(tip < 0) and np.all(tip_shear < 0)
    assert np.all(freq[1:] < freq[:-1] / 3) and np.all(tip[1:] > tip[:-1] / 3)
    assert freq[0] > 0.1  # one element through the height is far off: the test can see locking
    assert abs(freq[-1]) < 0.02 and abs(tip[-1]) < 0.02 and abs(tip_shear[-1]) < 0.02


def test_cantilever_frequency_scales_as_theory():
    """f1 ~ h sqrt(E / rho) / L^2 at a fixed mesh: doubling E, halving rho, halving L."""
    base = fc.beam(40, 2)
    f0 = fc.fe_cantilever_frequency(base.assemble())
    stiffer = base.with_(youngs_modulus=4 * fc.E, density=fc.RHO / 4)
    assert fc.fe_cantilever_frequency(stiffer.assemble()) == pytest.approx(4 * f0, rel=1e-9)
    scaled = base.with_(width=2 * fc.LENGTH, height=2 * fc.HEIGHT, thickness=7.0)
    assert fc.fe_cantilever_frequency(scaled.assemble()) == pytest.approx(f0 / 2, rel=1e-9)


# -- Rayleigh damping -----------------------------------------------------------------------
def test_rayleigh_damping_matrix_and_modal_ratios():
    s = fc.beam(8, 2).with_(rayleigh_alpha=0.3, rayleigh_beta=2e-4)
    mats = s.assemble()
    c = mats.damping()
    assert abs(c - (0.3 * mats.mass + 2e-4 * mats.stiffness)).max() == 0.0
    assert (
        abs(mats.damping(lumped=True) - (0.3 * mats.lumped_mass + 2e-4 * mats.stiffness)).max()
        == 0.0
    )
    free = fc._clamped_left(mats)
    k, m, cf = (a.toarray()[np.ix_(free, free)] for a in (mats.stiffness, mats.mass, c))
    w2, phi = la.eigh(k, m)
    w = np.sqrt(w2)
    zeta = 0.3 / (2 * w) + 2e-4 * w / 2
    assert np.max(zeta) < 0.9  # all modes underdamped, so every pair below is complex
    assert np.allclose(np.diag(phi.T @ cf @ phi), 2 * zeta * w, rtol=1e-9)
    # the damped system's eigenvalues: lambda = w (-zeta +- i sqrt(1 - zeta^2))
    n = len(free)
    a = np.block([[np.zeros((n, n)), np.eye(n)], [-la.solve(m, k), -la.solve(m, cf)]])
    lam = np.linalg.eigvals(a)
    lam = lam[lam.imag > 0]
    lam = lam[np.argsort(np.abs(lam))]
    assert np.allclose(np.abs(lam), w, rtol=1e-7)
    assert np.allclose(-lam.real / np.abs(lam), zeta, rtol=1e-6)


# -- inputs ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "field, value",
    [
        ("width", 0.0),
        ("height", -1.0),
        ("thickness", math.inf),
        ("youngs_modulus", 0),
        ("density", "1"),
        ("poisson_ratio", 0.5),
        ("poisson_ratio", -1.0),
        ("rayleigh_alpha", -0.1),
        ("rayleigh_beta", math.nan),
        ("elements_x", 0),
        ("elements_y", 2.0),
        ("elements_x", True),
        ("elements_y", 10_001),
    ],
)
def test_bad_parameters_raise_one_line(field, value):
    with pytest.raises(InputError, match=field) as info:
        _strip(**{field: value})
    assert "\n" not in str(info.value)


def test_total_element_limit_and_unknown_field():
    with pytest.raises(InputError, match=r"elements_x \* elements_y"):
        _strip(elements_x=2000, elements_y=2000)
    with pytest.raises(InputError, match="young"):
        _strip().with_(young=1.0)
    with pytest.raises(InputError, match=r"node \(i, j\)"):
        _strip().node(6, 0)


def test_areal_density_constructor():
    base = {k: v for k, v in BASE.items() if k not in ("density", "thickness")}
    s = PlaneStressStrip.from_areal_density(areal_density=1 / 3, thickness=0.01, **base)
    assert s.density == pytest.approx(100 / 3) and s.areal_density == pytest.approx(1 / 3)
    assert s.total_mass == pytest.approx(0.6 * 0.5 / 3)
    assert s.assemble().nodal_masses().sum() == pytest.approx(0.1)
    with pytest.raises(InputError, match="areal_density"):
        PlaneStressStrip.from_areal_density(areal_density=0.0, **base)
    with pytest.raises(InputError, match="not density"):
        PlaneStressStrip.from_areal_density(areal_density=1.0, density=1.0, **base)
    assert isinstance(_strip(elements_x=np.int64(4)).elements_x, int)


@pytest.mark.slow
def test_scikit_fem_is_imported_only_to_assemble():
    code = (
        "import sys, nlpmbd.model.fem as f; assert 'skfem' not in sys.modules; "
        "f.PlaneStressStrip(width=1, height=1, elements_x=1, elements_y=1, youngs_modulus=1, "
        "poisson_ratio=0, density=1).assemble(); assert 'skfem' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
