"""`python -m benchmarks.step_qp_profile CASE [--set K=V ...] [--t-end T]`: where a compiled
step QP's time goes (issue 30's profile). Runs CASE on the QP path at its h_max to T, then
times, compiled, at that state (first QP of a step: use_curvature 1, no cuts, the last step's
normal forces):

* one single QP as the rounds call it (step/qp_graph.py `_one_qp`: rows, objective, DAQP,
  forces, checks, the position update);
* the same graph with the QP solver replaced by a stub (what is left is the graph's own cost);
* the QP's data alone (`_Rows` and `Objective`: what every cut and friction round recomputes
  from the same t, q, v, h);
* a trivial compiled Function (the cost of a call from Python, in every number above).

Not a test: it prints four lines. CPU time (time.process_time), 200 calls each.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import casadi as ca
import numpy as np

from .qp_solve_kinds import _pairs

CALLS = 200


def _stub(name: str, plugin: str, h: ca.Sparsity, a: ca.Sparsity, friction: bool = False) -> Any:
    """A Function of the conic's signature that solves nothing (x, lam_a ~ 0)."""
    n, m = h.size1(), a.size1()
    ins = {"h": ca.MX.sym("h", h), "g": ca.MX.sym("g", n), "a": ca.MX.sym("a", a)}
    for key, size in (("lba", m), ("uba", m), ("lbx", n), ("ubx", n), ("x0", n)):
        ins[key] = ca.MX.sym(key, size)
    ins.update(lam_x0=ca.MX.sym("lam_x0", n), lam_a0=ca.MX.sym("lam_a0", m))
    x = 1e-9 * ins["g"]
    out = {"x": x, "cost": ca.MX(0), "lam_a": 1e-9 * ins["uba"], "lam_x": 0 * x}
    return ca.Function(name, list(ins.values()), list(out.values()), list(ins), list(out))


def _timed(f: Callable[..., Any], args: dict) -> float:
    """CPU seconds per call."""
    f(**args)
    t0 = time.process_time()
    for _ in range(CALLS):
        f(**args)
    return (time.process_time() - t0) / CALLS


def profile(case: str, params: dict, t_end: float) -> dict[str, float]:
    """{part: CPU seconds per call} (module docstring)."""
    from nlpmbd import SimulationOptions, simulate
    from nlpmbd.apps.registry import get_case
    from nlpmbd.model.symbolic import SymbolicModel
    from nlpmbd.run.codegen import compile_function
    from nlpmbd.run.solvers import build_kernel
    from nlpmbd.step import qp_graph
    from nlpmbd.step.config import DEFAULT_FRICTION
    from nlpmbd.step.qp_cut_rounds import cut_state
    from nlpmbd.step.qp_objective import Objective
    from nlpmbd.step.qp_symbols import step_symbols

    c = get_case(case)
    opts = SimulationOptions(t_end=t_end, h_min=c.h_max, h_max=c.h_max, solver="qp", codegen="on")
    r = simulate(c.build(params)[0], opts)
    kernel = build_kernel(SymbolicModel.build(c.build(params)[0]), opts)
    m = kernel.model
    out: dict[str, float] = {}
    solver = qp_graph.qp_solver
    try:
        for part in ("one QP", "its graph without the solver"):
            if part != "one QP":
                qp_graph.qp_solver = _stub  # type: ignore[assignment]
            one = qp_graph._one_qp(kernel, "daqp", DEFAULT_FRICTION, kernel.vector)
            f, _ = compile_function(one)
            args = {n: np.zeros(one.sparsity_in(n).shape) for n in one.name_in()}
            args.update(t=r.t[-1], q=r.q[-1], v=r.v[-1], h=c.h_max, use_curvature=1.0)
            args["normal"] = np.maximum(r.lam[-1], 0)
            out[part] = _timed(f, args)
    finally:
        qp_graph.qp_solver = solver  # type: ignore[assignment]
    step = step_symbols(m)
    released = ca.MX.sym("released", m.n_gap)
    cuts = cut_state(m) if kernel.vector else {}
    phi = kernel.gap_bound(step["q"], step["v"], step["h"], step["use_curvature"])
    rows = qp_graph._Rows(kernel, step, phi, released, cuts)
    obj = Objective(kernel, step)
    ins = {**step, "released": released, **cuts}
    data = {"A": rows.A, "uba": rows.uba, "g": obj.g, "H": obj.hessian(0)}
    f, _ = compile_function(
        ca.Function("qp_data", list(ins.values()), list(data.values()), list(ins), list(data))
    )
    out["the QP data alone (rows, objective)"] = _timed(f, {n: args[n] for n in ins})
    q = ca.MX.sym("q", m.n_q)
    f, _ = compile_function(ca.Function("trivial", [q], [2 * q], ["q"], ["r"]))
    out["a trivial Function (the call from Python)"] = _timed(f, {"q": r.q[-1]})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.step_qp_profile")
    p.add_argument("case")
    p.add_argument("--set", nargs="*", default=[], dest="params")
    p.add_argument("--t-end", type=float, default=0.05)
    args = p.parse_args(argv)
    for part, seconds in profile(args.case, _pairs(args.params), args.t_end).items():
        print(f"{part}: {1e6 * seconds:.0f} us per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
