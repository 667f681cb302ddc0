"""The IFToMM spatial slider-crank (nlpmbd_cases/spatial_slider_crank.py: revolute, spherical,
universal and prismatic joints, one degree of freedom) against its independent minimal-
coordinate reference (references/ref_spatial_slider_crank.py): crank angle and slider position
converge at first order in h over 1 s (about 1.7 crank turns)."""

from __future__ import annotations

import numpy as np
from pyquaternion import Quaternion

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from references.ref_spatial_slider_crank import simulate_reference


def _errors(h: float) -> tuple[float, float]:
    system, _ = get_case("spatial_slider_crank").build({})
    r = simulate(system, SimulationOptions(t_end=1.0, h_min=h, h_max=h, solver="qp"))
    assert np.all(r.status == 0)
    R = [Quaternion(p).rotation_matrix for p in r.q[:, 3:7]]  # the crank turns about X
    theta = np.unwrap([np.arctan2(m[2, 1], m[1, 1]) for m in R])
    theta_ref, x_ref = simulate_reference(r.t)
    return float(np.abs(theta - theta_ref).max()), float(np.abs(r.q[:, 14] - x_ref).max())


def test_ideal_spatial_slider_crank_converges_to_the_minimal_coordinate_reference():
    (th_c, x_c), (th_f, x_f) = _errors(1e-3), _errors(5e-4)
    assert th_f < 0.02 and x_f < 5e-4  # rad, m: the crank turns 11 rad, the slider moves 0.1 m
    assert 1.6 < th_c / th_f < 2.4 and 1.6 < x_c / x_f < 2.4  # first order


def test_play_at_the_crank_and_rod_joints_runs_resolved_without_energy_gain():
    """clearance_at=all (RevoluteClearance at A, SphericalClearance at B, c = 0.1 mm), inelastic:
    no failed step, penetration <= 1% of c, and no step gains energy. The gap correction is the
    projection alone: the curvature term (the default's second part) gains up to 0.06 J in an
    impact step of this spatial pin (issue 15, noted)."""
    system, _ = get_case("spatial_slider_crank").build({"clearance_at": "all"})
    opts = SimulationOptions(
        t_end=0.5, h_min=1e-4, h_max=1e-4, solver="qp", gap_correction="projection"
    )
    r = simulate(system, opts)
    assert r.meta["completed"] and np.all(r.status == 0)
    assert np.abs(r.lam).max() > 100  # N: the joints knocked
    assert r.gap.max() <= 0.01 * 1e-4
    assert np.diff(r.energy[:, 2]).max() < 1e-6  # J
