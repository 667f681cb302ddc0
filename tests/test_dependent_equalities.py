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
