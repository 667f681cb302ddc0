"""The source papers' mechanisms against independent references (issue 6): closed-form ideal
slider-crank, minimal-coordinate crank-rocker, and a Moreau midpoint LCP slider-crank."""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference_cache import cached

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd_joints.guide_data import crank_angle, permanent_contact_angle, poincare_points
from nlpmbd_joints.guide_files import save_mechanism_figures
from references import ref_crank_rocker, ref_slider_crank_ideal, ref_slider_crank_lcp


def _run(case_name: str, overrides: dict, t_end: float, h: float, **options):
    case = get_case(case_name)
    system, _ = case.build(overrides)
    return simulate(system, SimulationOptions(t_end=t_end, h_min=h, h_max=h, **options))


def _step_start(r) -> np.ndarray:
    """Row n of a force array belongs to the step [t_{n-1}, t_n], evaluated at its start."""
    return np.r_[0.0, r.t[:-1]]


def _step_middle(r) -> np.ndarray:
    """The second-order scheme's force rows are the step's mean force (step/verlet.py): at the
    middle of [t_{n-1}, t_n] to O(h^2)."""
    return np.r_[0.0, 0.5 * (r.t[:-1] + r.t[1:])]


# each scheme's force rows belong to their own time in the step
@pytest.mark.slow
@pytest.mark.parametrize(
    ("integrator", "row_time"), [("euler", _step_start), ("verlet", _step_middle)]
)
def test_ideal_driven_slider_crank_matches_the_closed_form(integrator, row_time):
    """Kinematics plus power balance (ref_slider_crank_ideal): driving moment and slider
    acceleration within 0.5% of their peaks after the first millisecond."""
    h = 1e-5
    r = _run("slider_crank_driven", {"guide": "ideal"}, 0.024, h, integrator=integrator)
    ref = ref_slider_crank_ideal.ideal_slider_crank(row_time(r))
    after = r.t > 1e-3
    moment = r.driving_load("drive")
    accel = np.r_[np.nan, np.diff(r.v[:, 12]) / np.diff(r.t)]  # slider x, per step
    m_err = np.abs(moment[after] - ref.driving_moment[after]).max()
    a_err = np.abs(accel[after] - ref.x_ddot[after]).max()
    assert m_err <= 0.005 * np.abs(ref.driving_moment).max()
    assert a_err <= 0.005 * np.abs(ref.x_ddot).max()
    # the positions at the time points themselves
    at = ref_slider_crank_ideal.ideal_slider_crank(r.t)
    assert np.abs(r.q[:, 14] - at.x).max() < 2e-6


@pytest.mark.slow
@pytest.mark.parametrize("damping", [0.0, 8.0])
def test_crank_rocker_matches_the_minimal_coordinate_reference(damping):
    """Driving moment, slot normal force and friction force over one crank turn (the paper's
    Figs. 5-6) against ref_crank_rocker, away (10 deg) from the crank angles where the normal
    force or the sliding velocity changes sign: there nlpmbd's slider crosses the slot's play
    while the reference's bilateral slot switches sides at once."""
    case = get_case("crank_rocker")
    r = _run("crank_rocker", {"damping": damping}, 2 * np.pi / 3, 1e-3)
    theta = 3.0 * _step_start(r)
    ref = ref_crank_rocker.crank_rocker_reference(theta, damping)
    labels = r.meta["contact_labels"]
    side = np.array([1.0 if s.endswith("lower") else -1.0 for s in labels])
    normal = r.lam @ side
    axis = np.array([_body_x(q) for q in r.body_q("rocker")])
    friction = np.einsum("nkj,nj->n", r.friction_force, axis)
    fine = ref_crank_rocker.crank_rocker_reference(np.linspace(0, 2 * np.pi, 20001), damping)
    flips = np.concatenate(
        [
            fine.theta[np.flatnonzero(np.diff(np.sign(a)) != 0)]
            for a in (fine.normal_force, fine.friction_force)
        ]
    )
    away = (r.t > 0.3) & (np.min(np.abs(theta[:, None] - flips[None, :]), axis=1) > np.radians(10))
    assert away.mean() > 0.75
    for ours, theirs in (
        (r.driving_load("drive"), ref.drive_moment),
        (normal, ref.normal_force),
        (friction, ref.friction_force),
    ):
        assert np.abs(ours[away] - theirs[away]).max() <= 0.01 * np.abs(theirs).max()
    assert case.t_end == pytest.approx(4 * np.pi / 3)


def _body_x(q: np.ndarray) -> np.ndarray:
    e0, e1, e2, e3 = q[3:7]
    return np.array(
        [e0**2 + e1**2 - e2**2 - e3**2, 2 * (e1 * e2 + e0 * e3), 2 * (e1 * e3 - e0 * e2)]
    )


@pytest.mark.slow
def test_slider_crank_agrees_with_a_moreau_midpoint_lcp_implementation(tmp_path):
    """flores_leine_glocker Table 1 (e = 0.4, mu = 0.01, 150 rad/s, undriven) against
    ref_slider_crank_lcp (minimal coordinates, Moreau midpoint step, Lemke LCP): first impact,
    start of permanent contact, and two crank revolutions, within the reference's own change
    from h = 1e-5 s to 1e-6 s."""
    h, c = 1e-5, 1e-3
    r = _run("slider_crank", {}, 0.14, h)
    # computed once, kept by content (tests/reference_cache.py): 140 000 Lemke steps at 1e-6 s
    ref = cached(ref_slider_crank_lcp.simulate, h)
    fine = cached(ref_slider_crank_lcp.simulate, 1e-6)
    # first impact: first step with a normal force, placed in it by the approach speed
    k = int(np.argmax(r.lam.max(axis=1) > 1e-6))
    g0, g1 = r.gap[k - 1].max(), r.gap[k - 2].max()
    ours_impact = r.t[k - 1] + min(max(-g0 / ((g0 - g1) / h), 0.0), h)
    ref_impact = ref_slider_crank_lcp.first_impact_time(ref)
    assert abs(ours_impact - ref_impact) <= h
    # permanent contact
    ours_angle = permanent_contact_angle(r, c)
    spread = abs(
        ref_slider_crank_lcp.permanent_contact_angle(ref)
        - ref_slider_crank_lcp.permanent_contact_angle(fine)
    )
    assert abs(ours_angle - ref_slider_crank_lcp.permanent_contact_angle(ref)) <= max(
        2 * spread, math.radians(0.5)
    )
    # two revolutions
    theta = crank_angle(r)
    j = int(np.argmax(theta >= 4 * np.pi))
    ours_t2 = r.t[j - 1] + (4 * np.pi - theta[j - 1]) / (theta[j] - theta[j - 1]) * h
    ref_t2 = ref_slider_crank_lcp.revolution_time(ref, 2)
    spread_t2 = abs(ref_t2 - ref_slider_crank_lcp.revolution_time(fine, 2))
    assert abs(ours_t2 - ref_t2) <= 1.5 * spread_t2
    # the corner plot of our run is drawn (the side-by-side figure: benchmarks/paper_cases.py)
    paths = save_mechanism_figures(r, tmp_path, clearance=c, half_width=0.025, half_length=0.05)
    assert any(p.name == "slider_path.png" and p.stat().st_size > 0 for p in paths)


@pytest.mark.slow
@pytest.mark.parametrize("guide", ["hard", "compliant"])
def test_clearance_sweep_moment_peaks_shrink_towards_the_ideal_joint(guide, tmp_path):
    """flores_et_al_2008 Fig. 10 over one crank turn: the peak driving moment falls as the
    clearance shrinks and approaches the ideal joint's; the Poincare map is drawn."""
    h, t_end = 1e-5, 0.0132  # a little over one turn at 5000 rpm
    ideal = _run("slider_crank_driven", {"guide": "ideal"}, t_end, h)
    after = ideal.t > 1e-3
    peak_ideal = np.abs(ideal.driving_load("drive")[after]).max()
    peaks, runs = [], []
    for c in (0.5e-3, 0.1e-3, 0.01e-3):
        r = _run("slider_crank_driven", {"guide": guide, "clearance": c}, t_end, h)
        peaks.append(np.abs(r.driving_load("drive")[after]).max())
        runs.append((f"c = {c * 1e3:g} mm", r))
    assert peaks[0] > peaks[1] > peaks[2] > peak_ideal
    assert peaks[2] - peak_ideal < 0.25 * (peaks[0] - peak_ideal)
    t, y, _ = poincare_points(runs[0][1])
    assert t.size == 1
    paths = save_mechanism_figures(runs, tmp_path, clearance=0.5e-3)
    assert not any(p.name == "poincare.png" for p in paths)  # one point: no map by default
    paths = save_mechanism_figures(runs, tmp_path, clearance=0.5e-3, min_poincare_points=1)
    assert any(p.name == "poincare.png" for p in paths)
