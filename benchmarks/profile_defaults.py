"""Where the default run's loop time goes: the compiled chunk against the Python around it.

    python -m benchmarks.profile_defaults [--repeats 3] [--json FILE]
    python -m benchmarks.profile_defaults --run pendulum --h 1e-3     (one command, any options)

Runs `nlpmbd run CASE --no-plot --out DIR ...` in a subprocess of this module (BLAS on one
thread; the chunk compiled and cached by an untimed run first, peer_default_runs.warm_up), with
timers wrapped around the functions of the run loop (TIMED below): each gets its exclusive wall
time (minus the timed functions it calls) and its call count; "other" is the rest of the loop
(meta.json wall_time - setup_time) that none of them covers. The timers cost ~1 us per call (a
few per step on the Python path, a few per chunk on the compiled one): see the `calls` column.
Without --run it profiles the nlpmbd rows of benchmarks/peer_defaults.py: slider_crank
(T = 0.14 s) and pendulum at the defaults, and the pendulum at --h 1e-3; each --repeats times,
medians.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .peer_default_runs import Run, warm_up
from .peer_runs import BLAS_ENV

ROOT = Path(__file__).resolve().parent.parent
#: (module, owner or None for a module-level function, name, label) of every timed function.
TIMED = (
    ("nlpmbd.run.chunks", "_Buffered", "__call__", "compiled chunk (one Function evaluation)"),
    ("nlpmbd.run.chunks", "ChunkRunner", "run", "ChunkRunner.run: reading the record"),
    ("nlpmbd.run.chunks", "ChunkRunner", "_points", "ChunkRunner._points (records.point_arrays)"),
    ("nlpmbd.run.chunks", "ChunkRunner", "_steps", "ChunkRunner._steps"),
    ("nlpmbd.run.chunks", "ChunkRunner", "after", "ChunkRunner.after (codegen auto)"),
    ("nlpmbd.run.stepping", None, "chunk_end", "chunks.chunk_end (warm start)"),
    ("nlpmbd.run.stepping", None, "normal_history", "qp.normal_history"),
    ("nlpmbd.run.history", "History", "extend", "History.extend"),
    ("nlpmbd.run.history", "History", "add_point", "History.add_point"),
    ("nlpmbd.run.history", "History", "add_step", "History.add_step"),
    ("nlpmbd.run.history", "History", "_flush", "History._flush (model.report)"),
    ("nlpmbd.run.contact_memory", "CompliantContacts", "start", "CompliantContacts.start"),
    (
        "nlpmbd.run.contact_memory",
        "CompliantContacts",
        "after_step",
        "CompliantContacts.after_step",
    ),
    ("nlpmbd.run.validity", "RunChecks", "diverged", "RunChecks.diverged"),
    ("nlpmbd.run.progress", "Progress", "update", "Progress.update (tqdm)"),
    ("nlpmbd.run.stepping", None, "solve_with_retries", "step solve (retry.solve_with_retries)"),
    ("nlpmbd.run.stepping", "Stepper", "_record", "Stepper._record (Phi, projection, ...)"),
    ("nlpmbd.run.controller", "StepController", "error", "StepController.error"),
    ("nlpmbd.run.stepping", "Stepper", "chunk", "Stepper.chunk (the rest of it)"),
    ("nlpmbd.run.stepping", "Stepper", "one_step", "Stepper.one_step (the rest of it)"),
)
ROWS = {
    "slider_crank default": ["slider_crank", "--t-end", "0.14"],
    "pendulum default": ["pendulum"],
    "pendulum --h 1e-3": ["pendulum", "--h", "1e-3"],
}


class Timers:
    """Exclusive wall time per label: a timed call's time minus that of the timed calls in it."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.stack: list[float] = []  # per open call: time of the timed calls inside it

    def wrap(self, label: str, f):
        @functools.wraps(f)
        def timed(*args, **kwargs):
            self.stack.append(0.0)
            tic = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                spent = time.perf_counter() - tic
                inner = self.stack.pop()
                self.total[label] = self.total.get(label, 0.0) + spent - inner
                self.calls[label] = self.calls.get(label, 0) + 1
                if self.stack:
                    self.stack[-1] += spent

        return timed

    def install(self) -> None:
        for module, owner, name, label in TIMED:
            mod = importlib.import_module(module)
            target = getattr(mod, owner) if owner else mod
            setattr(target, name, self.wrap(label, getattr(target, name)))


def child(argv: list[str]) -> None:
    """In the subprocess: the command with the timers; prints one JSON line."""
    timers = Timers()
    timers.install()
    from nlpmbd.apps.cli import main

    with tempfile.TemporaryDirectory(prefix="profile_defaults_") as tmp:
        out = Path(tmp) / "run"
        code = main(["run", *argv, "--no-plot", "--force", "--out", str(out)])
        meta = json.loads((out / "meta.json").read_text())
    row = {
        "exit": code,
        "loop": meta["wall_time"] - meta["setup_time"],
        "steps": meta["summary"]["steps"],
        "codegen": meta.get("codegen"),
        "solver_path": meta.get("solver_path"),
        "total": timers.total,
        "calls": timers.calls,
    }
    print("\n" + json.dumps(row))


def profile(argv: list[str], repeats: int) -> dict:
    env = {**os.environ, **BLAS_ENV}
    warm_up(Run("warm-up", argv[0], "nlpmbd", tuple(argv[1:])), None)
    runs = []
    for _ in range(repeats):
        cmd = [sys.executable, "-m", "benchmarks.profile_defaults", "--child", *argv]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    labels = [label for *_, label in TIMED]
    med = {k: statistics.median(r["total"].get(k, 0.0) for r in runs) for k in labels}
    loop = statistics.median(r["loop"] for r in runs)
    med["other (loop time not in any timed function)"] = loop - sum(med.values())
    return {
        "argv": argv,
        "loop": loop,
        "steps": runs[0]["steps"],
        "codegen": runs[0]["codegen"],
        "solver_path": runs[0]["solver_path"],
        "exclusive": med,
        "calls": runs[0]["calls"],
    }


def report(name: str, p: dict) -> str:
    us = 1e6 / p["steps"]
    lines = [
        f"\n{name}: `nlpmbd run {' '.join(p['argv'])} --no-plot`, path {p['solver_path']}, "
        f"codegen {p['codegen']}, {p['steps']} steps, loop {p['loop']:.3f} s "
        f"({p['loop'] * us:.1f} us per step)",
        "",
        "| where | us per step | share of the loop | calls |",
        "|---|---|---|---|",
    ]
    for label, t in sorted(p["exclusive"].items(), key=lambda kv: -kv[1]):
        if abs(t) * us < 0.05:
            continue
        calls = p["calls"].get(label, "")
        lines.append(f"| {label} | {t * us:.1f} | {t / p['loop']:.1%} | {calls} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--run", nargs=argparse.REMAINDER, help="CASE [options]: this command only")
    args = ap.parse_args(argv)
    rows = {"this command": args.run} if args.run else ROWS
    out = {}
    for name, cmd in rows.items():
        out[name] = profile(cmd, args.repeats)
        print(report(name, out[name]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
