"""The scaling benchmark's report (apps/scaling.py): medians over rounds, growth exponents, the
Markdown tables with the exponent lines, and the files scaling.md and scaling.json (strict JSON,
NaN as null), written atomically."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..io.atomic import write_set
from ..io.outdir import write_failure

#: The figures of one run that are summarized (medians over rounds).
FIGURES = ("setup_s", "loop_s", "per_step_us", "solve_median_us")
#: The growth exponent is fitted over the measured N in this range.
FIT_RANGE = (4, 32)
#: (figure, table caption, number format), in report order; the first one's exponent is printed.
TABLES = (
    ("per_step_us", "Loop time per step, us:", ".0f"),
    ("solve_median_us", "Median per-step solve time (SimulationResult.solve_time), us:", ".0f"),
    ("setup_s", "Setup time (with compilation), s:", ".2f"),
)
Config = tuple[str, str]  # (joint, path)
Runs = list[dict[str, Any] | None]  # the figures of each round's run; None: failed
Results = dict[Config, dict[int, Runs]]  # results[(joint, path)][N]; no runs: skipped


def median_run(runs: Runs) -> dict[str, float] | None:
    """The median of each of FIGURES over the runs that succeeded (None if none did)."""
    ok = [m for m in runs if m is not None]
    if not ok:
        return None
    return {k: statistics.median(m[k] for m in ok) for k in FIGURES}


def growth(points: Mapping[int, float]) -> float:
    """Least-squares slope of log(time) against log(N) over N in FIT_RANGE (NaN if < 2)."""
    xs = [
        (math.log(n), math.log(v)) for n, v in points.items() if FIT_RANGE[0] <= n <= FIT_RANGE[1]
    ]
    if len(xs) < 2:
        return math.nan
    mx = sum(x for x, _ in xs) / len(xs)
    my = sum(y for _, y in xs) / len(xs)
    return sum((x - mx) * (y - my) for x, y in xs) / sum((x - mx) ** 2 for x, _ in xs)


def medians(by_n: Mapping[int, Runs], key: str) -> dict[int, float]:
    """N -> the median of figure `key`, for every N with a run that succeeded."""
    found = {n: median_run(runs) for n, runs in by_n.items()}
    return {n: m[key] for n, m in found.items() if m is not None}


def fit_label(links: Sequence[int]) -> str:
    """The N the exponent is fitted over, e.g. "N=4..32" (FIT_RANGE if fewer than two)."""
    fit = [n for n in links if FIT_RANGE[0] <= n <= FIT_RANGE[1]]
    return f"N={fit[0]}..{fit[-1]}" if len(fit) > 1 else f"N={FIT_RANGE[0]}..{FIT_RANGE[1]}"


def _power(p: float, digits: int) -> str:
    return "n/a" if math.isnan(p) else f"N^{p:.{digits}f}"


def table(
    results: Results,
    links: Sequence[int],
    key: str,
    unit: str,
    fmt: str,
    names: Mapping[str, str] | None = None,
) -> str:
    """A Markdown table: one row per (joint, path) (the joint shown as names[joint]), one column
    per N, and the growth exponent. A cell is "skipped", "failed" or the median, with "*" when a
    run failed or had failed steps."""
    head = f"| joints | path | {' | '.join(f'N={n}' for n in links)} | growth {fit_label(links)} |"
    lines = [head, "|---|---|" + "---|" * (len(links) + 1)]
    for (joint, path), by_n in results.items():
        cells = []
        for n in links:
            runs = by_n.get(n, [])
            med = median_run(runs)
            if med is None:
                cells.append("failed" if runs else "skipped")
            else:
                failed = any(m is None or m["failed_steps"] for m in runs)
                cells.append(format(med[key], fmt) + ("*" if failed else ""))
        p = _power(growth(medians(by_n, key)), 1)
        lines.append(f"| {(names or {}).get(joint, joint)} | {path} | {' | '.join(cells)} | {p} |")
    return f"{unit}\n\n" + "\n".join(lines) + "\n"


def exponent_lines(results: Results, links: Sequence[int], setup_path: str) -> list[str]:
    """One line per (joint, path) with the growth exponent of the loop time per step, then one
    with the setup time of `setup_path` at the largest N measured, per joint kind."""
    key = TABLES[0][0]
    lines = [
        f"growth exponent ({fit_label(links)}, loop time per step): {joint} / {path}: "
        + _power(growth(medians(by_n, key)), 2)
        for (joint, path), by_n in results.items()
    ]
    setups = []
    for (joint, path), by_n in results.items():
        setup = medians(by_n, "setup_s")
        if path == setup_path and setup:
            setups.append(f"{joint} {setup[max(setup)]:.2f} s (N={max(setup)})")
    if setups:
        lines.append(f"setup time at the largest N, {setup_path}: " + ", ".join(setups))
    return lines


def report(
    results: Results, links: Sequence[int], heading: str, names: Mapping[str, str], setup_path: str
) -> str:
    """The Markdown text: the heading, the tables of TABLES, a footnote and the exponent lines."""
    parts = [heading + "\n"]
    parts += [table(results, links, key, unit, fmt, names) for key, unit, fmt in TABLES]
    parts.append("(* a run of this cell failed or had failed steps)\n")
    parts.append("\n".join(exponent_lines(results, links, setup_path)) + "\n")
    return "\n".join(parts)


def raw_figures(results: Results, size: str) -> dict[str, Any]:
    """Every run's figures (None: failed; a (joint, path, N) with no run was skipped) and every
    growth exponent (None: fewer than two N in FIT_RANGE)."""
    runs = [
        {"joint": j, "path": p, size: n, "round": i + 1, "figures": m}
        for (j, p), by_n in results.items()
        for n, items in by_n.items()
        for i, m in enumerate(items)
    ]
    exponents = [
        {"joint": j, "path": p, "figure": key, "exponent": growth(medians(by_n, key))}
        for (j, p), by_n in results.items()
        for key, _, _ in TABLES
    ]
    return {"fit_range": list(FIT_RANGE), "runs": runs, "growth": exponents}


def write_files(out: Path, markdown: str, payload: Mapping[str, Any]) -> None:
    """OUT/scaling.md and OUT/scaling.json (strict JSON: NaN and infinities as null)."""
    text = json.dumps(_strict(payload), indent=1, allow_nan=False)
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_set(out, {"scaling.json": text.encode(), "scaling.md": markdown.encode()})
    except OSError as err:
        kept = f"the report is printed above; {out} is as it was"
        raise write_failure(err, "--out", out, kept) from None


def _strict(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(k): _strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_strict(v) for v in obj]
    return obj
