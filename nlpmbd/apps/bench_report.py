"""The benchmark's modes and numbers: the solver modes it times (MODES), one Measurement per
simulation, a Row per (case, mode) with the median over repetitions and the ratio to the
reference mode taken within each repetition, the Markdown table, and the files bench.json and
bench.md, written atomically (the report and the targets: bench_summary.py)."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..io.atomic import write_set
from ..io.outdir import write_failure
from ..io.result import SimulationResult

#: The mode the ratio column divides by.
REFERENCE_MODE = "qp compiled"


@dataclass(frozen=True)
class Mode:
    """A solver mode: whether h is fixed, and the simulation options it sets (flat names of
    run/option_groups.py, checked by SimulationOptions)."""

    name: str
    fixed_h: bool
    options: dict[str, Any] = field(default_factory=dict)


#: In run order: "nlp fixed h" comes before the QP modes that are compared with it. Each mode
#: names its path: solver=auto would take the QP path in the nlp modes too.
MODES = (
    Mode("nlp variable h", fixed_h=False, options={"solver": "nlp"}),
    Mode("nlp fixed h", fixed_h=True, options={"solver": "nlp"}),
    Mode("ipopt baseline", fixed_h=False, options={"solver": "nlp", "predictor": False}),
    Mode("qp vm", fixed_h=True, options={"solver": "qp", "codegen": "off"}),
    Mode("qp compiled", fixed_h=True, options={"solver": "qp", "codegen": "on"}),
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
    skipped: str | None = None  # why --quick did not run it (apps/bench.py, skip_reason)


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


def empty_measurement(**head: Any) -> Measurement:
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
    """One Row per (case, mode) that ran, in run order."""
    groups: dict[tuple[str, str], list[Measurement]] = {}
    for m in measurements:
        if m.skipped is None:
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


# --- report ---------------------------------------------------------------------------------
COLUMNS = (
    "case", "mode", "h (s)", "steps", "median us/step", "p95 us/step", "wall us/step",
    "mean iter", "failed", "wall s/sim s", "setup s", "/ qp compiled", "dx to nlp (m)", "codegen",
)  # fmt: skip


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None or not math.isfinite(value) else format(value, spec)


def h_label(row: Row) -> str:
    return f"{row.h_min:g}" if row.h_min == row.h_max else f"[{row.h_min:g}, {row.h_max:g}]"


def table(rows: Sequence[Row]) -> str:
    """The Markdown table, one line per (case, mode)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [
            r.case, r.mode, h_label(r), str(r.steps), _num(r.median_us, ".1f"),
            _num(r.p95_us, ".1f"), _num(r.wall_per_step_us, ".1f"), _num(r.mean_iterations, ".2f"),
            str(r.failed_steps) + (f" ({r.errors} errors)" if r.errors else ""),
            _num(r.wall_per_sim_s, ".4f"), _num(r.setup_s, ".2f"),
            _num(r.ratio_to_reference, ".3g"), _num(r.position_diff_m, ".1e"), r.codegen,
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


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
    text = json.dumps(_jsonable(payload), indent=1, allow_nan=False)
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_set(out, {"bench.json": text.encode(), "bench.md": markdown.encode()})
    except OSError as err:
        kept = f"the report is printed above; {out} is as it was"
        raise write_failure(err, "--out", out, kept) from None
