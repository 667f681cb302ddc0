"""Soak: a long run of `revolute` (default 10^5 steps) with memory and step time sampled along
the way. Not a test; prints a table and writes JSON.

Run: python -m benchmarks.soak [--steps 100000] [--solver nlp|qp] [--out results/soak]

Memory is the process's resident set size (RSS, /proc/self/statm) every --every steps. The run
keeps its result in memory by design (the arrays are the product: ~0.6 kB per step for
`revolute`), so two growths are reported after warm-up (the first 10% of the steps): of the
RSS, and of the RSS minus the bytes held in the result arrays (`History.nbytes`), which is what
a leak would show. Per-step time drift: median step time (solver and wall) of the last tenth of
the run over that of the second tenth.
"""

from __future__ import annotations

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from nlpmbd import SimulationOptions, simulate  # noqa: E402
from nlpmbd.apps.registry import get_case  # noqa: E402
from nlpmbd.run.history import History  # noqa: E402


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--every", type=int, default=1000, help="sample memory every N steps")
    ap.add_argument("--solver", default="nlp", choices=("nlp", "qp"))
    ap.add_argument("--out", default="results/soak")
    args = ap.parse_args()
    case = get_case("revolute")
    system, _ = case.build({})
    if args.solver == "qp":  # fixed h = 1e-3
        h_min = h_max = 1e-3
        t_end = args.steps * h_max
    else:  # the case's h range; h sits at h_max almost always
        h_min, h_max = case.h_min, case.h_max
        t_end = args.steps * h_max
    original_init = History.__init__

    def tracking_init(self, model):  # the run's History, to read its nbytes while it runs
        original_init(self, model)
        tracking_init.history = self

    History.__init__ = tracking_init
    samples: list[tuple[int, float, int, int]] = []
    wall0 = time.perf_counter()

    def sample(step: int, t: float) -> None:
        if not samples or step - samples[-1][0] >= args.every:
            hist = tracking_init.history
            samples.append((step, time.perf_counter() - wall0, rss_bytes(), hist.nbytes))

    options = SimulationOptions(
        t_end=t_end, h_min=h_min, h_max=h_max, solver=args.solver, codegen="on"
    )
    res = simulate(system, options, on_step=sample)
    History.__init__ = original_init
    s = np.array(samples, dtype=float)
    n = res.n_steps
    warm = s[s[:, 0] >= 0.1 * n][0]
    last = s[-1]
    rss_growth = (last[2] - warm[2]) / warm[2]
    net_growth = ((last[2] - last[3]) - (warm[2] - warm[3])) / (warm[2] - warm[3])
    tenth = max(1, n // 10)
    second, final = res.solve_time[tenth : 2 * tenth], res.solve_time[-tenth:]
    wall_steps = np.diff(s[:, 1]) / np.maximum(np.diff(s[:, 0]), 1)
    k = max(1, len(wall_steps) // 10)
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "solver": args.solver,
        "steps": n,
        "simulated_s": float(res.t[-1]),
        "wall_s": res.meta["wall_time"],
        "failed_steps": int(np.sum(res.status == 3)),
        "rss_after_warmup_MB": warm[2] / 1e6,
        "rss_end_MB": last[2] / 1e6,
        "result_arrays_end_MB": last[3] / 1e6,
        "rss_growth_after_warmup": rss_growth,
        "rss_growth_net_of_result_arrays": net_growth,
        "median_solve_us_2nd_tenth": 1e6 * float(np.median(second)),
        "median_solve_us_last_tenth": 1e6 * float(np.median(final)),
        "solve_time_drift": float(np.median(final) / np.median(second)),
        "wall_us_per_step_2nd_tenth": 1e6 * float(np.median(wall_steps[k : 2 * k])),
        "wall_us_per_step_last_tenth": 1e6 * float(np.median(wall_steps[-k:])),
        "samples": samples,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "soak.json").write_text(json.dumps(report, indent=2))
    for key, value in report.items():
        if key != "samples":
            print(f"{key}: {value:.4g}" if isinstance(value, float) else f"{key}: {value}")


if __name__ == "__main__":
    main()
