"""The benchmark's numbers: one Measurement per simulation, a Row per (case, mode) with the
median over repetitions and the ratio to the reference mode taken within each repetition, the
Markdown report, optional targets (a Target names a row's figure and its limit; the suite's
own targets live with the benchmarks, benchmarks/targets.py) and the files bench.json and
bench.md, written atomically."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..io.outdir import atomic_write

#: The mode the ratio column divides by.
REFERENCE_MODE = "qp compiled"


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


def check_targets(rows: Sequence[Row], targets: Sequence[Target] = ()) -> list[Verdict]:
    """Each target against its row, in order."""
    by_key = {(r.case, r.mode): r for r in rows}
    return [verdict(t, by_key.get((t.case, t.mode))) for t in targets]


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


def write_outputs(out: Path, payload: dict[str, Any], markdown: str) -> None:
    """OUT/bench.json (strict JSON, NaN as null) and OUT/bench.md."""
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_jsonable(payload), indent=1, allow_nan=False)
    atomic_write(out / "bench.json", lambda fh: fh.write(text.encode()))
    atomic_write(out / "bench.md", lambda fh: fh.write(markdown.encode()))
