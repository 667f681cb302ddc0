"""Running a named Study (apps/study.py) into a checked, locked directory: its runs, then its
table (one row per run, however it ended), figures and study.json."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..io.outdir import OutputLock, atomic_write, prepare_output
from ..io.result import SimulationResult
from ..model.case import resolve_parameters
from ..run.option_groups import check_options
from .signals import StopFlag
from .study import RunOutcome, RunSpec, Study
from .study_run import run_specs


@dataclass
class StudyReport:
    """Outcomes, table rows and written files of one study; `interrupted` after a stop."""

    outcomes: list[RunOutcome]
    rows: list[dict[str, Any]]
    files: list[Path]
    interrupted: bool = False
    analysis_error: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)


def run_study(
    study: Study,
    overrides: Mapping[str, Any] | None,
    out: str | os.PathLike,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = False,
    options: Mapping[str, Any] | None = None,
) -> StudyReport:
    """Resolve the parameters, run (or reuse) every spec, then write table.csv/.md, the figures
    and study.json into `out`: for the runs that completed, after a failure or a Ctrl-C too.
    `options` (flat names) apply to every run, except where its spec sets the option itself."""
    params = resolve_parameters(study.parameters, overrides or {}, f"study {study.name}")
    options = check_options(options or {})  # one line before anything runs, not failed runs
    specs = [spec.with_defaults(options) for spec in study.specs(params)]
    d = prepare_output(out, "--out")
    with OutputLock(d, "--out"), StopFlag().installed() as stop:
        outcomes = run_specs(
            specs, d, workers=workers, cluster=cluster, progress=progress, stop=stop
        )
        report = _report(study, params, specs, outcomes, d)
        report.interrupted = stop.requested
    return report


def _report(
    study: Study,
    params: dict[str, Any],
    specs: list[RunSpec],
    outcomes: list[RunOutcome],
    d: Path,
) -> StudyReport:
    results: dict[str, SimulationResult | None] = {}
    for o in outcomes:
        results[o.label] = SimulationResult.load(o.directory) if o.succeeded else None
    before = set(d.glob("*.png"))
    error = ""
    try:
        rows = study.analyse(params, specs, results, d)
    except Exception as err:  # the table of what ran must be written whatever the analysis does
        error = f"{type(err).__name__}: {err}"
        rows = []
    rows = _with_outcomes(specs, rows, outcomes)
    files = list(write_table(rows, d)) + sorted(set(d.glob("*.png")) - before)
    status = {o.label: o for o in outcomes}
    info = {
        "study": study.name,
        "parameters": params,
        "analysis_error": error,
        "runs": [{"spec": s.as_dict(), "outcome": vars(status[s.label])} for s in specs],
    }
    text = json.dumps(info, indent=2, default=str)
    atomic_write(d / "study.json", lambda fh: fh.write(text.encode()))
    return StudyReport(outcomes, rows, files, analysis_error=error, parameters=dict(params))


def _with_outcomes(
    specs: Sequence[RunSpec], rows: list[dict[str, Any]], outcomes: list[RunOutcome]
) -> list[dict[str, Any]]:
    """One row per spec, in spec order, each saying how its run ended and what it cost."""
    by_label = {r.get("run"): r for r in rows if isinstance(r, dict)}
    status = {o.label: o for o in outcomes}
    out = []
    for s in specs:
        row = dict(by_label.get(s.label, {"run": s.label}))
        o = status[s.label]
        row.update(
            status=o.status,
            iterations=o.iterations,
            cpu_s=round(o.solve_time, 3),
            wall_s=round(o.wall_time, 3),
            message=o.message,
        )
        out.append(row)
    return out


def write_table(
    rows: Sequence[Mapping[str, Any]], directory: str | os.PathLike, name: str = "table"
) -> tuple[Path, Path]:
    """Write rows as DIR/NAME.csv and DIR/NAME.md (columns: every key, in order of appearance;
    a row without a key has an empty cell), each atomically."""
    d = Path(directory)
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)

    def cell(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v).replace("|", "/")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c, "")) for c in columns) + " |" for r in rows]
    csv_path, md_path = d / f"{name}.csv", d / f"{name}.md"
    atomic_write(csv_path, lambda fh: fh.write(buffer.getvalue().encode()))
    atomic_write(md_path, lambda fh: fh.write(("\n".join(lines) + "\n").encode()))
    return csv_path, md_path
