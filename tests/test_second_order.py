"""The second-order scheme (`--integrator verlet`, step/verlet.py) against independent references:
the ideal pendulum's minimal-coordinate ODE (scipy), the free body's conservation laws, and
contact: no energy gain, penetration within the projection's target."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures import pendulum_theta_error, pendulum_theta_reference

from nlpmbd import InputError, SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.rotation import rotation_matrix
from nlpmbd.run.codegen import find_compiler


def _pendulum(t_end: float, h: float, **options):
    system, _ = get_case("pendulum").build({})
    return simulate(system, SimulationOptions(t_end=t_end, h_min=h, h_max=h, **options))


@pytest.mark.slow
def test_pendulum_is_second_order_and_within_1e_4_rad_over_10_s():
    reference = pendulum_theta_reference(10.0)
    opts = {"solver": "qp", "codegen": "off"}
    err = {
        h: pendulum_theta_error(_pendulum(10.0, h, integrator="verlet", **opts), reference)
        for h in (1e-3, 2e-4)
    }
    # the first-order scheme is no longer the default: named
    first = pendulum_theta_error(_pendulum(10.0, 1e-3, integrator="euler", **opts), reference)
    print(f"\npendulum 10 s max |theta error|: verlet {err}, euler h=1e-3 {first:.3e} rad")
    assert err[1e-3] <= 1e-4  # rad; the best peer measured, generalized-alpha: 3.0e-4
    assert err[1e-3] / err[2e-4] >= 15  # 25 for exactly second order
    assert first > 10 * err[1e-3]


@pytest.mark.slow
def test_nlp_path_is_second_order_too():
    reference = pendulum_theta_reference(1.0)
    err = {
        # the default solver takes the QP path at a fixed h now: the NLP path is asked for
        h: pendulum_theta_error(_pendulum(1.0, h, integrator="verlet", solver="nlp"), reference)
        for h in (2e-3, 1e-3)
    }
    print(f"\npendulum 1 s, NLP path, verlet: {err}")
    assert err[2e-3] / err[1e-3] >= 3.2  # 4 for exactly second order


@pytest.mark.slow
@pytest.mark.skipif(find_compiler() is None, reason="no C compiler on this machine")
def test_compiled_chunks_take_the_same_steps(tmp_path, monkeypatch):
    monkeypatch.setenv("NLPMBD_CACHE", str(tmp_path))
    system, _ = get_case("revolute").build({})  # clearance, contact and projection
    opts = {"t_end": 0.3, "h_min": 1e-3, "h_max": 1e-3, "solver": "qp", "integrator": "verlet"}
    vm = simulate(system, SimulationOptions(**opts, codegen="off"))
    cc = simulate(system, SimulationOptions(**opts, codegen="on"))
    assert vm.meta["codegen"] == "off" and cc.meta["codegen"] == "compiled"
    assert np.all(cc.status == 0) and cc.lam.max() > 0  # it touches
    # the same QPs' optima up to round-off (test_qp.py, compiled against the VM)
    assert np.abs(vm.q - cc.q).max() <= 1e-10 and np.abs(vm.gap - cc.gap).max() <= 1e-10
    assert np.abs(vm.lam - cc.lam).max() <= 1e-6 * np.abs(vm.lam).max()


@pytest.mark.slow
def test_free_body_drift_is_second_order():
    case = get_case("free_body")
    drift = {}
    for h in (2e-3, 1e-3):
        system, _ = case.build({})
        res = simulate(system, SimulationOptions(t_end=10.0, h_min=h, h_max=h, integrator="verlet"))
        J = system.bodies[0].inertia
        pairs = zip(res.q, res.v, strict=True)
        L = np.array([rotation_matrix(q[3:7]) @ J @ v[3:6] for q, v in pairs])
        E = res.energy[:, 2]
        drift[h] = (
            np.max(np.abs(E - E[0])) / E[0],
            np.max(np.linalg.norm(L - L[0], axis=1)) / np.linalg.norm(L[0]),
        )
        assert res.v[:, 4].min() < 0, "the body must flip (intermediate-axis instability)"
    print(f"\nfree body 10 s, verlet: relative drift (energy, |L|) {drift}")
    assert drift[1e-3][0] <= drift[2e-3][0] / 3.2 and drift[1e-3][1] <= drift[2e-3][1] / 3.2
    assert max(drift[2e-3]) < 1e-5  # the first-order scheme: 4e-3 and 2e-3


def test_clearance_pendulum_gains_no_energy_and_keeps_its_clearance():
    system, _ = get_case("pendulum").build({"joint": "clearance", "clearance": 1e-4})
    res = simulate(
        system, SimulationOptions(t_end=1.0, h_min=1e-3, h_max=1e-3, integrator="verlet")
    )
    assert res.meta["completed"] and np.all(res.status != 3)
    E = res.energy[:, 2]
    # J: impacts of an inelastic pin dissipate, and the energy is never above the start's
    # (the ideal pendulum's swings by -2e-5..+1e-6 J at this h: Verlet's bounded error)
    assert np.max(E - E[0]) <= 1e-9 and E[-1] < E[0]
    assert res.gap.max() <= 0.01 * 1e-4


def test_integrator_names_its_choices():
    with pytest.raises(InputError, match="integrator must be one of auto, euler, verlet"):
        SimulationOptions(integrator="rk4")


@pytest.mark.slow
def test_controller_error_tracks_error_tol_over_three_decades():
    """SecondOrderController: the global position error of the run is error_tol within a
    factor 3 (the pendulum's centre of mass, 2 s, scipy reference; calibrated on it)."""
    reference = pendulum_theta_reference(2.0)
    ratio = {}
    for tol in (1e-4, 1e-5, 1e-6):
        system, _ = get_case("pendulum").build({})
        options = SimulationOptions(
            t_end=2.0, h_min=1e-5, h_max=1e-2, solver="qp", step_control="controller",
            error_tol=tol, integrator="verlet", codegen="off",
        )  # fmt: skip
        res = simulate(system, options)
        ratio[tol] = 0.5 * pendulum_theta_error(res, reference) / tol  # L = 0.5 m
    print(f"\ncontroller global error / error_tol: {ratio}")
    assert all(1 / 3 <= r <= 3 for r in ratio.values())
