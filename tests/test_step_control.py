"""Step-size control: the paper's NLP-chosen h ("nlp") and nlpmbd's error controller."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fixtures import pendulum_theta_error, pendulum_theta_reference

from nlpmbd import InputError, SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.run.controller import ControlLaw, StepController

T_IDEAL = 2.0


def run_pendulum(params: dict | None = None, **options) -> SimulationResult:
    system, _ = get_case("pendulum").build(params or {})
    return simulate(system, SimulationOptions(**options))


@pytest.fixture(scope="module")
def theta_ref():
    """Minimal-coordinate ODE of the ideal pendulum, I_O theta'' = -m g L cos(theta), with the
    parameters written out (not read from the case), theta from +X towards +Y."""
    return pendulum_theta_reference(T_IDEAL, m=1.0, L=0.5, g=9.81, jzz=0.085)


theta_error = pendulum_theta_error


def assert_h_within_bounds(res: SimulationResult, h_min: float, h_max: float) -> None:
    """Every step in [h_min, h_max] except the last two (landing), which may be shorter than
    h_min (never below h_min / 2) but never longer than h_max."""
    h = res.h
    assert np.all(h[:-2] >= h_min * (1 - 1e-12)), h[:-2].min()
    assert np.all(h <= h_max * (1 + 1e-12)), h.max()
    assert np.all(h[-2:] >= 0.5 * h_min * (1 - 1e-12))


def assert_controller_landing(res: SimulationResult) -> None:
    """The landing steps never exceed what the controller could choose next (2x the last h)."""
    assert res.h[-2:].max() <= 2.0 * res.h[-3] * (1 + 1e-9), res.h[-3:]


def test_controller_error_follows_error_tol_on_the_ideal_pendulum(theta_ref):
    h_min, h_max = 1e-4, 1e-2  # wide bounds: the controller, not a bound, sets h
    runs = {
        tol: run_pendulum(
            t_end=T_IDEAL, h_min=h_min, h_max=h_max, step_control="controller", error_tol=tol
        )
        for tol in (1e-5, 1e-6)
    }
    err = {tol: theta_error(res, theta_ref) for tol, res in runs.items()}
    steps = {tol: res.n_steps for tol, res in runs.items()}
    print(f"\ncontroller max |theta error| over 2 s: {err} rad, steps {steps}")
    coarse = runs[1e-5]
    # comparable work and accuracy to a fixed h = 1e-3 (2000 steps, 2.7e-3 rad)
    assert 1000 <= steps[1e-5] <= 3000
    assert err[1e-5] < 1e-2
    assert err[1e-5] / err[1e-6] > 2.0, "a tighter error_tol must give a smaller error"
    assert steps[1e-6] > steps[1e-5]
    for res in runs.values():
        assert res.completed and np.all(res.status < 3)
        assert res.t[-1] == pytest.approx(T_IDEAL, abs=1e-12)
        assert_h_within_bounds(res, h_min, h_max)
        assert_controller_landing(res)
        assert res.h[0] == pytest.approx(h_min, rel=1e-12), "cautious start"
    # h follows the swing (smallest where the acceleration is largest), not only the start ramp
    body = coarse.h[20:-2]
    assert (body.max() - body.min()) / np.median(body) > 0.1


def test_controller_respects_bounds_and_lands_on_t_end():
    t_end, h_min, h_max = 0.3037, 2e-4, 1.2e-3
    # loose tolerance: the controller wants ~1.05-1.38e-3 (the upper bound clips part of it);
    # tight tolerance: it wants ~1.3e-4 (the lower bound clips it)
    for tol, clipped in ((1e-5, h_max), (1e-7, h_min)):
        res = run_pendulum(
            t_end=t_end, h_min=h_min, h_max=h_max, step_control="controller", error_tol=tol
        )
        assert res.completed
        assert res.t[-1] == pytest.approx(t_end, abs=1e-12)
        assert_h_within_bounds(res, h_min, h_max)
        assert_controller_landing(res)
        assert np.any(np.isclose(res.h[:-2], clipped, rtol=1e-9)), f"{clipped} bound never hit"
        # the controller changes h by a factor in [0.5, 2] per step (before clipping)
        ratio = res.h[1:-2] / res.h[:-3]
        assert np.all((ratio >= 0.5 * (1 - 1e-9)) & (ratio <= 2.0 * (1 + 1e-9)))


def test_controller_on_the_clearance_pendulum():
    h_min, h_max = 1e-4, 2e-3
    res = run_pendulum(
        {"joint": "clearance", "clearance": 1e-4},
        t_end=1.0,
        h_min=h_min,
        h_max=h_max,
        step_control="controller",
        error_tol=1e-5,
    )
    assert res.completed and np.all(res.status < 3), "no failed step"
    assert max(res.penetration_fraction().values()) <= 0.01
    assert type(res.meta["controller_rejections"]) is int
    assert res.t[-1] == pytest.approx(1.0, abs=1e-12)
    assert_h_within_bounds(res, h_min, h_max)
    assert res.lam.max() > 1.0, "the pin must be in contact"


def test_controller_rejects_steps_that_penetrate_too_deep():
    # c = 1e-6 m: at h ~ 1e-3 the true gap penetrates by tens of clearances (nlp run below),
    # so the controller must halve h until the step penetrates by <= 0.1 c (or h = h_min).
    # The penetration is the scalar linearisation's (the default vector one keeps the pin within
    # 0.07 c here) and the reference is the NLP's own step control: both named.
    c, h_min, h_max = 1e-6, 1e-4, 2e-3
    common = dict(t_end=0.15, h_min=h_min, h_max=h_max, gap_linearization="scalar")
    params = {"joint": "clearance", "clearance": c}
    nlp = run_pendulum(params, **common, step_control="nlp")
    ctl = run_pendulum(params, **common, step_control="controller", error_tol=1e-5)
    assert nlp.gap_uncorrected.max() > 0.1 * c, "the reference run must penetrate"
    assert nlp.meta["controller_rejections"] == 0
    assert ctl.completed and np.all(ctl.status < 3)
    assert ctl.meta["controller_rejections"] > 0
    above_min = ctl.h > h_min * (1 + 1e-9)
    above_min[-2:] = False  # the one or two landing steps are never rejected (simulate)
    assert np.all(ctl.gap_uncorrected[above_min] <= 0.1 * c * (1 + 1e-9))


def test_step_controller_formulas():
    opts = SimulationOptions(
        t_end=1.0, h_min=1e-4, h_max=1e-2, step_control="controller", error_tol=1e-6
    )
    M = np.diag([2.0, 2.0, 2.0, 0.5, 0.5, 0.5])
    ctl = StepController(ControlLaw(M, 2.0, n_rigid=1, verlet=False), opts, n_q=7, n_v=6)
    assert ctl.first() == 1e-4
    v0 = np.zeros(6)
    # dv^T M dv = 2 * 3^2 + 0.5 * 4^2 = 26 -> err = h/2 sqrt(26 / 2)
    dv = np.array([3.0, 0, 0, 0, 4.0, 0])
    q = np.array([0, 0, 0, 1.0, 0, 0, 0])
    assert ctl.error(1e-3, q, v0, q, dv) == pytest.approx(0.5e-3 * math.sqrt(13.0), rel=1e-12)
    assert ctl.next(1e-3, 1e-6 * 0.81) == pytest.approx(1e-3, rel=1e-12)  # factor 0.9 * 1/0.9
    assert ctl.next(1e-3, 1e-6 * 0.81 / 2.25) == pytest.approx(1.5e-3, rel=1e-12)
    assert ctl.next(1e-3, 0.0) == pytest.approx(2e-3)  # growth capped at 2
    assert ctl.next(1e-3, 1.0) == pytest.approx(5e-4)  # shrink capped at 0.5
    assert ctl.next(1.5e-4, 1.0) == 1e-4  # never below h_min
    assert ctl.next(8e-3, 0.0) == 1e-2  # never above h_max
    assert ctl.next(1e-3, 0.0, rejected=True) == pytest.approx(1e-3)  # no growth after a rejection


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"step_control": "adaptive"}, "step_control"),
        ({"step_control": None}, "step_control"),
        ({"step_control": 1}, "step_control"),
        ({"error_tol": 0.0}, "error_tol"),
        ({"error_tol": -1.0}, "error_tol"),
        ({"error_tol": float("nan")}, "error_tol"),
        ({"error_tol": 2.0}, "error_tol"),
        ({"error_tol": "1e-6"}, "error_tol"),
    ],
)
def test_options_reject_bad_step_control(kwargs, name):
    with pytest.raises(InputError, match=name) as info:
        SimulationOptions(**kwargs)
    assert "\n" not in str(info.value)


def test_options_step_control_defaults_and_dict():
    default = SimulationOptions()
    assert default.step_control == "controller" and default.error_tol == 1e-5
    opts = SimulationOptions(step_control="controller", error_tol=1.0)
    assert opts.as_dict()["time"]["step_control"] == "controller"
    assert opts.as_dict()["time"]["error_tol"] == 1.0
    assert SimulationOptions.from_dict(opts.as_dict()) == opts


def test_nlp_step_control_keeps_h_at_h_max_on_the_ideal_pendulum():
    # regression guard for the paper's scheme (no longer the default: named): with no contact,
    # h goes to h_max
    h_min, h_max = 1e-3, 2e-3
    res = run_pendulum(t_end=1.0, h_min=h_min, h_max=h_max, step_control="nlp")
    assert res.meta["options"]["time"]["step_control"] == "nlp"
    assert res.meta["controller_rejections"] == 0
    assert np.median(res.h) > 0.999 * h_max
    assert_h_within_bounds(res, h_min, h_max)
