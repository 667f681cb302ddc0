"""step/qp_warm.py: the step QP from a guessed active set, against an independent QP solver
(qpOASES) and against the engine's cold path (DAQP from scratch at every step)."""

from __future__ import annotations

import casadi as ca
import numpy as np
import pytest

from benchmarks.forwarding import Forwarding
from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.step import qp_warm

W = 1e-10  # the split variables' curvature (step/qp_friction.py W_REG m_min)


def _qp(seed: int, g_split: float) -> tuple[dict, qp_warm.Shape]:
    """A QP in the layout of the step's: 6 velocities (Hessian I), one planar contact's split
    variables (p, n >= 0, cost g_split each), 2 equalities, 3 one-sided rows, the split row
    c u - p + n = 0."""
    rng = np.random.default_rng(seed)
    nu, n_eq, n_up = 6, 2, 3
    A_u = rng.normal(size=(n_eq + n_up + 1, nu))
    A = np.zeros((n_eq + n_up + 1, nu + 2))
    A[:, :nu] = A_u
    A[-1, nu:] = [-1.0, 1.0]
    g = np.r_[rng.normal(size=nu) * 3, g_split, g_split]
    lba = np.r_[rng.normal(size=n_eq), -np.inf * np.ones(n_up), 0.0]
    uba = np.r_[lba[:n_eq], rng.normal(size=n_up) * 0.5, 0.0]
    qp = {"H": np.diag(np.r_[np.ones(nu), W, W]), "g": g, "A": A, "lba": lba, "uba": uba}
    qp["lbx"] = np.r_[-np.inf * np.ones(nu), 0.0, 0.0]
    qp["ubx"] = np.inf * np.ones(nu + 2)
    return qp, qp_warm.Shape(nu, 1, 0, n_eq, n_up, W)


def _reference(qp: dict) -> dict:
    """qpOASES' solution of the QP (an independent active-set solver)."""
    H, A = ca.DM(qp["H"]), ca.DM(qp["A"])
    solver = ca.conic(
        "ref", "qpoases", {"h": H.sparsity(), "a": A.sparsity()}, {"printLevel": "none"}
    )
    return solver(h=H, g=qp["g"], a=A, lba=qp["lba"], uba=qp["uba"], lbx=qp["lbx"], ubx=qp["ubx"])


def _guessed(qp: dict, shape: qp_warm.Shape, upper: np.ndarray, sign: float) -> dict:
    f = qp_warm.function(shape, ca.DM(qp["A"]).sparsity())
    d = np.diag(qp["H"])
    return f(A=qp["A"], g=qp["g"], d=d, uba=qp["uba"], upper=upper, sign=sign)


@pytest.mark.parametrize("seed", range(12))
def test_the_right_active_set_gives_the_qp_optimum_and_a_wrong_one_is_refused(seed):
    qp, shape = _qp(seed, g_split=0.3)
    ref = _reference(qp)
    y = np.asarray(ref["lam_a"]).ravel()
    x = np.asarray(ref["x"]).ravel()
    upper = (y[2:5] > 1e-9).astype(float)
    slip = x[6] - x[7]
    sign = 0.0 if abs(slip) < 1e-9 else np.sign(slip)
    out = _guessed(qp, shape, upper, sign)
    assert float(out["hit"]) == 1.0
    assert np.abs(np.asarray(out["x"]).ravel() - x).max() < 1e-8
    assert np.abs(np.asarray(out["lam_a"]).ravel() - y).max() < 1e-8 * (1 + np.abs(y).max())
    # any other guess of the one-sided rows is not the optimum (the QP's is unique here)
    for j in range(3):
        wrong = upper.copy()
        wrong[j] = 1 - wrong[j]
        assert float(_guessed(qp, shape, wrong, sign)["hit"]) == 0.0


def test_a_wrong_direction_of_slip_is_refused():
    qp, shape = _qp(3, g_split=0.05)
    ref = _reference(qp)
    x = np.asarray(ref["x"]).ravel()
    slip = x[6] - x[7]
    assert abs(slip) > 1e-6  # sliding
    upper = (np.asarray(ref["lam_a"]).ravel()[2:5] > 1e-9).astype(float)
    assert float(_guessed(qp, shape, upper, np.sign(slip))["hit"]) == 1.0
    assert float(_guessed(qp, shape, upper, -np.sign(slip))["hit"]) == 0.0


@pytest.mark.parametrize(
    ("case", "t_end", "options"),
    [("slider_crank", 0.01, {}), ("bead_column", 0.12, {"h_min": 1e-7, "force": True})],
)
def test_runs_take_the_cold_paths_steps(monkeypatch, case, t_end, options):
    """A run with the guessed solves takes the steps of the run that solves every QP from
    scratch (DAQP), to the QP's tolerance: the slider-crank (contacts sliding with friction,
    impacts with restitution) and the bead column's simultaneous impacts at h_min = 1e-7."""
    force = options.pop("force", False)
    opts = SimulationOptions(t_end=t_end, codegen="off", **options)
    system, _ = get_case(case).build({})
    warm = simulate(system, opts, force=force)
    monkeypatch.setattr(qp_warm, "applies", lambda *args: False)
    system, _ = get_case(case).build({})
    cold = simulate(system, opts, force=force)
    assert warm.n_steps == cold.n_steps and warm.meta["qp_fallback_steps"] == 0
    assert np.abs(warm.q - cold.q).max() < 1e-9


class _Counted(Forwarding):
    """A conic Function that counts its evaluations (the step QP's plugin calls)."""

    calls = 0

    def seen(self, inputs: dict, outputs: dict) -> None:
        _Counted.calls += 1


@pytest.mark.parametrize(
    ("case", "plugin_calls"), [("four_bar_clearance", True), ("pendulum", False)]
)
def test_iterations_count_the_qp_solves(monkeypatch, case, plugin_calls):
    """A QP-path step's `iterations` are its QP solves: on four_bar_clearance (cut rows: every
    solve is DAQP's) they add up to the plugin's calls, counted around it (both stages, and
    once in contact friction rounds and cuts: 11 a step on average over 0.05 s; they counted
    attempts, 1 a step); the ideal pendulum's two stages are two guessed solves, and DAQP never
    runs."""
    from nlpmbd.step import qp_graph

    made: list = []
    original = qp_graph.qp_solver

    def counted(*args, **kwargs):
        made.append(_Counted(original(*args, **kwargs)))
        return made[-1]

    monkeypatch.setattr(qp_graph, "qp_solver", counted)
    _Counted.calls = 0
    c = get_case(case)
    system, _ = c.build({})
    opts = SimulationOptions(
        t_end=30 * c.h_max, h_min=c.h_max, h_max=c.h_max, solver="qp", codegen="off",
        gap_correction="curvature",
    )  # fmt: skip
    r = simulate(system, opts)
    if plugin_calls:
        assert r.iterations.sum() == _Counted.calls and np.all(r.iterations >= 2)
    else:
        assert _Counted.calls == 0 and np.all(r.iterations == 2)
