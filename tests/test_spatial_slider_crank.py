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
