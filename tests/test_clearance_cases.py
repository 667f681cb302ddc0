"""The paper's clearance-joint case studies (docs/FORMULATION.md section 7) against physics."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.rotation import rotation_matrix


def run_case(name: str, t_end: float | None = None, **overrides) -> SimulationResult:
    case = get_case(name)
    names = ("gap_correction", "gap_linearization", "step_control")
    options = {k: overrides.pop(k) for k in list(overrides) if k in names}
    system, _ = case.build(overrides)
    opts = SimulationOptions(
        t_end=t_end or case.t_end, h_min=case.h_min, h_max=case.h_max, **options
    )
    return simulate(system, opts)


def check_every_step(res: SimulationResult) -> None:
    assert res.completed and np.all(res.status < 3), "no failed step"
    assert res.eom_residual.max() <= 1e-8
    assert max(res.penetration_fraction().values()) <= 0.01, "true penetration <= 1% of c"


def test_cylindrical_slider_slides_with_the_applied_acceleration():
    res = run_case("cylindrical")
    check_every_step(res)
    F, m = 10.0, 1.0
    assert res.q[-1, 2] == pytest.approx(F / (2 * m), rel=0.01)  # z(1 s) within 1% of F/(2m)
    assert np.all(res.lam[-10:] > 0.1), "both slider ends on the rod while it slides"
    # Newton's law at the end (steady sliding, a = F/m along Z): the rod carries the weight
    a = (res.v[-1, :3] - res.v[-2, :3]) / res.h[-1]
    contact = res.contact_force[-1].sum(axis=0)
    gravity = np.array([0.0, -9.81 * m, 0.0])
    np.testing.assert_allclose(contact + gravity + [0, 0, F], m * a, atol=1e-6)
    np.testing.assert_allclose(res.force_of("rod")[-1], contact, atol=1e-9)


def test_prismatic_slider_wedges_on_all_six_vertices_then_steps_at_h_max():
    # h at h_max is the NLP's choice of h (its reward for larger h); the controller grows h
    res = run_case("prismatic", step_control="nlp")
    check_every_step(res)
    assert res.q[-1, 2] == pytest.approx(5.0, rel=0.01)
    labels = res.meta["contact_labels"]
    vertex = [lab.split(".")[1].rsplit("_", 1)[0] for lab in labels]  # "front_v0_e2" -> front_v0
    # touching = zero gap (the split of the load among six redundant contacts is not
    # determined by rigid contact: IPOPT returns a central split, the QP predictor a basic one)
    touching = [{v for v, f in zip(vertex, row > -1e-9, strict=True) if f} for row in res.gap]
    assert len(touching[-1]) == 6
    # the contacts carry the weight: total force on the slider (0, m g, 0), m = 1 kg
    np.testing.assert_allclose(res.joint_force[-1, 0], [0.0, 9.81, 0.0], atol=1e-6)
    first = next(n for n, s in enumerate(touching) if len(s) == 6)
    assert res.t[first] < 0.2
    assert all(len(s) == 6 for s in touching[first:])
    # after that h stays at h_max (IPOPT stops 1e-5 inside the bound), except the two steps
    # that land exactly on t_end
    np.testing.assert_allclose(res.h[first:-2], 1e-2, rtol=1e-4)


def test_revolute_pendulum_has_intermittent_contact_and_moves_along_the_pin():
    res = run_case("revolute", t_end=2.0)
    check_every_step(res)
    radial = res.lam[:, :2] > 1e-6  # end1, end2
    switches = int(np.sum(radial[1:] != radial[:-1]))
    assert switches >= 10, "contact is lost and regained"
    # the hole centre (body point (-cm_x, 0, -cm_z)) moves along the pin within the play
    hole = np.array([q[:3] + rotation_matrix(q[3:7]) @ [-0.5, 0.0, -0.05] for q in res.q])
    z = hole[:, 2]
    assert np.max(np.abs(z)) > 1e-6  # the out-of-plane bob pushes the pendulum along Z
    assert np.max(np.abs(z)) <= 0.5e-4 * 1.05  # total axial play 0.1 mm
    assert res.lam[:, 2:].max() > 0.1  # the axial stops are hit
    print(
        f"\nrevolute 2 s: {res.n_steps} steps, {switches} contact switches, max |z| "
        f"{np.max(np.abs(z)):.2e} m, penetration {res.penetration_fraction()}, "
        f"before correction {res.gap_uncorrected.max():.2e} m, dE "
        f"{res.energy[-1, 2] - res.energy[0, 2]:+.4f} J"
    )


@pytest.mark.slow
def test_clearance_pendulum_converges_to_the_ideal_pendulum():
    case = get_case("pendulum")
    opts = SimulationOptions(t_end=1.5, h_min=1e-3, h_max=1e-3)
    ideal = simulate(case.build({})[0], opts)
    deviation = {}
    for c in (1e-2, 1e-3, 1e-4):
        res = simulate(case.build({"joint": "clearance", "clearance": c})[0], opts)
        check_every_step(res)
        deviation[c] = float(np.max(np.abs(res.q[:, :3] - ideal.q[:, :3])))
    print(f"\nmax |r - r_ideal| over 1.5 s: {deviation}")
    assert deviation[1e-2] > deviation[1e-3] > deviation[1e-4]
    assert deviation[1e-4] < 0.2 * deviation[1e-3] and deviation[1e-4] < 1e-3


@pytest.mark.slow
def test_second_order_gap_term_removes_the_curvature_penetration():
    """Sliding contact around the pin: the true gap of the linearised step is violated by
    ~h^2 w^2 l / 2; the second-order term must remove most of it before any projection."""
    # the scalar row's violation (the vector row bounds the whole offset, ~1e-3 c without the
    # term); step_control nlp keeps h at h_max = 2e-3
    kw = {"joint": "clearance", "clearance": 1e-4}
    kw |= {"gap_linearization": "scalar", "step_control": "nlp"}
    plain = run_case("pendulum", t_end=1.0, gap_correction="none", **kw)
    curved = run_case("pendulum", t_end=1.0, gap_correction="curvature", **kw)
    raw_plain, raw_curved = plain.gap_uncorrected.max(), curved.gap_uncorrected.max()
    print(f"\nraw penetration / c: none {raw_plain / 1e-4:.2e}, curvature {raw_curved / 1e-4:.2e}")
    assert raw_plain > 0.02 * 1e-4  # the O(h^2) effect is real at h = 2e-3 ...
    assert raw_curved < 0.1 * raw_plain  # ... and the second-order term removes it
    # neither adds energy beyond the ideal scheme's own oscillation
    for res in (plain, curved):
        assert res.energy[:, 2].max() - res.energy[0, 2] < 0.05


@pytest.mark.slow
def test_formulations_agree_on_a_clearance_joint_at_fixed_step():
    case = get_case("pendulum")
    runs = []
    for form in ("implicit", "mpcc"):
        system, _ = case.build({"joint": "clearance", "clearance": 1e-4})
        opts = SimulationOptions(t_end=0.5, h_min=1e-3, h_max=1e-3, formulation=form)
        runs.append(simulate(system, opts))
    assert runs[0].lam.max() > 1.0  # the pin carries the pendulum through contact
    assert np.max(np.abs(runs[0].q - runs[1].q)) <= 1e-6
    for res in runs:
        check_every_step(res)
