"""Scaling benchmark (issue 15): how the loop time per step, the median per-step solve time and
the setup time (with C compilation) of the `chain` case grow with its number of links N.

`nlpmbd bench --scaling [--links 1,2,4,8,16,32] [--t-end 0.05] [--rounds 3] [--h 1e-3] [--out DIR]`
(or `python -m nlpmbd.apps.scaling` with the same options). For joint = ideal and joint =
clearance (c = CLEARANCE, layout planar) and each solver path of PATHS, all at the fixed step h:

- "compiled QP": solver="qp", codegen="on" (the chunk Function compiled to C);
- "NLP (predictor)": the default solver (IPOPT with the QP predictor);
- "IPOPT only": predictor=False, IPOPT on every step.

Each run is one simulation in its own subprocess, `python -m nlpmbd.apps.scaling --one SPEC` (a
fresh interpreter, BLAS pinned to one thread, a fresh empty $NLPMBD_CACHE: the setup time always
includes building the problem and any C compilation, never a cached library). From its result:
the loop time per step, (meta wall_time - meta setup_time) / steps, the median of the per-step
solve times (the QP fast path charges each step its chunk's mean) and the setup time (meta
setup_time). Runs are interleaved: each round runs every configuration once (in order of N, then
joint kind, then path), and the tables show the medians over rounds. The growth exponent p of
time ~ N^p is the log-log least-squares slope over the measured N in [4, 32] (needs two of them).

Bounded: before a run, its wall time is estimated from the same configuration at the previous N
(measured setup time + loop time * (N / N_prev)^3); a configuration whose estimate exceeds
SKIP_ABOVE_S is not run again at this or any larger N ("skipped"). A run that fails or exceeds
RUN_TIMEOUT_S is "failed". The report (apps/scaling_report.py) is printed and written to
OUT/scaling.md, the raw figures to OUT/scaling.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NoReturn

from ..errors import InputError
from ..validation import short_repr
from .bench_args import (
    DEFAULT_H,
    DEFAULT_LINKS,
    DEFAULT_OUT,
    DEFAULT_ROUNDS,
    MAX_LINKS,
    add_scaling_arguments,
)
from .bench_args import SCALING_T_END as DEFAULT_T_END
from .machine import BLAS_ENV, machine_info
from .registry import get_case
from .scaling_report import Config, Results, median_run, raw_figures, report, write_files

#: The case timed (found through the case registry) and its size parameter N.
CASE_NAME, SIZE_PARAMETER = "chain", "links"
CLEARANCE = 1e-4  # m: radial clearance of every pin with joint = clearance
#: path name -> SimulationOptions keywords
PATHS: dict[str, dict[str, Any]] = {
    "compiled QP": {"solver": "qp", "codegen": "on"},
    "NLP (predictor)": {},
    "IPOPT only": {"predictor": False},
}
JOINTS = ("ideal", "clearance")
#: A configuration whose estimated run time exceeds SKIP_ABOVE_S s is skipped; a run is stopped
#: (failed) after RUN_TIMEOUT_S s.
SKIP_ABOVE_S, RUN_TIMEOUT_S = 60.0, 300.0


@dataclass(frozen=True)
class Settings:
    """The options of a scaling run (out: the directory of scaling.md and scaling.json)."""

    links: list[int]
    rounds: int
    t_end: float
    h: float
    out: str


def scaling_settings(args: argparse.Namespace) -> Settings:
    """The checked options of a scaling run: InputError naming the flag and its range."""
    links = _check(
        "--links",
        args.links,
        ",".join(map(str, DEFAULT_LINKS)),
        _int_list,
        lambda v: bool(v) and 1 <= v[0] and v[-1] <= MAX_LINKS,
        f"a comma list of integers in 1..{MAX_LINKS}",
    )
    rounds = _check(
        "--rounds", args.rounds, DEFAULT_ROUNDS, int, lambda v: v >= 1, "an integer >= 1"
    )
    seconds = "a finite number of seconds"
    h = _check("--h", args.h, DEFAULT_H, float, lambda v: 0 < v < math.inf, f"{seconds} > 0")
    t_end = _check(
        "--t-end", args.t_end, DEFAULT_T_END, float, lambda v: h <= v < math.inf,
        f"{seconds} >= h = {h:g}",
    )  # fmt: skip
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out must be a directory, got the file {str(out)!r}")
    return Settings(links, rounds, t_end, h, str(out))


def _check(flag: str, value: Any, default: Any, parse: Callable, ok: Callable, allowed: str) -> Any:
    """parse(value as text) (the default if value is None) if ok(it), else InputError."""
    try:
        got = parse(str(default if value is None else value))
        if ok(got):
            return got
    except ValueError:
        pass
    raise InputError(f"{flag} must be {allowed}, got {short_repr(value)}")


def _int_list(text: str) -> list[int]:
    return sorted({int(n) for n in text.split(",") if n.strip()})


def one_run(links: int, joint: str, path: str, t_end: float, h: float) -> dict[str, Any]:
    """Simulate the case once in this process; the figures of the result."""
    import numpy as np

    from ..run.options import SimulationOptions
    from ..run.simulate import simulate

    overrides: dict[str, Any] = {SIZE_PARAMETER: links, "joint": joint}
    if joint == "clearance":
        overrides["clearance"] = CLEARANCE
    system, _ = get_case(CASE_NAME).build(overrides)
    res = simulate(system, SimulationOptions(t_end=t_end, h_min=h, h_max=h, **PATHS[path]))
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
        env = dict(os.environ, NLPMBD_CACHE=cache, **{v: "1" for v in BLAS_ENV})
        tic = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "nlpmbd.apps.scaling", "--one", spec],
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


def run_all(links: Sequence[int], t_end: float, h: float, rounds: int) -> Results:
    """results[(joint, path)][n] = the runs of every round (empty: skipped; None: failed)."""
    configs: list[Config] = [(j, p) for j in JOINTS for p in PATHS]
    results: Results = {c: {} for c in configs}
    skipped: dict[Config, int] = {}  # config -> the smallest N skipped
    for r in range(rounds):
        for k, n in enumerate(links):
            for cfg in configs:
                runs = results[cfg].setdefault(n, [])
                prev = median_run(results[cfg].get(links[k - 1], [])) if k else None
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


def run_scaling(args: argparse.Namespace) -> int:
    """Check the options, run, print the report, write OUT/scaling.md and OUT/scaling.json."""
    settings = scaling_settings(args)
    get_case(CASE_NAME)  # InputError now, not in every subprocess, if the case is not installed
    tic = time.perf_counter()
    results = run_all(settings.links, settings.t_end, settings.h, settings.rounds)
    elapsed = time.perf_counter() - tic
    heading = (
        f"{CASE_NAME} (planar), {settings.t_end:g} s at h = {settings.h:g} s, medians of "
        f"{settings.rounds} interleaved round(s), one subprocess per run, fresh compile cache"
    )
    names = {"clearance": f"clearance c = {CLEARANCE * 1e3:g} mm"}
    text = report(results, settings.links, heading, names, setup_path="compiled QP")
    text += f"\ntotal {elapsed:.0f} s\n"
    print(text, end="")
    head = {"case": CASE_NAME, "options": asdict(settings), "machine": machine_info()}
    head["run_env"] = {var: "1" for var in BLAS_ENV}  # each run's BLAS threads (the machine's
    # blas_env and blas_threads are this parent process's, which runs no simulation)
    payload = {**head, "elapsed_s": elapsed, **raw_figures(results, SIZE_PARAMETER)}
    out = Path(settings.out)
    write_files(out, text, payload)
    print(f"wrote {out / 'scaling.json'} and {out / 'scaling.md'}")
    return 0


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m nlpmbd.apps.scaling [options]` (--scaling implied; exit 2 on bad input), or
    `--one SPEC`: one run, its figures as a JSON line."""
    parser = _Parser(prog="python -m nlpmbd.apps.scaling", description="Time the chain against N.")
    add_scaling_arguments(parser)
    parser.add_argument("--t-end", help=f"simulated s per run ({DEFAULT_T_END:g})")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output directory ({DEFAULT_OUT})")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one run, JSON out
    try:
        args = parser.parse_args(argv)
        if args.one is not None:
            print(json.dumps(one_run(**json.loads(args.one))))
            return 0
        return run_scaling(args)
    except InputError as err:
        print(f"scaling: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
