"""step/qp_guess_sparse.py: the step QP from a guessed active set with a Hessian that couples
the bodies (Newton's cut rounds), against an independent QP solver (qpOASES) and against the
engine's path that solves every such QP with DAQP."""

from __future__ import annotations

import casadi as ca
import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.step import qp_guess_sparse, qp_warm

N_BODY, N_EQ, N_UP = 3, 2, 6


def _qp(seed: int) -> dict:
    """A QP in the layout of a chain's step QP: 3 bodies of 6 unknowns, H = I + G^T G with G
    coupling neighbouring bodies (a disc's curvature), 2 equalities and 6 one-sided rows, each
    row on two neighbouring bodies."""
    rng = np.random.default_rng(seed)
    n = 6 * N_BODY
    G = np.zeros((2 * (N_BODY - 1), n))
    for j in range(N_BODY - 1):
        G[2 * j : 2 * j + 2, 6 * j : 6 * j + 12] = rng.normal(size=(2, 12)) * 0.5
    A = np.zeros((N_EQ + N_UP, n))
    for i in range(N_EQ + N_UP):
        j = i % (N_BODY - 1)
        A[i, 6 * j : 6 * j + 12] = rng.normal(size=12)
    lba = np.r_[rng.normal(size=N_EQ), -np.inf * np.ones(N_UP)]
    uba = np.r_[lba[:N_EQ], rng.normal(size=N_UP) * 0.5]
    H = np.eye(n) + G.T @ G
    return {"h": H, "g": rng.normal(size=n) * 3, "a": A, "lba": lba, "uba": uba}


def _reference(qp: dict) -> dict:
    """qpOASES' solution of the QP (an independent active-set solver)."""
    H, A = ca.DM(qp["h"]), ca.DM(qp["a"])
    solver = ca.conic(
        "ref", "qpoases", {"h": H.sparsity(), "a": A.sparsity()}, {"printLevel": "none"}
    )
    return solver(h=H, g=qp["g"], a=A, lba=qp["lba"], uba=qp["uba"])


def _guessed(qp: dict, upper: np.ndarray) -> dict:
    sym = {
        "h": ca.MX.sym("h", ca.sparsify(ca.DM(qp["h"])).sparsity()),
        "a": ca.MX.sym("a", ca.sparsify(ca.DM(qp["a"])).sparsity()),
        "g": ca.MX.sym("g", qp["g"].size),
        "uba": ca.MX.sym("uba", qp["uba"].size),
    }
    up = ca.MX.sym("upper", upper.size)
    shape = qp_warm.Shape(qp["g"].size, 0, 0, N_EQ, upper.size, 0.0)
    out = qp_guess_sparse.solve(sym, shape, up)
    f = ca.Function("guess", [*sym.values(), up], [out["x"], out["lam_a"], out["hit"]])
    x, y, hit = f(qp["h"], qp["a"], qp["g"], qp["uba"], upper)
    return {"x": np.asarray(x).ravel(), "lam_a": np.asarray(y).ravel(), "hit": float(hit)}


@pytest.mark.parametrize("seed", range(12))
def test_the_right_active_set_gives_the_qp_optimum_and_a_wrong_one_is_refused(seed):
    qp = _qp(seed)
    ref = _reference(qp)
    x, y = np.asarray(ref["x"]).ravel(), np.asarray(ref["lam_a"]).ravel()
    upper = (y[N_EQ:] > 1e-9).astype(float)
    out = _guessed(qp, upper)
    assert out["hit"] == 1.0
    assert np.abs(out["x"] - x).max() < 1e-8 * (1 + np.abs(x).max())
    assert np.abs(out["lam_a"] - y).max() < 1e-8 * (1 + np.abs(y).max())
    # any other guess of the one-sided rows is not the optimum (the QP's is unique here)
    for j in range(N_UP):
        wrong = upper.copy()
        wrong[j] = 1 - wrong[j]
        assert _guessed(qp, wrong)["hit"] == 0.0


def test_a_missed_guess_is_corrected_once_then_left_to_the_cold_solver():
    """`guessed`: a guess with one row wrong misses; the guess its point corrects (rows that
    push, rows it violates) is solved next, and the cold solver (qpOASES here) only where that
    misses too: the QP's optimum either way, most single errors corrected without it."""
    corrected = 0
    for seed in range(12):
        qp = _qp(seed)
        ref = _reference(qp)
        x, y = np.asarray(ref["x"]).ravel(), np.asarray(ref["lam_a"]).ravel()
        right = (y[N_EQ:] > 1e-9).astype(float)
        sp = {n: ca.sparsify(ca.DM(qp[n])).sparsity() for n in ("h", "a")}
        cold = ca.conic("cold", "qpoases", sp, {"printLevel": "none"})
        sym = {n: ca.MX.sym(n, sp[n]) for n in ("h", "a")}
        sym.update({n: ca.MX.sym(n, qp[n].size) for n in ("g", "lba", "uba")})
        up = ca.MX.sym("upper", N_UP)
        shape = qp_warm.Shape(qp["g"].size, 0, 0, N_EQ, N_UP, 0.0)
        out = qp_guess_sparse.guessed(cold, sym, shape, up, range(0))
        f = ca.Function("g", [*sym.values(), up], [out["x"], out["lam_a"], out["cold"]])
        for j in range(N_UP):
            wrong = right.copy()
            wrong[j] = 1 - wrong[j]
            xg, yg, daqp = f(*(qp[n] for n in sym), wrong)
            assert np.abs(np.asarray(xg).ravel() - x).max() < 1e-7 * (1 + np.abs(x).max())
            assert np.abs(np.asarray(yg).ravel() - y).max() < 1e-7 * (1 + np.abs(y).max())
            corrected += float(daqp) == 0.0
    assert corrected >= 0.5 * 12 * N_UP  # 54 of 72 measured


def test_a_row_guessed_twice_is_the_optimum_or_refused():
    """Dependent active rows (a row and its copy) make the KKT system singular: the guess is
    then refused, or, where the regularised solve splits the force between the two, still the
    QP's optimum."""
    qp = _qp(4)
    ref = _reference(qp)
    y = np.asarray(ref["lam_a"]).ravel()
    k = N_EQ + int(np.argmax(y[N_EQ:]))  # an active one-sided row
    assert y[k] > 1e-6
    qp["a"] = np.vstack([qp["a"], qp["a"][k]])
    qp["uba"] = np.r_[qp["uba"], qp["uba"][k]]
    out = _guessed(qp, np.r_[(y[N_EQ:] > 1e-9).astype(float), 1.0])
    if out["hit"]:
        assert np.abs(out["x"] - np.asarray(ref["x"]).ravel()).max() < 1e-8
        assert abs(out["lam_a"][k] + out["lam_a"][-1] - y[k]) < 1e-8 * (1 + y[k])


def test_a_chain_run_takes_the_daqp_paths_steps(monkeypatch):
    """The 4-link clearance chain (Newton's rounds, frictionless) with the guessed solves
    takes the steps of the run that solves those QPs with DAQP, to the QP's tolerance, and
    the guesses serve most of its QPs."""
    opts = SimulationOptions(t_end=0.03, h_min=1e-3, h_max=1e-3, solver="qp", codegen="off")
    system, _ = get_case("chain").build({"links": 4, "joint": "clearance"})
    guessed = simulate(system, opts)
    monkeypatch.setattr(qp_guess_sparse, "applies", lambda *args: False)
    system, _ = get_case("chain").build({"links": 4, "joint": "clearance"})
    daqp = simulate(system, opts)
    assert guessed.n_steps == daqp.n_steps and guessed.meta["qp_fallback_steps"] == 0
    assert np.abs(guessed.q - daqp.q).max() < 1e-9
    assert guessed.meta["qp_cold_solves"] < 0.5 * daqp.meta["qp_cold_solves"]


def test_newtons_and_kelleys_rounds_reach_the_same_motion(monkeypatch):
    """The two cut schemes (step/cuts_newton.py for frictionless models, step/cuts.py with
    friction) solve the same nonlinear gap: on the 4-link clearance chain (c = 0.1 mm) their
    link centres agree to 1 % of c over 0.05 s (measured 1.0e-7 m: they stop at different
    points within the rounds' tolerance), and Newton's rounds need fewer QPs (186 against 264)."""
    from nlpmbd.step import cuts, qp_cut_rounds

    opts = SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3, solver="qp", codegen="off")
    system, _ = get_case("chain").build({"links": 4, "joint": "clearance"})
    newton = simulate(system, opts)
    monkeypatch.setattr(qp_cut_rounds, "cut_kind", lambda model: cuts.Cuts)
    monkeypatch.setattr("nlpmbd.step.qp_graph.cut_kind", lambda model: cuts.Cuts)
    system, _ = get_case("chain").build({"links": 4, "joint": "clearance"})
    kelley = simulate(system, opts)
    assert newton.n_steps == kelley.n_steps
    centres = [7 * b + k for b in range(4) for k in range(3)]
    assert np.abs(newton.q[:, centres] - kelley.q[:, centres]).max() < 1e-6
    assert newton.iterations.sum() < kelley.iterations.sum()
