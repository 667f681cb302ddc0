"""`python -m benchmarks.defaults_before_after`: the default run before and after issue 19
against the independent references of benchmarks/defaults_problems.py. Not a test: it prints
a table (error in each problem's own metric, process CPU s).

before: the old defaults written out (solver nlp, scheme euler, scalar gap linearisation,
curvature+projection, the NLP choosing h in the problem's range); after: no option at all but
the problem's step range.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from nlpmbd import SimulationOptions, SolverFailure, simulate

from .defaults_problems import problems
from .defaults_table import quiet

BEFORE = {
    "solver": "nlp",
    "integrator": "euler",
    "gap_linearization": "scalar",
    "gap_correction": "curvature+projection",
    "step_control": "nlp",
}


def run(p, options: dict) -> tuple[float, float, int, str]:
    """(error, CPU s, steps, what went wrong)."""
    opts = {"t_end": p.t_end, "h_min": p.h_range[0], "h_max": p.h_range[1], **options}
    with quiet():
        tic = time.process_time()
        try:
            res = simulate(p.build(), SimulationOptions(**opts), force=True)
        except SolverFailure as err:
            return np.nan, time.process_time() - tic, 0, str(err)[:80]
        cpu = time.process_time() - tic
    return p.error(res), cpu, res.n_steps, ""


def main() -> int:
    print("| problem | metric | before: error / CPU s / steps | after: error / CPU s / steps |")
    print("|---|---|---|---|")
    for p in problems():
        if dict(p.options).get("solver") == "nlp":
            continue  # a variant of another problem on the NLP path
        cells = []
        for options in (BEFORE, {}):
            err, cpu, steps, why = run(p, options)
            cells.append(f"{err:.3g} / {cpu:.2f} / {steps}" + (f" ({why})" if why else ""))
        print(f"| {p.name} | {p.metric} | {cells[0]} | {cells[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
