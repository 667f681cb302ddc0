"""Scaling benchmark (issue 15): cost per step and setup time of the `chain` case against N.

`python -m benchmarks.scaling [--links 1,2,4,8,16,32] [--t-end 0.05] [--rounds 3] [--h 1e-3]`

Never run by tests. For joint = ideal and joint = clearance (c = 1e-4 m, layout planar) and each
solver path of PATHS, all at the fixed step h:

- "compiled QP": solver="qp", codegen="on" (the chunk Function compiled to C);
- "NLP (predictor)": the default solver (IPOPT with the QP predictor);
- "IPOPT only": predictor=False, IPOPT on every step.

Each run is one simulation in its own subprocess (a fresh interpreter, BLAS pinned to one thread,
and a fresh empty $NLPMBD_CACHE, so the setup time always includes building the problem and any
C compilation, never a cached library). From its result: the loop time per step, (meta
wall_time - meta setup_time) / steps, the median of the per-step solve times (the QP fast
path charges each step its chunk's mean) and the setup time (meta setup_time). Runs are interleaved:
each round runs every configuration once (in order of N, then joint kind, then path), and the
table shows the medians over rounds. The growth exponent p of time/step ~ N^p is the log-log
least-squares slope over the measured N in [4, 32] (needs two of them).

Bounded: before a run, its wall time is estimated from the same configuration at the previous N
(measured run time, scaled by (N / N_prev)^3); a configuration whose estimate exceeds
SKIP_ABOVE_S is not run again at this or any larger N and is printed as "skipped". A run that
fails or exceeds RUN_TIMEOUT_S prints "failed".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

#: path name -> SimulationOptions keywords
PATHS: dict[str, dict[str, Any]] = {
    "compiled QP": {"solver": "qp", "codegen": "on"},
    "NLP (predictor)": {},
    "IPOPT only": {"predictor": False},
}
JOINTS = ("ideal", "clearance")
SKIP_ABOVE_S, RUN_TIMEOUT_S = 60.0, 300.0
FIT_RANGE = (4, 32)
Config = tuple[str, str]  # (joint, path)
FIGURES = ("setup_s", "loop_s", "per_step_us", "solve_median_us")


def one_run(links: int, joint: str, path: str, t_end: float, h: float) -> dict[str, Any]:
    """Simulate the chain once in this process; the figures of the result."""
    import numpy as np

    from nlpmbd import SimulationOptions, simulate
    from nlpmbd_cases.chain import CASE

    overrides: dict[str, Any] = {"links": links, "joint": joint}
    if joint == "clearance":
        overrides["clearance"] = 1e-4
    system, _ = CASE.build(overrides)
    opts = SimulationOptions(t_end=t_end, h_min=h, h_max=h, **PATHS[path])
    res = simulate(system, opts)
    wall, setup = float(res.meta["wall_time"]), float(res.meta["setup_time"])
    return {
        "steps": res.n_steps,
        "setup_s": setup,
        "loop_s": wall - setup,
        "per_step_us": 1e6 * (wall - setup) / max(res.n_steps, 1),
        "solve_median_us": 1e6 * float(np.median(res.solve_time)) if res.n_steps else math.nan,
        "failed_steps": int((res.status == 3).sum()),
    }


def run_subprocess(links: int, joint: str, path: str, t_end: float, h: float) -> dict | None:
    """one_run in a fresh interpreter with an empty compile cache; None if it failed."""
    spec = json.dumps({"links": links, "joint": joint, "path": path, "t_end": t_end, "h": h})
    with tempfile.TemporaryDirectory(prefix="nlpmbd-scaling-") as cache:
        env = dict(os.environ, NLPMBD_CACHE=cache)
        env.update({v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
        tic = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "benchmarks.scaling", "--one", spec],
                capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return None
        elapsed = time.perf_counter() - tic
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        return None
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = elapsed
    return out


def estimate_s(prev: dict | None, n_prev: int, n: int) -> float:
    """Expected wall time of a run at N = n from the run at n_prev (0 if none)."""
    if prev is None:
        return 0.0
    return prev["setup_s"] + prev["loop_s"] * (n / n_prev) ** 3


def run_all(links: Sequence[int], t_end: float, h: float, rounds: int) -> dict:
    """results[(joint, path)][n] = list of run figures (empty: skipped; None items: failed)."""
    configs: list[Config] = [(j, p) for j in JOINTS for p in PATHS]
    results: dict[Config, dict[int, list]] = {c: {} for c in configs}
    skipped: dict[Config, int] = {}  # config -> the smallest N skipped
    for r in range(rounds):
        for k, n in enumerate(links):
            for cfg in configs:
                runs = results[cfg].setdefault(n, [])
                prev = _median_run(results[cfg].get(links[k - 1], [])) if k else None
                too_long = estimate_s(prev, links[k - 1] if k else 1, n) > SKIP_ABOVE_S
                if n >= skipped.get(cfg, n + 1) or (too_long and not runs):
                    skipped.setdefault(cfg, n)
                    continue
                m = run_subprocess(n, cfg[0], cfg[1], t_end, h)
                runs.append(m)
                what = "failed" if m is None else f"{m['per_step_us']:.0f} us/step"
                extra = "" if m is None else f", setup {m['setup_s']:.2f} s"
                print(f"[round {r + 1}] N={n} {cfg[0]} / {cfg[1]}: {what}{extra}", file=sys.stderr)
    return results


def _median_run(runs: list) -> dict | None:
    ok = [m for m in runs if m is not None]
    if not ok:
        return None
    return {k: statistics.median(m[k] for m in ok) for k in FIGURES}


def growth(points: dict[int, float]) -> float:
    """Least-squares slope of log(time) against log(N) over N in FIT_RANGE (NaN if < 2)."""
    xs = [
        (math.log(n), math.log(v)) for n, v in points.items() if FIT_RANGE[0] <= n <= FIT_RANGE[1]
    ]
    if len(xs) < 2:
        return math.nan
    mx = sum(x for x, _ in xs) / len(xs)
    my = sum(y for _, y in xs) / len(xs)
    return sum((x - mx) * (y - my) for x, y in xs) / sum((x - mx) ** 2 for x, _ in xs)


def table(results: dict, links: Sequence[int], key: str, unit: str, fmt: str) -> str:
    """A Markdown table: one row per (joint, path), one column per N, and the growth exponent."""
    fit = [n for n in links if FIT_RANGE[0] <= n <= FIT_RANGE[1]] or [0]
    head = f"| joints | path | {' | '.join(f'N={n}' for n in links)} | growth N={fit[0]}.."
    lines = [head + f"{fit[-1]} |", "|---|---|" + "---|" * (len(links) + 1)]
    for (joint, path), by_n in results.items():
        cells, points = [], {}
        for n in links:
            runs = by_n.get(n, [])
            med = _median_run(runs)
            if not runs:
                cells.append("skipped")
            elif med is None:
                cells.append("failed")
            else:
                failed = any(m is None or m["failed_steps"] for m in runs)
                cells.append(format(med[key], fmt) + ("*" if failed else ""))
                points[n] = med[key]
        p = growth(points)
        name = "clearance c = 1e-4" if joint == "clearance" else joint
        lines.append(f"| {name} | {path} | {' | '.join(cells)} | " + (
            "n/a |" if math.isnan(p) else f"N^{p:.1f} |"))  # fmt: skip
    return f"{unit}\n\n" + "\n".join(lines) + "\n"


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__)
    parser.add_argument("--links", default="1,2,4,8,16,32", help="comma list of N")
    parser.add_argument("--t-end", type=float, default=0.05, help="simulated s per run")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--h", type=float, default=1e-3, help="fixed step, s")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one run, JSON out
    args = parser.parse_args(argv)
    if args.one is None:
        args.links = sorted({int(n) for n in args.links.split(",") if n.strip()})
        if not args.links or min(args.links) < 1 or max(args.links) > 64 or args.rounds < 1:
            parser.error("--links must be integers in 1..64 and --rounds >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.one is not None:
        spec = json.loads(args.one)
        print(json.dumps(one_run(**spec)))
        return 0
    tic = time.perf_counter()
    results = run_all(args.links, args.t_end, args.h, args.rounds)
    print(f"chain (planar), {args.t_end:g} s at h = {args.h:g} s, medians of {args.rounds} "
          f"interleaved round(s), one subprocess per run, fresh compile cache\n")  # fmt: skip
    print(table(results, args.links, "per_step_us", "Loop time per step, us:", ".0f"))
    solve = "Median per-step solve time (SimulationResult.solve_time), us:"
    print(table(results, args.links, "solve_median_us", solve, ".0f"))
    print(table(results, args.links, "setup_s", "Setup time (with compilation), s:", ".2f"))
    print("(* a run of this cell failed or had failed steps)")
    print(f"total {time.perf_counter() - tic:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
