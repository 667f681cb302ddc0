"""`python -m benchmarks.defaults_cost [--rounds N] [--cases ...] [--steps N] [--json FILE]`:
what the default run costs against the fastest options, case by case (issue 19's acceptance:
default / fastest <= 1.5 for every case). Not a test: it prints a table.

Each run is a whole command as a user types it, `nlpmbd run CASE --t-end T --out DIR` (T = the
case's h_max times --steps, 500 by default), figures included, with the options of one mode
added. Its cost is the process CPU of the command and its children (getrusage), so start-up,
compilation, stepping and figures all count. The modes of a round run back to back, rounds are
interleaved, and each mode's median over the rounds is reported with its ratio to the fastest
non-default mode of the same case (the machines are shared and noisy: ratios within a round
compare, absolute seconds do not).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

#: Modes besides the default: the fastest of them is the baseline. "euler qp" is the fast path
#: with the first-order scheme at a fixed h_max, "nlp" the per-step NLP the default used to be.
MODES: dict[str, list[str]] = {
    "default": [],
    "euler qp": ["--solver", "qp", "--integrator", "euler", "--gap-linearization", "scalar"],
    "euler qp vm": [
        *("--solver", "qp", "--integrator", "euler", "--gap-linearization", "scalar"),
        *("--codegen", "off"),
    ],
    "nlp": ["--solver", "nlp", "--integrator", "euler", "--gap-linearization", "scalar"],
}
BLAS_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _cases() -> dict[str, float]:
    from nlpmbd.apps.registry import load_cases

    return {name: case.h_max for name, case in load_cases().items()}


def _cpu(argv: list[str], cwd: str) -> tuple[float, int]:
    """(CPU seconds of the command and its children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, env={**os.environ, **BLAS_ENV}
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.returncode


def measure(cases: dict[str, float], steps: int, rounds: int) -> dict[str, dict[str, list]]:
    """{case: {mode: [cpu per round]}} (None for a failed run)."""
    out: dict[str, dict[str, list]] = {c: {m: [] for m in MODES} for c in cases}
    with tempfile.TemporaryDirectory(prefix="nlpmbd-defaults-") as tmp:
        for r in range(rounds):
            for case, h_max in cases.items():
                for mode, extra in MODES.items():
                    argv = [sys.executable, "-m", "nlpmbd", "run", case]
                    argv += ["--t-end", f"{steps * h_max:.12g}", "--out", f"{case}-{mode}-{r}"]
                    cpu, code = _cpu([*argv, *extra], tmp)
                    out[case][mode].append(cpu if code in (0, 3) else None)
                    print(f"round {r + 1} {case} {mode}: {cpu:.2f} s (exit {code})", flush=True)
    return out


def table(data: dict[str, dict[str, list]]) -> str:
    head = "| case | " + " | ".join(MODES) + " | default / fastest |"
    lines = [head, "|---" * (len(MODES) + 2) + "|"]
    for case, modes in data.items():
        med = {m: median(v) if v and None not in v else None for m, v in modes.items()}
        others = [v for m, v in med.items() if m != "default" and v is not None]
        ratio = med["default"] / min(others) if others and med["default"] else float("nan")
        cells = [f"{v:.2f}" if v is not None else "failed" for v in med.values()]
        lines.append(f"| {case} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.defaults_cost")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--cases", nargs="+")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    cases = _cases()
    if args.cases:
        cases = {c: cases[c] for c in args.cases}
    data = measure(cases, args.steps, args.rounds)
    print("\nprocess CPU seconds, median of interleaved rounds (figures included):\n")
    print(table(data))
    if args.json:
        args.json.write_text(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
