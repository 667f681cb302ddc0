"""The QP step's friction fixed point (step/qp_rounds.py) on maps of the normal forces whose
fixed point is known: the substitution, the restart from above, and the continuation where
both fail while the substitution contracts."""

from __future__ import annotations

from types import SimpleNamespace

import casadi as ca
import numpy as np
import pytest

from nlpmbd.step.qp_rounds import fixed_point

TOL = 1e-6  # N: a round is settled when |F(x) - x| is within it


def _linear_map(slope: np.ndarray, offset: np.ndarray) -> ca.Function:
    """A stand-in for a QP round (step/qp_graph.py): normal forces x -> F(x) = slope x +
    offset (the forces the round's friction bounds produce), settled where |F(x) - x| <= TOL;
    `fdirs_next` counts the rounds taken."""
    n = offset.size
    args = {k: ca.MX.sym(k) for k in ("t", "h", "use_curvature")}
    args.update(q=ca.MX.sym("q", 2), v=ca.MX.sym("v", 2), applied=ca.MX.sym("applied", 2))
    x, fdirs = ca.MX.sym("normal", n), ca.MX.sym("fdirs", 1, 1)
    lam = ca.fmax(ca.DM(slope) @ x + ca.DM(offset), 0)
    settled = ca.norm_2(lam - x) <= TOL
    ins = {**args, "normal": x, "fdirs": fdirs}
    outs = {"lam": lam, "settled": settled, "ok": ca.MX(1), "fdirs_next": fdirs + 1}
    return ca.Function("round", list(ins.values()), list(outs.values()), [*ins], [*outs])


def _solve(slope: np.ndarray, offset: np.ndarray, start: np.ndarray, rounds: int = 8) -> dict:
    at = _linear_map(slope, offset)
    args = {n: ca.MX.sym(n, at.sparsity_in(n)) for n in at.name_in() if n not in ("normal",)}
    args.pop("fdirs")
    normal = ca.MX.sym("normal", offset.size)
    model = SimpleNamespace(mu_static=np.full(offset.size, 0.1), masses=np.ones(2))
    out = fixed_point(at, args, normal, rounds, model)
    f = ca.Function("fp", [*args.values(), normal], [out["lam"], out["ok"], out["fdirs_next"]])
    vals = {"t": 0.0, "q": [0, 0], "v": [1.0, 0.0], "h": 1e-5, "use_curvature": 1.0}
    lam, ok, taken = f(*(vals.get(n, [0, 0]) for n in args), start)
    return {"lam": np.array(lam).ravel(), "ok": bool(ok), "rounds": int(taken)}


# coupled contacts whose friction moves each other's normal forces: slope ~0.15 per round
COUPLED = np.array([[0.10, 0.04, 0.02], [0.03, 0.12, 0.05], [0.01, 0.06, 0.14]])
OFFSET = np.array([50.0, 78.0, 165.0])


def test_a_contracting_substitution_that_starts_far_off_is_continued_to_its_fixed_point():
    """From twice the forces (a load that jumped between pin ends in the step before) 8
    rounds at a slope of ~0.2 leave |F(x) - x| ~1e-4 N; the continuation settles it at the
    map's fixed point."""
    exact = np.linalg.solve(np.eye(3) - COUPLED, OFFSET)
    out = _solve(COUPLED, OFFSET, 2 * exact)
    assert out["ok"]
    assert np.abs(out["lam"] - exact).max() < 10 * TOL
    assert out["rounds"] > 8  # not settled by the substitution alone


def test_a_substitution_that_settles_is_not_continued():
    exact = np.linalg.solve(np.eye(3) - COUPLED, OFFSET)
    out = _solve(COUPLED, OFFSET, exact * (1 + 1e-9))
    assert out["ok"] and out["rounds"] <= 2


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_crawling_or_swinging_substitution_is_not_continued(sign):
    """Two contacts that pass their load to each other (slopes 0.95 and 0.05; with sign -1
    -0.95: a swing): the substitution crawls, the per-contact secants from above do not
    settle in their rounds either, and a small change says little about the distance to the
    fixed point: the step fails (the backup solver's and the NLP's to take) rather than being
    continued."""
    slope = np.array([[0.5, 0.45], [0.45, 0.5]]) * np.array([[1.0, sign], [sign, 1.0]])
    slope = slope if sign > 0 else -slope
    offset = np.array([10.0, 20.0])
    exact = np.linalg.solve(np.eye(2) - slope, offset)
    out = _solve(slope, offset, 3 * exact)
    assert not out["ok"]
