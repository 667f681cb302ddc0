"""SpringDamperContact (model/contact.py): the linear spring-damper contact of Zheng and Wang,
implicit in the step, against closed forms and against the independent reference of the flexible
stick-slip oscillator (references/ref_flexible_slider.py: Radau on the same penalty law)."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import pytest

from nlpmbd import SimulationOptions, System, simulate
from nlpmbd.errors import InputError
from nlpmbd.model.bodies import RigidBody
from nlpmbd.model.contact import SpringDamperContact
from nlpmbd_joints import PlaneContact

G, MASS, K, CHI = 9.81, 1.0, 1e4, 20.0  # w = 100 rad/s, damping ratio 0.1


def _block(solver: str, t_end: float, h: float):
    """A point mass touching a floor at rest: it sinks onto the spring-damper."""
    system = System(gravity=(0, -G, 0))
    body = system.add_body(RigidBody("block", MASS, (1e-2, 1e-2, 1e-2), position=(0, 0.1, 0)))
    law = SpringDamperContact(stiffness=K, damping=CHI)
    system.add_joint(PlaneContact("floor", body, [(0, -0.1, 0)], contact=law))
    opts = SimulationOptions(t_end=t_end, h_min=h, h_max=h, solver=solver)
    return simulate(system, opts)


@pytest.mark.slow
@pytest.mark.parametrize("solver, t_end", [("nlp", 0.08), ("qp", 0.8)])
def test_block_sinks_like_the_damped_oscillator(solver, t_end):
    """m x'' + chi x' + K x = m g from rest: the penetration follows the step response of the
    damped oscillator (to the first-order scheme's accuracy at h w = 0.01) and comes to rest on
    m g / K, where the force is the weight."""
    r = _block(solver, t_end, 1e-4)
    assert np.all(r.status == 0)
    depth = r.gap[:, 0]
    static = MASS * G / K
    w, z = np.sqrt(K / MASS), CHI / (2 * np.sqrt(K * MASS))
    wd = w * np.sqrt(1 - z**2)
    t = r.t
    exact = static * (
        1 - np.exp(-z * w * t) * (np.cos(wd * t) + z / np.sqrt(1 - z**2) * np.sin(wd * t))
    )
    assert np.max(np.abs(depth - exact)) < 0.03 * static
    assert depth.max() == pytest.approx(exact.max(), rel=0.02)  # the overshoot, 1.73 m g / K
    if t_end > 0.5:  # e^(-z w t) = 3e-4
        assert depth[-1] == pytest.approx(static, rel=1e-3)
        assert r.lam[-1, 0] == pytest.approx(MASS * G, rel=1e-3)


def test_spring_damper_refuses_restitution():
    with pytest.raises(InputError, match="restitution must be 0"):
        SpringDamperContact(stiffness=1e4, restitution=0.5)
    with pytest.raises(InputError, match="stiffness"):
        SpringDamperContact(stiffness=0.0)


@pytest.mark.slow
def test_flexible_oscillator_agrees_with_the_reference():
    """stick_slip with the flexible slider and the paper's spring-damper nodes (K = 1e4 N/m,
    chi = 1e3 N s/m) against references/ref_flexible_slider.py over the first stick and slip:
    the slider's centre within 2 mm (measured 0.6 mm; over 20 s 9 mm of a 1.37 m swing), the
    breakaway within 0.03 s. The reference smooths Coulomb's law (tanh, v_eps = 1e-5 m/s)."""
    from reference_cache import cached

    from nlpmbd_cases import REGISTRY
    from references.ref_flexible_slider import intervals, stick_mask
    from references.ref_flexible_slider import simulate as reference

    T = 2.5
    # the 8 s run tests/test_ref_flexible_slider.py checks, computed once and kept by content
    # (tests/reference_cache.py), cut at T
    full = cached(reference, 8.0)
    n = int(np.searchsorted(full.t, T, side="right"))
    ref = replace(
        full,
        **{
            f.name: getattr(full, f.name)[:n]
            for f in fields(full)
            if np.shape(getattr(full, f.name))[:1] == full.t.shape
        },
    )
    system = REGISTRY["stick_slip"].build({"slider": "flexible", "contact": "spring_damper"})[0]
    r = simulate(system, SimulationOptions(t_end=T, h_min=2e-3, h_max=2e-3, solver="qp"))
    assert np.all(r.status == 0)
    w = ref.nodal_mass / ref.nodal_mass.sum()
    x_ref = ref.positions[:, :, 0] @ w - ref.positions[0, :, 0] @ w
    x = r.node_q[:, :, 0].mean(1) - r.node_q[0, :, 0].mean()
    assert np.max(np.abs(np.interp(ref.t, r.t, x) - x_ref)) < 2e-3
    ours = intervals(r.t, np.abs(r.node_v[:, :, 0].mean(1)) < 1e-3)[0]
    theirs = intervals(ref.t, stick_mask(ref))[0]
    assert ours[0] == 0.0 and abs(ours[1] - theirs[1]) < 0.03


@pytest.mark.parametrize("solver", ["qp", "nlp"])
def test_a_soft_pin_carries_its_load_by_the_springs_penetration(solver):
    """A body hanging from a revolute clearance pin (both ends) with a SpringDamperContact:
    it drops through the clearance and settles where the two ends' springs carry its weight,
    2 K delta = m g, on both paths under the vector linearisation (the QP's cutting planes held
    the pin in its disc as a hard one: delta ~1e-10 m)."""
    from nlpmbd import GROUND
    from nlpmbd_joints import RevoluteClearance

    m, K, c = 2.0, 2e4, 1e-3
    system = System(gravity=(0, -9.81, 0))
    body = system.add_body(RigidBody("bob", m, (0.01, 0.01, 0.01), position=(0, -0.3, 0)))
    law = SpringDamperContact(stiffness=K, damping=2 * np.sqrt(2 * K * m))  # critical
    system.add_joint(
        RevoluteClearance(
            "pin", GROUND, body, (0, 0, 0), (0, 0, 1), length=0.05, hole_radius=0.01 + c,
            pin_radius=0.01, axial_play=0.0, contact=law,
        )
    )  # fmt: skip
    options = SimulationOptions(t_end=0.5, h_min=1e-3, h_max=1e-3, solver=solver)
    r = simulate(system, options)
    assert r.meta["solver_path"] == solver
    delta = r.gap[-1]
    assert np.allclose(delta, m * 9.81 / (2 * K), rtol=1e-3), delta
