"""`python -m benchmarks.cut_excess CASE [--set K=V ...] [--option K=V ...] [--t-end T]`: the
vector-linearised radial gaps' rounds (step/cuts.py) per step: the QPs of the position stage
by round (0: the first; k: the k-th cut round, counted in the order CasADi's VM runs them), and
the largest excess |d(q1)| / c - 1 of an offset over its disc after each, median over the first
and the last half of the run. Not a test: it prints a table (codegen off, like
benchmarks/qp_solve_kinds.py).
"""

from __future__ import annotations

import sys
from typing import Any

import casadi as ca
import numpy as np

from benchmarks.forwarding import Forwarding
from benchmarks.qp_solve_kinds import _pairs, case_parser

#: the round and time of the QP last seen, shared by the QP Functions of a step: a QP at a new
#: time is a step's first (its cut state may hold cuts already: Newton's, Cuts.first)
_ROUND = [0, -1.0]


class _Excess(Forwarding):
    def __init__(self, f: ca.Function, model: Any, log: list) -> None:
        super().__init__(f)
        self.offset, self.index = model.offset, np.flatnonzero(model.cone > 0)
        self.c, self.log = model.cone[self.index], log

    def seen(self, inputs: dict, outputs: dict) -> None:
        if float(inputs["use_curvature"]) < 0:  # the velocity stage: no rounds
            return
        t = float(inputs["t"])
        _ROUND[0] = 0 if t != _ROUND[1] else _ROUND[0] + 1
        _ROUND[1] = t
        d = np.asarray(self.offset(outputs["q_new"])).reshape(-1, 3)[self.index]
        excess = np.linalg.norm(d, axis=1) / self.c - 1
        self.log.append((float(inputs["t"]), _ROUND[0], float(excess.max())))


def main(argv: list[str] | None = None) -> int:
    from nlpmbd import SimulationOptions, simulate
    from nlpmbd.apps.registry import get_case
    from nlpmbd.step import qp_graph

    a = case_parser("python -m benchmarks.cut_excess").parse_args(argv)
    log: list = []
    made: list = []  # the Callbacks must outlive the run
    original = qp_graph._one_qp

    def counted(kernel: Any, *args: Any, **kwargs: Any) -> ca.Function:
        made.append(_Excess(original(kernel, *args, **kwargs), kernel.model, log))
        return made[-1]

    qp_graph._one_qp = counted  # type: ignore[assignment]
    try:
        case = get_case(a.case)
        system, _ = case.build(_pairs(a.params))
        kw = {"h_min": case.h_min, "h_max": case.h_max, **_pairs(a.option)}
        r = simulate(system, SimulationOptions(**kw, t_end=a.t_end, codegen="off"))
    finally:
        qp_graph._one_qp = original  # type: ignore[assignment]
    steps = int(r.n_steps)
    print(f"{steps} steps, {r.meta['steps_capped_cuts']} used every cut round, "
          f"{r.meta['qp_fallback_steps']} fell back to the NLP")  # fmt: skip
    print(
        "| QP | QPs / step | median excess, first half | last half | max |\n|---|---|---|---|---|"
    )
    for k in sorted({k for _, k, _ in log}):
        t, e = np.array([(t, x) for t, kk, x in log if kk == k]).T
        cells = [
            f"{np.median(x):.1e}" if x.size else "-"
            for x in (e[t < a.t_end / 2], e[t >= a.t_end / 2])
        ]
        print(f"| {k} | {t.size / steps:.2f} | {cells[0]} | {cells[1]} | {e.max():.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
