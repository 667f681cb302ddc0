"""`python -m benchmarks.chain_cost [--links 4 8 16 32] [--rounds 3] [--python P ...]`: the
clearance chain's compiled QP path over a whole simulated second (issue 30's acceptance: N =
32 <= 1 ms per step, growth N = 4..32 <= N^1.3), per Python interpreter given (e.g. this
checkout's venv and main's), interleaved round by round. Each run is the command

    nlpmbd run chain --set links=N --set joint=clearance --t-end 1 --h 1e-3 --solver qp
        --codegen on

and its cost the process CPU (getrusage: stepping, start-up and, on a first run, compilation)
and the run's median step time (meta.json, wall). A first untimed round fills the compiled
chunk's cache, so compilation is not counted. Not a test: it prints a table.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

import numpy as np


def _run(python: str, links: int, out: Path) -> tuple[float, float, float]:
    """(process CPU s, median step ms, QP solves per step) of one run."""
    argv = [python, "-m", "nlpmbd", "run", "chain", "--set", f"links={links}"]
    argv += ["--set", "joint=clearance", "--t-end", "1", "--h", "1e-3", "--solver", "qp"]
    argv += ["--codegen", "on", "--out", str(out), "--no-plot"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # run from the output's folder: `-m nlpmbd` would import a checkout in the working directory
    subprocess.run(argv, capture_output=True, check=True, cwd=out.parent)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = json.loads((out / "meta.json").read_text())["summary"]
    return cpu, summary["median_step_ms"], summary["mean_iterations"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.chain_cost")
    p.add_argument("--links", type=int, nargs="+", default=[4, 8, 16, 32])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--python", nargs="+", default=[sys.executable])
    args = p.parse_args(argv)
    data: dict = {(py, n): [] for py in args.python for n in args.links}
    with tempfile.TemporaryDirectory(prefix="nlpmbd-chain-") as tmp:
        for r in range(args.rounds + 1):
            for n in args.links:
                for py in args.python:
                    got = _run(py, n, Path(tmp) / f"{n}-{r}")
                    if r:  # round 0 compiles
                        data[py, n].append(got)
                    print(f"round {r} N={n} {py}: {got[0]:.2f} s CPU, {got[1]:.3f} ms/step, "
                          f"{got[2]:.2f} QPs/step", flush=True)  # fmt: skip
    print("\n| python | N | CPU s | ms/step (median) | QP solves/step |\n|---|---|---|---|---|")
    for (py, n), runs in data.items():
        cpu, ms, qps = (median(x) for x in zip(*runs, strict=True))
        print(f"| {py} | {n} | {cpu:.2f} | {ms:.3f} | {qps:.2f} |")
    for py in args.python:
        ms = [median(x[1] for x in data[py, n]) for n in args.links]
        if len(ms) > 1:
            slope = np.polyfit(np.log(args.links), np.log(ms), 1)[0]
            print(f"{py}: growth of ms/step over N = {args.links[0]}..{args.links[-1]}: "
                  f"N^{slope:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
