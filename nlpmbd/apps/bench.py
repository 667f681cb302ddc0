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
written atomically.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from ..errors import InputError, SolverFailure
from ..io.result import SimulationResult
from ..model.case import Case
from ..run.options import SimulationOptions
from ..run.simulate import simulate
from .registry import load_cases

#: Environment variables that pin BLAS (OpenBLAS, MKL, OpenMP) to one thread.
BLAS_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: Fixed step size of the fixed-h modes, s.
FIXED_H = 1e-3
DEFAULT_REPEATS, DEFAULT_T_END = 3, 1.0
QUICK_REPEATS, QUICK_T_END = 1, 0.2
DEFAULT_OUT = "results/bench"
#: The mode the ratio column divides by, and the mode the QP positions are compared with.
REFERENCE_MODE, AGREEMENT_MODE = "qp compiled", "nlp fixed h"


@dataclass(frozen=True)
class Mode:
    """A solver mode: the SimulationOptions fields it sets, and whether h is fixed."""

    name: str
    solver: str
    fixed_h: bool
    predictor: bool = True
    codegen: str = "off"


#: In run order: "nlp fixed h" comes before the QP modes that are compared with it.
MODES = (
    Mode("nlp variable h", "nlp", fixed_h=False),
    Mode("nlp fixed h", "nlp", fixed_h=True),
    Mode("ipopt baseline", "nlp", fixed_h=False, predictor=False),
    Mode("qp vm", "qp", fixed_h=True, codegen="off"),
    Mode("qp compiled", "qp", fixed_h=True, codegen="on"),
)


@dataclass(frozen=True)
class Measurement:
    """One simulation of one case in one mode (one repetition). Times per step in us."""

    case: str
    mode: str
    repeat: int
    h_min: float
    h_max: float
    steps: int
    median_us: float
    p95_us: float
    wall_per_step_us: float
    mean_iterations: float
    failed_steps: int
    wall_per_sim_s: float
    setup_s: float
    wall_s: float
    codegen: str
    predicted_steps: int
    chunk_steps: int
    chunk_steps_discarded: int
    qp_fallback_steps: int
    completed: bool
    position_diff_m: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class Row:
    """One line of the table: the figures of one (case, mode) over the repetitions."""

    case: str
    mode: str
    h_min: float
    h_max: float
    steps: int
    median_us: float
    p95_us: float
    wall_per_step_us: float
    mean_iterations: float
    failed_steps: int
    wall_per_sim_s: float
    setup_s: float
    ratio_to_reference: float
    position_diff_m: float | None
    codegen: str
    errors: int


@dataclass(frozen=True)
class Target:
    """A figure named by the issue's targets: row (case, mode), Row field, display unit."""

    case: str
    mode: str
    field: str
    label: str
    limit: float
    unit: str = ""
    scale: float = 1.0  # display value = Row value * scale


TARGETS = (
    Target(
        "revolute", "nlp variable h", "median_us", "median solve time per step", 1.0, "ms", 1e-3
    ),
    Target("revolute", "nlp variable h", "wall_per_step_us", "wall time per step", 1.0, "ms", 1e-3),
    Target("revolute", "nlp variable h", "failed_steps", "failed steps", 0),
    Target("revolute", "qp compiled", "median_us", "median solve time per step", 20.0, "us"),
    Target("revolute", "qp compiled", "wall_per_sim_s", "wall time per simulated s", 0.02, "s"),
    Target("pendulum", "qp compiled", "median_us", "median solve time per step", 20.0, "us"),
    Target("pendulum", "qp compiled", "wall_per_sim_s", "wall time per simulated s", 0.02, "s"),
)


@dataclass(frozen=True)
class Verdict:
    """A target's measured value (None if not measured) and PASS, MISS or n/a (not run)."""

    case: str
    mode: str
    h: str
    label: str
    value: float | None
    limit: float
    unit: str
    result: str

    @property
    def figure(self) -> str:
        return f"{self.case}, {self.mode} ({self.h}): {self.label}"


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
        help=f"simulated s per case (default {DEFAULT_T_END:g}; {QUICK_T_END:g} with --quick)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: {QUICK_REPEATS} repetition of {QUICK_T_END:g} s unless given",
    )
    parser.add_argument(
        "--out", default=DEFAULT_OUT, help=f"directory of bench.json and bench.md ({DEFAULT_OUT})"
    )


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are InputError (one line), as in the nlpmbd CLI."""

    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m benchmarks [options]`: exit 0, or 2 with a one-line message on bad input."""
    parser = _Parser(prog="python -m benchmarks", description="Time every case and solver mode.")
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except InputError as err:
        print(f"benchmarks: error: {err}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    """Validate the options, run the suite, print the report, write bench.json and bench.md."""
    cases = select_cases(args.cases)
    repeats = check_repeats(QUICK_REPEATS if args.quick and args.repeats is None else args.repeats)
    t_end = check_t_end(QUICK_T_END if args.quick and args.t_end is None else args.t_end, cases)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out must be a directory, got the file {str(out)!r}")
    pin_blas_threads()
    tic = time.perf_counter()
    measurements = run_suite(cases, repeats, t_end, progress=_progress)
    elapsed = time.perf_counter() - tic
    rows = summarize(measurements)
    verdicts = check_targets(rows)
    options = {"cases": list(cases), "repeats": repeats, "t_end": t_end, "fixed_h": FIXED_H}
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
        raise InputError(f"--repeats must be an integer >= 1, got {value!r}")
    return value


def check_t_end(t_end: float | None, cases: dict[str, Case]) -> float:
    """t_end must be finite, > 0 and at least every selected case's largest step."""
    value = DEFAULT_T_END if t_end is None else t_end
    h_top = max(max(c.h_max, fixed_step(c)) for c in cases.values())
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value < h_top:
        raise InputError(f"--t-end must be a finite number of seconds >= {h_top:g}, got {value!r}")
    return float(value)


# --- measuring ------------------------------------------------------------------------------
def fixed_step(case: Case) -> float:
    """FIXED_H if it lies in the case's step range, else the case's h_min."""
    return FIXED_H if case.h_min <= FIXED_H <= case.h_max else case.h_min


def mode_options(case: Case, mode: Mode, t_end: float) -> SimulationOptions:
    h_min, h_max = (fixed_step(case),) * 2 if mode.fixed_h else (case.h_min, case.h_max)
    return SimulationOptions(
        t_end=t_end,
        h_min=h_min,
        h_max=h_max,
        solver=mode.solver,
        codegen=mode.codegen,
        predictor=mode.predictor,
    )


def run_suite(
    cases: dict[str, Case],
    repeats: int,
    t_end: float,
    progress: Callable[[Measurement], None] | None = None,
) -> list[Measurement]:
    """Every repetition runs every case in every mode, so a repetition's ratios compare
    simulations made close together in time."""
    out = []
    for repeat in range(repeats):
        for name, case in cases.items():
            nlp_result = None
            for mode in MODES:
                m, result = measure(name, case, mode, repeat, t_end)
                if mode.name == AGREEMENT_MODE:
                    nlp_result = result
                elif mode.solver == "qp" and result is not None:
                    m = replace(m, position_diff_m=position_difference(result, nlp_result))
                out.append(m)
                if progress is not None:
                    progress(m)
    return out


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
        return _empty_measurement(**head), result
    return Measurement(**head, **figures(result)), result


def figures(res: SimulationResult) -> dict[str, Any]:
    """The Measurement figures of one result."""
    meta = res.meta
    steps = res.n_steps
    run_time = meta.get("wall_time", math.nan) - meta.get("setup_time", math.nan)
    simulated = float(res.t[-1] - res.t[0])
    return dict(
        steps=steps,
        median_us=1e6 * float(np.median(res.solve_time)),
        p95_us=1e6 * float(np.percentile(res.solve_time, 95)),
        wall_per_step_us=1e6 * run_time / steps,
        mean_iterations=float(np.mean(res.iterations)),
        failed_steps=int(np.count_nonzero(res.status == 3)),
        wall_per_sim_s=run_time / simulated if simulated > 0 else math.nan,
        setup_s=float(meta.get("setup_time", math.nan)),
        wall_s=float(meta.get("wall_time", math.nan)),
        codegen=str(meta.get("codegen", "off")),
        predicted_steps=int(meta.get("predicted_steps", 0)),
        chunk_steps=int(meta.get("chunk_steps", 0)),
        chunk_steps_discarded=int(meta.get("chunk_steps_discarded", 0)),
        qp_fallback_steps=int(meta.get("qp_fallback_steps", 0)),
        completed=bool(meta.get("completed", False)),
    )


def _empty_measurement(**head: Any) -> Measurement:
    nan = math.nan
    return Measurement(
        **head, steps=0, median_us=nan, p95_us=nan, wall_per_step_us=nan, mean_iterations=nan,
        failed_steps=0, wall_per_sim_s=nan, setup_s=nan, wall_s=nan, codegen="-",
        predicted_steps=0, chunk_steps=0, chunk_steps_discarded=0, qp_fallback_steps=0,
        completed=False,
    )  # fmt: skip


def position_difference(a: SimulationResult, b: SimulationResult | None) -> float | None:
    """Largest distance between the same body's origin in two results on the same time grid."""
    if b is None or a.q.shape != b.q.shape or not np.allclose(a.t, b.t, rtol=0, atol=1e-12):
        return None
    d = (a.q - b.q).reshape(a.q.shape[0], -1, 7)[:, :, :3]
    return float(np.linalg.norm(d, axis=2).max())


def _progress(m: Measurement) -> None:
    what = m.error or f"{m.median_us:.1f} us/step median, {m.steps} steps"
    print(f"[repeat {m.repeat + 1}] {m.case} / {m.mode}: {what}", file=sys.stderr, flush=True)


# --- summary --------------------------------------------------------------------------------
def _median(values: Iterable[float | None]) -> float:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return statistics.median(finite) if finite else math.nan


def _largest(values: Iterable[float | None]) -> float | None:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return max(finite) if finite else None


#: Figures of a Row that are the median over the repetitions.
MEDIAN_FIELDS = (
    "median_us",
    "p95_us",
    "wall_per_step_us",
    "mean_iterations",
    "wall_per_sim_s",
    "setup_s",
)


def summarize(measurements: Sequence[Measurement]) -> list[Row]:
    """One Row per (case, mode), in run order."""
    groups: dict[tuple[str, str], list[Measurement]] = {}
    for m in measurements:
        groups.setdefault((m.case, m.mode), []).append(m)
    reference = {(m.case, m.repeat): m.median_us for m in measurements if m.mode == REFERENCE_MODE}
    return [_row(group, reference) for group in groups.values()]


def _row(group: list[Measurement], reference: dict[tuple[str, int], float]) -> Row:
    first = group[0]
    ratios = [m.median_us / reference.get((m.case, m.repeat), math.nan) for m in group]
    med = {f: _median(getattr(m, f) for m in group) for f in MEDIAN_FIELDS}
    return Row(
        case=first.case,
        mode=first.mode,
        h_min=first.h_min,
        h_max=first.h_max,
        steps=max(m.steps for m in group),
        **med,
        failed_steps=max(m.failed_steps for m in group),
        ratio_to_reference=_median(ratios),
        position_diff_m=_largest(m.position_diff_m for m in group),
        codegen="/".join(dict.fromkeys(m.codegen for m in group)),
        errors=sum(m.error is not None for m in group),
    )


def check_targets(rows: Sequence[Row]) -> list[Verdict]:
    """Each target of TARGETS against its row, in TARGETS order."""
    by_key = {(r.case, r.mode): r for r in rows}
    return [verdict(t, by_key.get((t.case, t.mode))) for t in TARGETS]


def verdict(target: Target, row: Row | None) -> Verdict:
    """n/a if the row was not run; MISS if it had errors, no value or a value above the limit."""
    t = target
    if row is None:
        return Verdict(t.case, t.mode, "not run", t.label, None, t.limit, t.unit, "n/a")
    raw = getattr(row, t.field)
    value = raw * t.scale if raw is not None and math.isfinite(raw) else None
    passed = value is not None and not row.errors and value <= t.limit
    h = f"h = {row.h_min:g} s" if row.h_min == row.h_max else f"h in {_h_label(row)} s"
    return Verdict(t.case, t.mode, h, t.label, value, t.limit, t.unit, "PASS" if passed else "MISS")


# --- report ---------------------------------------------------------------------------------
COLUMNS = (
    "case", "mode", "h (s)", "steps", "median us/step", "p95 us/step", "wall us/step",
    "mean iter", "failed", "wall s/sim s", "setup s", "/ qp compiled", "dx to nlp (m)", "codegen",
)  # fmt: skip


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None or not math.isfinite(value) else format(value, spec)


def _h_label(row: Row) -> str:
    return f"{row.h_min:g}" if row.h_min == row.h_max else f"[{row.h_min:g}, {row.h_max:g}]"


def table(rows: Sequence[Row]) -> str:
    """The Markdown table, one line per (case, mode)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [
            r.case, r.mode, _h_label(r), str(r.steps), _num(r.median_us, ".1f"),
            _num(r.p95_us, ".1f"), _num(r.wall_per_step_us, ".1f"), _num(r.mean_iterations, ".2f"),
            str(r.failed_steps) + (f" ({r.errors} errors)" if r.errors else ""),
            _num(r.wall_per_sim_s, ".4f"), _num(r.setup_s, ".2f"),
            _num(r.ratio_to_reference, ".3g"), _num(r.position_diff_m, ".1e"), r.codegen,
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def targets_table(verdicts: Sequence[Verdict]) -> str:
    lines = ["| figure | measured | target | result |", "|---|---|---|---|"]
    for v in verdicts:
        unit = f" {v.unit}" if v.unit else ""
        value = "not measured" if v.value is None else f"{v.value:.3g}{unit}"
        lines.append(f"| {v.figure} | {value} | <= {v.limit:g}{unit} | {v.result} |")
    return "\n".join(lines) + "\n"


def report(
    rows: Sequence[Row],
    verdicts: Sequence[Verdict],
    info: dict[str, Any],
    options: dict[str, Any],
    elapsed: float,
) -> str:
    """The whole Markdown report: machine, table with its legend, targets."""
    threads = sorted(set(info.get("blas_threads", {}).values())) or ["?"]
    return (
        "# nlpmbd benchmarks\n\n"
        f"- date: {info['date']}\n"
        f"- machine: {info['cpu']} ({info['machine']}), {info['cpu_count']} CPUs, "
        f"{info['platform']}\n"
        f"- Python {info['python']}, CasADi {info['casadi']}, NumPy {info['numpy']}; "
        f"BLAS threads: {'/'.join(map(str, threads))}\n"
        f"- t_end = {options['t_end']:g} s per case, median of {options['repeats']} "
        f"repetition(s), fixed h = {options['fixed_h']:g} s; suite took {elapsed:.0f} s\n\n"
        + table(rows)
        + "\nmedian / p95 us/step: per-step solve time (QP fast path: mean of its chunk); "
        "wall us/step and wall s/sim s: (wall - setup) per step and per simulated second; "
        "mean iter: IPOPT iterations (qp: QP solves) per step, 0 for predicted steps; "
        "/ qp compiled: median time per step over qp compiled's, same repetition, median of "
        "the ratios (the nlp fixed h row is the NLP/QP ratio at equal h); dx to nlp: largest "
        "distance of a body's origin from where nlp fixed h put it, same repetition (qp rows; "
        "tests/test_qp.py checks <= 1e-6 m over 1 s except on the chaotic revolute).\n\n"
        "## Targets\n\n" + targets_table(verdicts)
    )


# --- machine and files ----------------------------------------------------------------------
def pin_blas_threads() -> None:
    """One BLAS thread: the environment for libraries loaded from now on (CasADi loads its
    OpenBLAS with the IPOPT plugin), a call for any OpenBLAS already loaded (NumPy's when the
    suite is started from the nlpmbd CLI rather than from `python -m benchmarks`)."""
    for var in BLAS_ENV:
        os.environ[var] = "1"
    for lib in _loaded_openblas():
        setter = _symbol(lib, "openblas_set_num_threads", "scipy_openblas_set_num_threads64_")
        if setter is not None:
            setter(ctypes.c_int(1))


def blas_threads() -> dict[str, int]:
    """Threads of each loaded OpenBLAS, by file name (Linux only; {} elsewhere)."""
    found = {}
    for lib in _loaded_openblas():
        getter = _symbol(lib, "openblas_get_num_threads", "scipy_openblas_get_num_threads64_")
        if getter is not None:
            found[Path(lib).name] = int(getter())
    return found


def _loaded_openblas() -> list[str]:
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split()[-1] for line in fh if "openblas" in line.lower()}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/"))


def _symbol(lib: str, *names: str) -> Any:
    try:
        handle = ctypes.CDLL(lib)
    except OSError:
        return None
    return next((getattr(handle, n) for n in names if hasattr(handle, n)), None)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    import casadi

    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "processor": platform.processor(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "casadi": casadi.__version__,
        "numpy": np.__version__,
        "blas_env": {var: os.environ.get(var) for var in BLAS_ENV},
        "blas_threads": blas_threads(),
    }


def _jsonable(obj: Any) -> Any:
    """NaN and infinities become null (strict JSON); containers are converted recursively."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer, np.floating)):
        return _jsonable(obj.item())
    return obj


def write_atomic(path: Path, text: str) -> None:
    """Write text to a temporary file beside path, then rename it onto path."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_outputs(out: Path, payload: dict[str, Any], markdown: str) -> None:
    """OUT/bench.json (strict JSON, NaN as null) and OUT/bench.md."""
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "bench.json", json.dumps(_jsonable(payload), indent=1, allow_nan=False))
    write_atomic(out / "bench.md", markdown)
