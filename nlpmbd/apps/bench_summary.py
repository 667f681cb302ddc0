"""The benchmark's Markdown report, and its speed targets: a Target names a row's figure (case,
mode, Row field) and its limit; check_targets gives each a Verdict. The suite's own targets
live with the benchmarks (benchmarks/targets.py), not in the engine."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .bench_report import Row, h_label, table


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
    h = f"h = {row.h_min:g} s" if row.h_min == row.h_max else f"h in {h_label(row)} s"
    return Verdict(t.case, t.mode, h, t.label, value, t.limit, t.unit, "PASS" if passed else "MISS")


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
        f"- t_end = {options['t_end']:g} s per case{_capped(options)}, median of "
        f"{options['repeats']} repetition(s), fixed h = {options['fixed_h']:g} s; suite took "
        f"{elapsed:.0f} s\n\n"
        + table(rows)
        + "\nmedian / p95 us/step: per-step solve time (QP fast path: mean of its chunk); "
        "wall us/step and wall s/sim s: (wall - setup) per step and per simulated second; "
        "mean iter: IPOPT iterations (qp: QP solves) per step, 0 for predicted steps; "
        "/ qp compiled: median time per step over qp compiled's, same repetition, median of "
        "the ratios (the nlp fixed h row is the NLP/QP ratio at equal h); dx to nlp: largest "
        "distance of a body's origin from where nlp fixed h put it, same repetition (qp rows; "
        "tests/test_qp.py checks <= 1e-6 m over 1 s except on the chaotic revolute).\n\n"
        + _skipped(options)
        + "## Targets\n\n"
        + targets_table(verdicts)
    )


def _capped(options: dict[str, Any]) -> str:
    """--quick's cut of the cases whose fixed step is small (apps/bench.py, QUICK_STEPS)."""
    short = {c: t for c, t in options.get("t_end_by_case", {}).items() if t < options["t_end"]}
    if not short:
        return ""
    cut = ", ".join(f"{c} {t:g} s" for c, t in short.items())
    return f" (at most {options['max_steps']} fixed steps: {cut})"


def _skipped(options: dict[str, Any]) -> str:
    """The runs --quick left out, each with its reason."""
    skipped = options.get("skipped", [])
    lines = [f"- {s}\n" for s in skipped]
    return (
        "".join(["Skipped by --quick (the same run as one above):\n\n", *lines, "\n"])
        if lines
        else ""
    )
