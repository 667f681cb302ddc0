"""The IFToMM spatial slider-crank (nlpmbd_cases/spatial_slider_crank.py: revolute, spherical,
universal and prismatic joints, one degree of freedom) against its independent minimal-
coordinate reference (references/ref_spatial_slider_crank.py): crank angle and slider position
converge at first order in h over 1 s (about 1.7 crank turns)."""

from __future__ import annotations

import numpy as np
import pytest
from pyquaternion import Quaternion

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.errors import InputError
from references.ref_spatial_slider_crank import simulate_reference


def _errors(h: float) -> tuple[float, float]:
    system, _ = get_case("spatial_slider_crank").build({})
    # first order (checked below) is the Euler scheme's, no longer the default: named
    options = SimulationOptions(t_end=1.0, h_min=h, h_max=h, solver="qp", integrator="euler")
    r = simulate(system, options)
    assert np.all(r.status == 0)
    R = [Quaternion(p).rotation_matrix for p in r.q[:, 3:7]]  # the crank turns about X
    theta = np.unwrap([np.arctan2(m[2, 1], m[1, 1]) for m in R])
    theta_ref, x_ref = simulate_reference(r.t)
    return float(np.abs(theta - theta_ref).max()), float(np.abs(r.q[:, 14] - x_ref).max())


@pytest.mark.slow
def test_ideal_spatial_slider_crank_converges_to_the_minimal_coordinate_reference():
    (th_c, x_c), (th_f, x_f) = _errors(1e-3), _errors(5e-4)
    # rad, m: the crank turns 11 rad, the slider moves 0.1 m; 0.052 rad and 1.4e-3 m measured
    # at h = 5e-4 with the published cross (issue 31), whose rod spins with the crank: an Euler
    # error constant 2.6 times the old cross's (0.02 rad, 5e-4 m)
    assert th_f < 0.06 and x_f < 1.6e-3
    # first order, short of the asymptotic 2 at these h (1.95 measured with the published cross)
    assert 1.7 < th_c / th_f < 2.05 and 1.7 < x_c / x_f < 2.05


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "step_gain"),
    [
        ({"gap_correction": "projection", "gap_linearization": "scalar"}, 1e-6),
        # the defaults: vector rows (cutting planes) trade energy between steps by up to 6e-6 J
        ({}, 1e-5),
    ],
    ids=["projection-scalar", "defaults"],
)
def test_play_at_every_joint_runs_resolved_without_energy_gain(options, step_gain):
    """clearance_at=all (RevoluteClearance at A, SphericalClearance at B, UniversalClearance at
    C, PrismaticClearance at D, c = 0.1 mm), inelastic: every joint knocks, no failed step,
    penetration <= 1% of c, no step gains more than round-off (scalar rows) or 1e-5 J (the
    defaults' vector rows) and the energy never exceeds the start's. With scalar rows the
    curvature term gained up to 0.013 J in an impact step of these spatial joints (issue 16),
    so that run takes the projection alone; the defaults' vector rows do not. 0.5 s here;
    `python -m nlpmbd run spatial_slider_crank --set clearance_at=all` gives the same over 2 s
    (issue 15's note)."""
    system, _ = get_case("spatial_slider_crank").build({"clearance_at": "all"})
    opts = SimulationOptions(t_end=0.5, h_min=1e-4, h_max=1e-4, solver="qp", **options)
    r = simulate(system, opts)
    assert r.meta["completed"] and np.all(r.status == 0)
    joints = [label.split(".")[0] for label in r.meta["contact_labels"]]
    for name in "ABCD":  # N: each joint knocked (the slider rests on its guide: 2 kg g)
        assert np.abs(r.lam[:, [j == name for j in joints]]).max() > 19, name
    assert r.gap.max() <= 0.01 * 1e-4
    assert np.diff(r.energy[:, 2]).max() < step_gain  # J
    assert r.energy[:, 2].max() <= r.energy[0, 2] + 1e-9


def test_clearance_at_names_the_loose_joints():
    case = get_case("spatial_slider_crank")
    kinds = {
        at: sorted(type(j).__name__ for j in case.build({"clearance_at": at})[0].joints)
        for at in ("none", "crank", "rod", "C,D")
    }
    assert kinds["none"] == ["PrismaticJoint", "RevoluteJoint", "SphericalJoint", "UniversalJoint"]
    assert "RevoluteClearance" in kinds["crank"] and "SphericalClearance" in kinds["rod"]
    assert {"UniversalClearance", "PrismaticClearance", "RevoluteJoint"} <= set(kinds["C,D"])
    with pytest.raises(InputError, match="clearance_at must be"):
        case.build({"clearance_at": "A,E"})
