"""Issue 31, item 5: Glocker's woodpecker toy. Siconos integrates the small-angle equations,
nlpmbd's rigid bodies move at finite angles; this project's minimal-coordinate Moreau-LCP model
(references/ref_woodpecker.py) in both forms separates the model from the code
(benchmarks/reference_problems/woodpecker.py)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.reference_problems import missing_reason
from benchmarks.reference_problems import woodpecker as wp
from benchmarks.reference_problems.contact_runs import failed_steps, run_case
from references import ref_woodpecker as ref
from tests.reference_cache import cached

H = 2e-5  # Siconos' step, and the own model's


@pytest.fixture(scope="module")
def default():
    return run_case("woodpecker")


@pytest.mark.slow
def test_default_run_has_no_failed_step_and_pecks_twice(default):
    assert failed_steps(default.result) == 0 and default.result.completed
    hits = wp.of_run(default).impacts()
    # the own finite-angle model's beak impacts: 0.08272, 0.21264 s (h = 2e-5)
    assert hits.size == 2 and np.allclose(hits, [0.0827, 0.2126], atol=5e-4)


@pytest.mark.slow
def test_small_angle_model_reproduces_siconos():
    siconos = wp.reference()
    if siconos is None:
        pytest.skip(missing_reason(wp.FOLDER))
    # the file's headline values (its README: period 0.146 +- 0.002 s)
    assert np.allclose(siconos.impacts(), [0.08104, 0.22710], atol=H / 2)
    own = wp.of_model(cached(ref.simulate, H, 0.3, linear=True))
    # the same scheme at the same h: the same beak impacts, step for step; trajectories
    # within 2.1e-6 m and 2.6e-5 rad (measured; theta = 0.5 on the spring is Siconos' only
    # difference)
    assert np.allclose(own.impacts(), siconos.impacts(), atol=H / 2)
    dy, dphi_m, dphi_s = wp.difference(own, siconos)
    assert dy < 1e-5 and dphi_m < 1e-4 and dphi_s < 1e-4


@pytest.mark.slow
def test_nlpmbd_limit_cycle_is_the_finite_angle_models():
    """nlpmbd (default h range, 1 s) against the own model at finite angles: period 0.13066
    against 0.13084 s, descent 0.1107 against 0.1112 m/s (measured). The own model's step
    error is 4e-5 s in the period (h = 2e-5 against 1e-5); Siconos' README gives its own
    scheme-independent tolerances as 0.002 s and 0.005 m/s: held here to a quarter of them.
    The small-angle form's cycle (0.1460 s) is 15 ms longer: the linearisation, not the code."""
    fin = wp.of_model(cached(ref.simulate, H, wp.LONG, linear=False, q0=wp.finite_start()))
    lin = wp.of_model(cached(ref.simulate, H, wp.LONG, linear=True))
    run = run_case("woodpecker", t_end=wp.LONG)
    assert failed_steps(run.result) == 0
    period, speed = wp.of_run(run).cycle()
    fin_period, fin_speed = fin.cycle()
    assert abs(period - fin_period) < 5e-4 and abs(speed - fin_speed) < 1.25e-3
    assert lin.cycle()[0] - fin_period > 0.01  # the model difference dwarfs the tolerance


def _energy_drift(model: ref.Model, h: float, t_end: float = 0.02) -> tuple[float, float]:
    """The largest energy change (J) of the model's contact-free motion, and its kinetic
    energy at the start, the bird from phi_S = -0.3 rad at 8 rad/s (the toy's scale)."""
    p = model.p
    q, u = np.array([0.0, -0.1, -0.3]), np.array([0.0, 0.0, 8.0])

    def energy(q: np.ndarray, u: np.ndarray) -> float:
        bird = q[0] + p.l_M * np.sin(q[1]) + p.l_G * np.sin(q[2])  # the bird centre's height
        potential = p.g * (p.m_M * q[0] + p.m_S * bird) + p.c_phi * (q[1] - q[2]) ** 2 / 2
        return float(u @ model.mass(q) @ u / 2 + potential)

    e0, drift = energy(q, u), 0.0
    for _ in range(round(t_end / h)):
        q, u, impulses = ref.moreau_step(model, q, u, h)
        assert not impulses.any()
        drift = max(drift, abs(energy(q, u) - e0))
    return drift, float(8.0**2 * model.mass(np.array([0.0, -0.1, -0.3]))[2, 2] / 2)


def test_own_finite_angle_model_conserves_energy_away_from_the_pole():
    """The finite-angle form's mass matrix, centripetal term, gravity and spring are one
    Lagrangian's: with the pole moved away its energy error over 0.02 s falls in proportion
    to h (Moreau's step is first order in it): measured 2.5e-6 J at h = 1e-4, 2.6e-7 J at 1e-5
    (0.5 % of the kinetic energy); with the centripetal term's sign flipped, 0.12 J at both
    over 0.05 s."""
    model = ref.Model(ref.WoodpeckerParams(r_O=-1.0), linear=False)
    coarse, _ = _energy_drift(model, 1e-4)
    fine, kinetic = _energy_drift(model, 1e-5)
    assert fine < 0.02 * kinetic and coarse > 5 * fine
