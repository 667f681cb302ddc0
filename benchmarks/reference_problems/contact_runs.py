"""What the contact reference problems share: where the peers' data are, a case run as `nlpmbd
run CASE` runs it (no flags) or with options, its CPU time, and the report page."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.io.result import SimulationResult

from . import peer_folder
from . import write_page as page

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "reference_problems"


def peer_csv(folder: str, name: str) -> np.ndarray | None:
    """A peer's CSV (one header line) as an array, None when the folder is absent."""
    path = peer_folder(folder)
    if path is None:
        return None
    return np.loadtxt(path / name, delimiter=",", skiprows=1)


@dataclass
class Run:
    result: SimulationResult
    cpu: float  # process CPU seconds of simulate()


def run_case(
    name: str, params: dict[str, Any] | None = None, force: bool = False, **options: Any
) -> Run:
    """The case as `nlpmbd run NAME` runs it (its h range, t_end and option defaults), the
    given options on top (`force`: past the result-size check, for a tiny h_min)."""
    case = get_case(name)
    system, resolved = case.build(params or {})
    kw: dict[str, Any] = {"h_min": case.h_min, "h_max": case.h_max, "t_end": case.t_end}
    kw.update(case.option_defaults(resolved))
    kw.update(options)
    tic = time.process_time()
    result = simulate(system, SimulationOptions(**kw), force=force)
    return Run(result, time.process_time() - tic)


def failed_steps(result: SimulationResult) -> int:
    """Steps whose status is a failure (status >= 3, io/schema.py)."""
    return int(np.count_nonzero(result.status >= 3))


def write_page(
    name: str, title: str, measured: str, problem: str, reference: str, *more: tuple[str, str]
) -> Path:
    """docs/reference_problems/NAME.md (the package's write_page): sections Problem, Reference,
    Measured (with the command that measured it), any `more` (heading, text), the figure."""
    sections = [("Problem", problem), ("Reference", reference)]
    sections += [(f"Measured (`python -m benchmarks.reference_problems.{name}`)", measured)]
    body = [f"## {head}\n\n{text.strip()}\n" for head, text in [*sections, *more]]
    return page(name, title, "\n".join([*body, "## Figure"]))
