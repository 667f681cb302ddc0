"""The first QP of Newton's cut rounds (step/cuts_newton.py) as a round from the step's predicted
first-stage velocity (step/qp_symbols.py predicted_velocity, carried by the chunks): it spares
rounds and leaves the motion where the rounds converge."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.step import qp_cut_rounds
from nlpmbd.step.qp_symbols import first_stage, predicted_velocity

C = 1e-4  # m: the chain's clearance


def _chain() -> object:
    options = SimulationOptions(t_end=0.3, h_min=1e-3, h_max=1e-3, solver="qp", codegen="off")
    system, _ = get_case("chain").build({"links": 4, "joint": "clearance", "clearance": C})
    return simulate(system, options)


def test_the_extrapolated_velocity_spares_cut_rounds(monkeypatch):
    predicted = _chain()
    # the step start's velocity instead: the first QP is a round from there
    monkeypatch.setattr(qp_cut_rounds, "predicted_velocity", lambda args: args["v"])
    start = _chain()
    for r in (predicted, start):
        assert r.meta["completed"] and np.all(r.status == 0)
    per_step = [float(np.mean(r.iterations)) for r in (predicted, start)]
    print(f"\nQP solves a step: {per_step[0]:.2f} predicted, {per_step[1]:.2f} from v0")
    assert per_step[0] <= per_step[1] - 0.5  # measured 2.32 against 3.02
    # both converge to the same cut rounds' fixed point (to CUT_TOL c, where they stop)
    assert np.abs(predicted.q[:, :3] - start.q[:, :3]).max() < 0.01 * C


def test_the_predictor_extrapolates_quadratically():
    """first_stage's rates fed back to predicted_velocity reproduce a quadratic in time."""
    h = 1e-3
    v = lambda t: np.array([1.0 + 2 * t + 30 * t**2])  # noqa: E731  the first stage's velocity
    state = {"lag": np.zeros(1), "accel": np.zeros(1), "jerk": np.zeros(1)}
    for k in range(4):  # step k's first stage at t = k h, its end velocity that too (lag 0)
        args = {"v": v((k - 1) * h), "h": h, **state}  # its start: the step before's end
        if k >= 2:  # three first stages before it
            assert predicted_velocity(args).item() == pytest.approx(v(k * h).item(), rel=1e-12)
        out = first_stage(args, v(k * h), v(k * h))
        state = {n: np.asarray(out[f"{n}_next"], dtype=float).ravel() for n in state}
