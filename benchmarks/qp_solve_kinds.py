"""`python -m benchmarks.qp_solve_kinds CASE [--set K=V ...] [--t-end T] [--option K=V ...]`:
the step QPs of a run counted by kind (issue 30's "iteration counts in the open"): per step,
the single QPs (step/qp_graph.py `_one_qp`) of each Verlet stage and cut round, and how many
of them the guessed active set served (step/qp_warm.py) or DAQP solved. Not a test: it prints
a table. The run goes through CasADi's VM (codegen off), so that a Callback can count inside
the step's graph; the counts are the compiled chunk's.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

import casadi as ca
import numpy as np

from benchmarks.forwarding import Forwarding

#: the cut round and time of the stage-1 QP last seen (shared by the QP Functions of a step)
_LAST: list = [0, -1.0]


class _Counted(Forwarding):
    """`one` (a single step QP) that records, per evaluation, its stage (use_curvature < 0:
    the velocity stage), its cut round (the cut columns set) and its solves (1: DAQP or a hit
    of the guess; 2: a missed guess and DAQP)."""

    def __init__(self, f: ca.Function, seen: Counter) -> None:
        super().__init__(f)
        self.counts = seen

    def seen(self, inputs: dict, outputs: dict) -> None:
        solves = float(outputs["solves"])
        stage = 2 if float(inputs["use_curvature"]) < 0 else 1
        k = 0
        if stage == 1:  # a stage-1 QP at a new time is a step's first (its cuts may be set)
            t = float(inputs["t"])
            k = 0 if t != _LAST[1] else _LAST[0] + 1
            _LAST[:] = [k, t]
        self.counts[stage, k, solves] += 1


def count(case: str, params: dict, t_end: float, options: dict) -> tuple[Counter, Any]:
    """({(stage, cut round, solves): QPs}, the run's result) with codegen off."""
    from nlpmbd import SimulationOptions, simulate
    from nlpmbd.apps.registry import get_case
    from nlpmbd.step import qp_graph

    seen: Counter = Counter()
    made: list = []
    original = qp_graph._one_qp

    def counted(*args: Any, **kwargs: Any) -> ca.Function:
        made.append(_Counted(original(*args, **kwargs), seen))
        return made[-1]

    qp_graph._one_qp = counted  # type: ignore[assignment]
    try:
        c = get_case(case)
        system, _ = c.build(params)
        kw = {"h_min": c.h_min, "h_max": c.h_max, **options, "t_end": t_end, "codegen": "off"}
        r = simulate(system, SimulationOptions(**kw))
    finally:
        qp_graph._one_qp = original  # type: ignore[assignment]
    return seen, r


def table(seen: Counter, r: Any) -> str:
    """Per stage and cut round: QPs per step, and how many of them took 1, 2, ... solves
    (guessed solves until one is verified, and DAQP after the last miss: with UPDATES = 2, 4
    solves is three misses and DAQP; where the guess does not apply, 1 is DAQP's)."""
    steps = int(r.n_steps)
    counts = sorted({n for _, _, n in seen})
    head = " | ".join(f"{n:g} solves" for n in counts)
    lines = [f"| stage | cut round | QPs / step | {head} |", "|---" * (3 + len(counts)) + "|"]
    for s, k in sorted({(s, k) for s, k, _ in seen}):
        cells = [seen[s, k, n] / steps for n in counts]
        lines.append(f"| {s} | {k} | {sum(cells):.2f} | " + " | ".join(f"{c:.2f}" for c in cells)
                     + " |")  # fmt: skip
    total = sum(n * c for (_, _, n), c in seen.items()) / steps
    lines.append(f"\n{steps} steps, {sum(seen.values()) / steps:.2f} QPs and {total:.2f} solves "
                 "per step in the attempts; QP solves per step as the run counts them (guard "
                 f"and projection too): {np.mean(r.iterations):.2f}")  # fmt: skip
    return "\n".join(lines)


def _pairs(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def case_parser(prog: str) -> argparse.ArgumentParser:
    """A case, its parameters (--set K=V ...), options (--option K=V ...) and --t-end."""
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("case")
    p.add_argument("--set", nargs="*", default=[], dest="params")
    p.add_argument("--option", nargs="*", default=[])
    p.add_argument("--t-end", type=float, default=0.05)
    return p


def main(argv: list[str] | None = None) -> int:
    args = case_parser("python -m benchmarks.qp_solve_kinds").parse_args(argv)
    seen, r = count(args.case, _pairs(args.params), args.t_end, _pairs(args.option))
    print(table(seen, r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
