"""Flexible bodies in the step (issue 18): Q4 strips whose nodal positions are coordinates of the
per-step NLP and QP, checked against closed forms and a static finite-element solve by scipy."""

from __future__ import annotations

from functools import partial

import casadi as ca
import numpy as np
import pytest
import scipy.sparse.linalg as spla

from nlpmbd import GROUND, HardContact, SimulationOptions, System, simulate
from nlpmbd.errors import InputError
from nlpmbd.model.fem import PlaneStressStrip, node_dofs
from nlpmbd.model.flexible import FlexibleBody
from nlpmbd.model.flexible_loads import PointLoad
from nlpmbd_joints.node_joints import NodePin, node_contacts

G = 9.81


def _strip(nx=2, ny=2, E=1000.0, width=0.6, height=0.5, alpha=0.01, beta=0.544):
    return PlaneStressStrip.from_areal_density(
        width=width,
        height=height,
        elements_x=nx,
        elements_y=ny,
        youngs_modulus=E,
        poisson_ratio=0.3,
        areal_density=1 / 3,
        rayleigh_alpha=alpha,
        rayleigh_beta=beta,
    )


def _run(system, solver, t_end, h=2e-3):
    opts = SimulationOptions(t_end=t_end, h_min=h, h_max=h, solver=solver)
    return simulate(system, opts)


@pytest.mark.parametrize("solver", ["nlp", "qp"])
@pytest.mark.parametrize("lumping", ["lumped", "consistent"])
def test_free_fall_is_rigid_and_exact(solver, lumping):
    """Gravity as body force (M g per node) strains nothing: every node falls as the implicit
    Euler update of a point mass does. Rayleigh's alpha M term damps the translation too (as
    linear drag alpha m v): v_{n+1} = (v_n - g h) / (1 + alpha h), y_{n+1} = y_n + h v_{n+1}."""
    system = System(gravity=(0, -G, 0))
    strip = _strip(alpha=0.5)
    system.add_body(FlexibleBody("strip", strip, position=(0, 1, 0), lumping=lumping))
    h, n = 2e-3, 20
    r = _run(system, solver, n * h, h)
    assert np.all(r.status == 0)
    v, y = [0.0], [0.0]
    for _ in range(n):
        v.append((v[-1] - G * h) / (1 + 0.5 * h))
        y.append(y[-1] + h * v[-1])
    ref = strip.nodes()[None, :, 1] + 1 + np.array(y)[:, None]
    assert np.max(np.abs(r.node_q[:, :, 1] - ref)) < 1e-12
    assert np.max(np.abs(r.node_q[:, :, 0] - strip.nodes()[None, :, 0])) < 1e-12
    assert np.max(np.abs(r.node_v[:, :, 1] - np.array(v)[:, None])) < 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["nlp", "qp"])
def test_resting_strip_carries_its_weight(solver):
    """A soft strip seated on a floor: the lower nodes' normal forces add up to the weight,
    node_force holds them, no node penetrates, and the upper nodes carry nothing."""
    system = System(gravity=(0, -G, 0))
    body = system.add_body(FlexibleBody("strip", _strip(nx=3, ny=2, alpha=0.0, beta=0.01)))
    law = HardContact(mu=0.15, mu_static=0.2)
    for j in node_contacts("floor", GROUND, body.face("lower"), (0, 0, 0), (0, 1, 0), law):
        system.add_joint(j)
    r = _run(system, solver, 0.4)
    weight = body.mass * G
    assert np.all(r.status == 0)
    assert r.lam[-1].sum() == pytest.approx(weight, rel=1e-6)
    assert r.node_force[-1, :, 1].sum() == pytest.approx(weight, rel=1e-6)
    lower = body.strip.faces()["lower"]
    others = np.setdiff1d(np.arange(body.n_nodes), lower)
    assert np.all(r.node_force[:, others] == 0)
    assert np.max(r.gap) <= 1e-9
    # by symmetry the two corners carry equal loads, the inner nodes more (the lumped mass)
    f = r.node_force[-1, lower, 1]
    assert f[0] == pytest.approx(f[-1], rel=1e-6) and f[1] > f[0]


@pytest.mark.parametrize("solver", ["nlp", "qp"])
def test_cantilever_settles_on_the_static_solution(solver):
    """A strip pinned at its left face (NodePin, exact) sags under gravity; with heavy damping
    it comes to rest where K u = f, solved here by scipy on the free DOFs (the implicit step's
    rest state is that equation exactly)."""
    strip = _strip(nx=4, ny=1, E=2e4, width=1.0, height=0.1, alpha=60.0, beta=0.0)
    system = System(gravity=(0, -G, 0))
    body = system.add_body(FlexibleBody("beam", strip))
    for node in body.face("left"):
        system.add_joint(NodePin(f"pin{node.index}", GROUND, node))
    r = _run(system, solver, 1.0, h=5e-3)
    assert np.all(r.status == 0)
    m = strip.assemble()
    f = m.lumped_mass @ np.tile([0.0, -G], strip.n_nodes)
    fixed = node_dofs(strip.faces()["left"])
    free = np.setdiff1d(np.arange(strip.n_dofs), fixed)
    u = np.zeros(strip.n_dofs)
    u[free] = spla.spsolve(m.stiffness[free][:, free].tocsc(), f[free])
    sag = (r.node_q[-1] - strip.nodes()).ravel()
    tip = strip.node(4, 0)
    assert sag[2 * tip + 1] == pytest.approx(u[2 * tip + 1], rel=1e-4)
    assert np.max(np.abs(sag - u)) < 1e-4 * np.max(np.abs(u))
    left = strip.faces()["left"]
    assert np.max(np.abs(r.node_q[:, left] - strip.nodes()[left])) < 1e-9
    assert np.max(np.abs(r.node_v[-1])) < 1e-3 * np.max(np.abs(r.node_v))


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["nlp", "qp"])
def test_pulled_strip_sticks_then_slides_with_coulomb(solver):
    """A stiff strip on a floor, pulled at its right face: below mu W it stays put; above,
    its centre of mass moves as a rigid block under F - mu W, (F - mu W) (t - t0)^2 / (2 m)."""
    out = {}
    for pull in (0.06, 0.15):  # W = 0.4905 N: mu W = 0.0736
        system = System(gravity=(0, -G, 0))
        strip = _strip(nx=2, ny=1, E=1e5, height=0.25, alpha=0.0, beta=1e-3)
        body = system.add_body(FlexibleBody("strip", strip))
        law = HardContact(mu=0.15, mu_static=0.2)
        for j in node_contacts("floor", GROUND, body.face("lower"), (0, 0, 0), (0, 1, 0), law):
            system.add_joint(j)
        # the pull starts once the strip rests with its weight on the floor
        force = partial(_after, 0.1, pull)
        system.add_load(PointLoad(body, (0.6, 0.125), force, "pull"))
        out[pull] = (_run(system, solver, 0.4), body)
    r, body = out[0.06]  # it stays put: only its elastic stretch, 1e-6 m
    assert np.max(np.abs(r.node_q[:, :, 0] - body.reference[:, 0])) < 1e-5
    r, body = out[0.15]
    m = body.mass
    w = m * body.strip.assemble().nodal_masses(lumped=True)
    x_cm = r.node_q[:, :, 0] @ (w / w.sum()) - body.reference[:, 0] @ (w / w.sum())
    expect = (0.15 - 0.15 * m * G) * (r.t - 0.1) ** 2 / (2 * m)
    assert x_cm[-1] == pytest.approx(expect[-1], rel=0.03)
    friction = r.friction_force[-1, :, 0].sum()
    assert friction == pytest.approx(-0.15 * m * G, rel=1e-3)


def _after(t0, value, t, state):
    return [ca.if_else(t > t0, value, 0.0), 0.0]


def test_flexible_needs_euler():
    system = System(gravity=(0, -G, 0))
    system.add_body(FlexibleBody("strip", _strip()))
    with pytest.raises(InputError, match="integrator must be euler"):
        simulate(system, SimulationOptions(t_end=0.01, h_max=2e-3, integrator="verlet"))


def test_point_load_outside_the_strip_is_refused():
    body = FlexibleBody("strip", _strip())
    with pytest.raises(InputError, match=r"point must lie in \[0, 0.6\]"):
        PointLoad(body, (0.7, 0.1), (1.0, 0.0))
