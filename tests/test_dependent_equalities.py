"""Dependent equalities (step/dependent.py) beyond Bricard's loop (tests/test_ref_bricard.py):
a planar four-bar closed by four full revolute joints repeats three of its 21 equations."""

from __future__ import annotations

import numpy as np
import pytest

import nlpmbd_cases.four_bar as four_bar
from nlpmbd import SimulationOptions, simulate
from nlpmbd_joints import RevoluteJoint

PARAMS = {"clearance_at": "none", "clearance": 1e-4, "speed": 60.0, "g": 9.81}


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["qp", "nlp"])
def test_a_four_bar_of_full_revolute_joints_moves_as_the_planar_closing(solver, monkeypatch):
    """The case closes its loop at C with a PlanarRevoluteJoint (2 equalities); a full
    RevoluteJoint (5) repeats the plane's three. IPOPT refused that NLP outright before
    (Not_Enough_Degrees_Of_Freedom: 25 equality rows on 22 unknowns); now both paths take
    every step, the motion and the driving moment those of the planar closing."""
    options = SimulationOptions(t_end=0.5, h_min=1e-3, h_max=1e-3, solver=solver)
    planar = simulate(four_bar.build(PARAMS), options)

    def full(name, hole, pin, point, axis):
        return RevoluteJoint(name, pin, hole, point=point, axis=axis)

    monkeypatch.setattr("nlpmbd_joints.planar_revolute.PlanarRevoluteJoint", full)
    redundant = simulate(four_bar.build(PARAMS), options)
    assert redundant.lam_eq.shape[1] == planar.lam_eq.shape[1] + 3
    assert np.all(redundant.status == 0)
    # the same motion: 2.3e-11 over 2 s, the joints' give (rho h^2 lambda) and round-off
    assert np.abs(redundant.q - planar.q).max() < 1e-9
    # the drive's moment (its own row, independent): 0.85 N m, the same to 2e-7 of it
    moment = planar.lam_eq[:, -1]
    assert np.abs(redundant.lam_eq[:, -1] - moment).max() < 1e-5 * np.abs(moment).max()


def _bricard_over_a_floor(closing: str):
    """Bricard's loop (tests/test_ref_bricard.py) whose rod 3 strikes a floor at y = -1.5 m
    (its ends reach -1.73 m) with restitution 0.5: impacts, the first-order step and the gap
    projection, with the six revolute joints' compliant rows."""
    from nlpmbd import HardContact
    from nlpmbd.apps.registry import get_case
    from nlpmbd_joints import PlaneContact

    system, _ = get_case("bricard").build({"closing": closing})
    rod3 = next(b for b in system.bodies if b.name == "rod3")
    ends = [(-0.5, 0.0, 0.0), (0.5, 0.0, 0.0)]
    law = HardContact(restitution=0.5)
    system.add_joint(PlaneContact("floor", rod3, ends, plane_point=(0, -1.5, 0), contact=law))
    return system


@pytest.mark.slow
def test_ipopt_keeps_its_accuracy_with_compliant_equalities_and_impacts():
    """The NLP path (IPOPT at every step: restitution) through the first impact (0.807 s):
    every step solved at once, the energy lost that of the universal closing. With the rows'
    slacks in metres IPOPT's complementarity was 1000x looser and the impact step failed its
    acceptance test once (step/graph.py: the slack in m/s)."""
    options = SimulationOptions(t_end=1.0, h_min=1e-3, h_max=1e-3, solver="nlp")
    lost = {}
    for closing in ("revolute", "universal"):
        result = simulate(_bricard_over_a_floor(closing), options)
        assert np.all(result.status == 0) and result.lam.max() > 1e3  # the impact
        lost[closing] = result.energy[-1, 2] - result.energy[0, 2]
    assert lost["universal"] < -1.0  # e = 0.5: the impact takes 2.5 J
    assert abs(lost["revolute"] - lost["universal"]) < 1e-4 * abs(lost["universal"])
