"""Benchmark suite (issue 5): time every case in every solver mode, check the speed targets.

Run with `python -m benchmarks` from the repository root, or `nlpmbd bench`. Never run by tests.

What is measured. Each repetition simulates every selected case for t_end (default 1 s) in each
solver mode of MODES, one after the other, with BLAS threads pinned to 1:

- "nlp variable h": solver nlp over the case's default [h_min, h_max] (QP predictor on);
- "nlp fixed h": solver nlp at a fixed h (FIXED_H, or the case's h_min if FIXED_H is outside
  the case's range);
- "ipopt baseline": as "nlp variable h" with predictor=False, i.e. IPOPT on every step;
- "qp vm": solver qp at the fixed h, the chunk Function evaluated by CasADi's virtual machine;
- "qp compiled": the same compiled to C (the library is cached in $NLPMBD_CACHE or
  ~/.cache/nlpmbd, so after the first run its setup time is the time to load it).

From one simulation (a Measurement): the median and the 95th percentile of the per-step solve
time (SimulationResult.solve_time; the QP fast path charges each step the mean of its chunk),
the wall time per step and per simulated second, both without the setup ((wall_time -
setup_time) / steps or / simulated time), the setup time (building the problem, including any
C compilation), the mean iterations (IPOPT iterations, or QP solves for solver qp; 0 for a step
taken from the predictor), the failed steps (status 3), the chunk counters of the fast path
(meta: chunk_steps, chunk_steps_discarded, qp_fallback_steps; JSON only) and, for the QP modes,
the largest distance of a body's origin from "nlp fixed h" of the same repetition.

A table row (Row) is the median of each figure over the repetitions (failed steps and position
difference: the largest). Its ratio to "qp compiled" is taken within each repetition (this
mode's median time per step over the qp compiled one, so that machine noise cancels), then the
median of those ratios; the "nlp fixed h" row gives the NLP/QP ratio at equal h.

The Markdown table and the Targets section (TARGETS: each speed figure the issue's targets
name, with PASS or MISS; its agreement target is a test, tests/test_qp.py, and the table's
"dx to nlp" column shows that figure) are printed and written to OUT/bench.md; OUT/bench.json
holds the machine, the options, every repetition, the rows and the targets. Both files are
written atomically. `--scaling` runs the scaling benchmark of apps/scaling.py instead.

`--quick` is a smoke run of every case in every mode (about a minute on two cores): one
repetition of QUICK_T_END, each case cut to QUICK_STEPS of its fixed step (the cases at
h = 1e-5 s would otherwise take 20000 NLP steps, minutes), and no run that would repeat one
already made: "nlp variable h" of a case whose step is fixed (h_min = h_max) is "nlp fixed h",
and "ipopt baseline" after an NLP run of the case that predicted no step (friction,
restitution and compliant contact turn the predictor off) is that run again. A skipped run is
listed with its reason under the table, never an error row.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import NoReturn

from ..errors import InputError, SolverFailure
from ..io.result import SimulationResult
from ..model.case import Case
from ..run.options import SimulationOptions
from ..run.simulate import simulate
from ..validation import short_repr
from .bench_report import (
    MODES,
    Measurement,
    Mode,
    empty_measurement,
    figures,
    position_difference,
    summarize,
    write_outputs,
)
from .bench_summary import Target, check_targets, report
from .cli_types import path_flag
from .machine import machine_info, pin_blas_threads
from .registry import load_cases
from .scaling import DEFAULT_OUT, add_scaling_arguments, run_scaling, scaling_requested
from .scaling import DEFAULT_T_END as SCALING_T_END

#: Fixed step size of the fixed-h modes, s.
FIXED_H = 1e-3
DEFAULT_REPEATS, DEFAULT_T_END = 3, 1.0
QUICK_REPEATS, QUICK_T_END, QUICK_STEPS = 1, 0.2, 300
#: The mode the ratio column divides by, and the mode the QP positions are compared with.
REFERENCE_MODE, AGREEMENT_MODE = "qp compiled", "nlp fixed h"


# --- command line ---------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `nlpmbd bench` and `python -m benchmarks`."""
    parser.add_argument(
        "--cases",
        nargs="+",
        metavar="CASE",
        help="cases to time, space or comma separated (default: all; see `nlpmbd list`)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        help=f"repetitions, >= 1 (default {DEFAULT_REPEATS}; {QUICK_REPEATS} with --quick)",
    )
    parser.add_argument(
        "--t-end",
        type=float,
        help=f"simulated s per case (default {DEFAULT_T_END:g}; {QUICK_T_END:g} with --quick; "
        f"{SCALING_T_END:g} per run with --scaling)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: {QUICK_REPEATS} repetition of {QUICK_T_END:g} s (at most "
        f"{QUICK_STEPS} steps per case) unless given, no run that repeats another",
    )
    parser.add_argument(
        "--out",
        type=path_flag("--out"),
        default=DEFAULT_OUT,
        help=f"directory of bench.json and bench.md, or scaling.* ({DEFAULT_OUT})",
    )
    add_scaling_arguments(parser)


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are InputError (one line), as in the nlpmbd CLI."""

    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def main(argv: Sequence[str] | None = None, targets: Sequence[Target] = ()) -> int:
    """`python -m benchmarks [options]`: exit 0, or 2 with a one-line message on bad input."""
    parser = _Parser(prog="python -m benchmarks", description="Time every case and solver mode.")
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv), targets)
    except InputError as err:
        print(f"benchmarks: error: {err}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace, targets: Sequence[Target] = ()) -> int:
    """Validate the options, run the suite, print the report, write bench.json and bench.md."""
    if scaling_requested(args):
        return run_scaling(args)
    cases = select_cases(args.cases)
    repeats = check_repeats(QUICK_REPEATS if args.quick and args.repeats is None else args.repeats)
    t_end = check_t_end(QUICK_T_END if args.quick and args.t_end is None else args.t_end, cases)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out must be a directory, got the file {str(out)!r}")
    capped = args.quick and args.t_end is None
    t_ends = {
        n: min(t_end, QUICK_STEPS * fixed_step(c)) if capped else t_end for n, c in cases.items()
    }
    pin_blas_threads()
    tic = time.perf_counter()
    measurements = run_suite(cases, repeats, t_ends, progress=_progress, quick=args.quick)
    elapsed = time.perf_counter() - tic
    rows = summarize(measurements)
    verdicts = check_targets(rows, targets)
    options = {"cases": list(cases), "repeats": repeats, "t_end": t_end, "fixed_h": FIXED_H}
    if capped:
        options.update(max_steps=QUICK_STEPS, t_end_by_case=t_ends)
    if args.quick:
        options["skipped"] = [
            f"{m.case} / {m.mode}: {m.skipped}" for m in measurements if m.skipped
        ]
    info = machine_info()
    text = report(rows, verdicts, info, options, elapsed)
    print(text, end="")
    payload = {
        "machine": info,
        "options": options,
        "elapsed_s": elapsed,
        "modes": [asdict(m) for m in MODES],
        "repetitions": [asdict(m) for m in measurements],
        "rows": [asdict(r) for r in rows],
        "targets": [asdict(v) for v in verdicts],
    }
    write_outputs(out, payload, text)
    print(f"wrote {out / 'bench.json'} and {out / 'bench.md'}")
    return 0


# --- input ----------------------------------------------------------------------------------
def select_cases(requested: Iterable[str] | None) -> dict[str, Case]:
    """The requested cases ("a,b" or ["a", "b"]), in order, without repeats; default all."""
    known = load_cases()
    if not requested:
        return known
    names = [n.strip() for item in requested for n in item.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        got = ", ".join(unknown) or "none"
        raise InputError(f"--cases must name known cases ({', '.join(known)}), got {got}")
    return {n: known[n] for n in dict.fromkeys(names)}


def check_repeats(repeats: int | None) -> int:
    value = DEFAULT_REPEATS if repeats is None else repeats
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"--repeats must be an integer >= 1, got {short_repr(value)}")
    return value


def check_t_end(t_end: float | None, cases: dict[str, Case]) -> float:
    """t_end must be finite, > 0 and at least every selected case's largest step."""
    value = DEFAULT_T_END if t_end is None else t_end
    h_top = max(max(c.h_max, fixed_step(c)) for c in cases.values())
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value < h_top:
        raise InputError(
            f"--t-end must be a finite number of seconds >= {h_top:g}, got {short_repr(value)}"
        )
    return float(value)


# --- measuring ------------------------------------------------------------------------------
def fixed_step(case: Case) -> float:
    """FIXED_H if it lies in the case's step range, else the case's h_min."""
    return FIXED_H if case.h_min <= FIXED_H <= case.h_max else case.h_min


def mode_options(case: Case, mode: Mode, t_end: float) -> SimulationOptions:
    h_min, h_max = (fixed_step(case),) * 2 if mode.fixed_h else (case.h_min, case.h_max)
    return SimulationOptions(t_end=t_end, h_min=h_min, h_max=h_max, **mode.options)


def run_suite(
    cases: dict[str, Case],
    repeats: int,
    t_ends: dict[str, float],
    progress: Callable[[Measurement], None] | None = None,
    quick: bool = False,
) -> list[Measurement]:
    """Every repetition runs every case in every mode (`quick`: but the runs skip_reason
    names), so a repetition's ratios compare simulations made close together in time."""
    out = []
    for repeat in range(repeats):
        for name, case in cases.items():
            nlp_result = None
            done: dict[str, Measurement] = {}  # this case's runs so far, by mode
            for mode in MODES:
                reason = skip_reason(case, mode, done) if quick else None
                if reason is not None:
                    head = dict(case=name, mode=mode.name, repeat=repeat, h_min=case.h_min)
                    out.append(empty_measurement(**head, h_max=case.h_max, skipped=reason))
                    continue
                m, result = measure(name, case, mode, repeat, t_ends[name])
                done[mode.name] = m
                if mode.name == AGREEMENT_MODE:
                    nlp_result = result
                elif mode.options.get("solver") == "qp" and result is not None:
                    m = replace(m, position_diff_m=position_difference(result, nlp_result))
                out.append(m)
                if progress is not None:
                    progress(m)
    return out


def skip_reason(case: Case, mode: Mode, done: dict[str, Measurement]) -> str | None:
    """Why --quick does not run `mode` on `case` (module docstring), or None; `done`: the
    case's measurements of this repetition so far, by mode."""
    if mode.name == "nlp variable h" and case.h_min == case.h_max:
        return "the case's step is fixed (h_min = h_max): the run of nlp fixed h"
    nlp = done.get("nlp variable h") or done.get("nlp fixed h")
    if mode.name == "ipopt baseline" and nlp is not None and nlp.error is None:
        if nlp.steps and nlp.predicted_steps == 0:
            return f"{nlp.mode} predicted no step: it ran IPOPT on every step already"
    return None


def measure(
    name: str, case: Case, mode: Mode, repeat: int, t_end: float
) -> tuple[Measurement, SimulationResult | None]:
    """Simulate once. A failed run keeps its partial result; an error gives a row of NaN."""
    options = mode_options(case, mode, t_end)
    error = None
    try:
        system, _ = case.build({})
        result = simulate(system, options)
    except SolverFailure as err:
        if err.partial is not None and err.partial.meta.get("message") == "interrupted":
            raise KeyboardInterrupt from err
        result, error = err.partial, f"SolverFailure: {err}"
    except Exception as err:  # a benchmark reports a broken mode and goes on with the rest
        result, error = None, f"{type(err).__name__}: {err}"
    head = dict(case=name, mode=mode.name, repeat=repeat, h_min=options.h_min)
    head.update(h_max=options.h_max, error=error)
    if result is None or result.n_steps == 0:
        return empty_measurement(**head), result
    return Measurement(**head, **figures(result)), result


def _progress(m: Measurement) -> None:
    what = m.error or f"{m.median_us:.1f} us/step median, {m.steps} steps"
    what = f"skipped ({m.skipped})" if m.skipped else what
    print(f"[repeat {m.repeat + 1}] {m.case} / {m.mode}: {what}", file=sys.stderr, flush=True)
