"""Studies: families of runs declared as RunSpecs, executed serially, on a local process pool or
on a Dask distributed cluster, each written in the normal result format.

>>> specs = [RunSpec("ideal", "pendulum", {"joint": "ideal"}, t_end=1.0, h_min=1e-3, h_max=1e-3),
...          RunSpec("loose", "pendulum", {"joint": "clearance"}, t_end=1.0)]
>>> outcomes = run_specs(specs, "results/my-study", workers=2)       # doctest: +SKIP

A Study names a family of RunSpecs and the analysis of their results; studies are found like
cases, through the entry point group "nlpmbd.studies" (apps/registry.py). `run_specs`
(apps/study_run.py) executes RunSpecs. A run is reused (not recomputed) when
DIR/runs/LABEL/ holds a completed result of the same spec. A failed run is reported in its
RunOutcome and does not stop the others.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model.case import Parameter
from ..run.option_groups import flat_fields
from ..validation import name_string, short_repr
from .model_source import ModelSource, is_model_file, read_source

Stop = Callable[[], bool]
#: A study's results by run label (None for a run that did not complete).
Results = Mapping[str, Any]
Analyse = Callable[[Mapping[str, Any], list["RunSpec"], Results, Path], list[dict[str, Any]]]


@dataclass(frozen=True, init=False)
class RunSpec:
    """One simulation of a study: a case (a built-in case's name or a model file's path), its
    parameters and simulation options by their flat names (run/option_groups.py; given ones
    override the case's defaults). A model file is read now (apps/model_source.py)."""

    label: str
    case: str
    params: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    model: ModelSource | None = None

    def __init__(
        self,
        label: str,
        case: str,
        params: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        **flat: Any,
    ) -> None:
        name_string("run label", label)
        if any(ch in label for ch in "/\\") or label.startswith("."):
            raise InputError(f"run label must be a plain folder name, got {short_repr(label)}")
        merged = {**dict(options or {}), **flat}
        known = flat_fields()
        unknown = sorted(set(merged) - set(known))
        if unknown:
            raise InputError(f"run {label}: unknown option {short_repr(unknown[0])}")
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "case", case)
        object.__setattr__(self, "params", dict(params or {}))
        object.__setattr__(self, "options", merged)
        model = read_source(case, self.params) if is_model_file(case) else None
        object.__setattr__(self, "model", model)

    def as_dict(self) -> dict[str, Any]:
        spec = {"label": self.label, "case": self.case, "params": self.params}
        if self.model is not None:  # an edited model file is another spec
            spec["model_sha256"] = self.model.sha256
        return json.loads(json.dumps({**spec, "options": self.options}, sort_keys=True))

    def with_defaults(self, options: Mapping[str, Any]) -> RunSpec:
        """This spec with `options` below its own (a study's command-line options)."""
        if not options:
            return self
        return RunSpec(self.label, self.case, self.params, {**options, **self.options})

    def simulation_options(self, case: Any, own: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """SimulationOptions keywords this run gives: the case's step grid (its option defaults
        for these parameters, `own`, may choose another: Case.options), then this spec's
        options (the case's other option defaults go below them:
        SimulationOptions.with_defaults)."""
        kw: dict[str, Any] = {"t_end": case.t_end}
        kw.update({k: (own or {}).get(k, getattr(case, k)) for k in ("h_min", "h_max")})
        kw.update(self.options)
        if "h_min" in self.options and "h_max" not in self.options:
            kw["h_max"] = max(kw["h_max"], kw["h_min"])
        return kw


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one RunSpec: "ok", "reused", "failed", "interrupted" or "not run", where
    its result is, and its cost (IPOPT iterations, summed solve time, wall time in s)."""

    label: str
    status: str
    directory: str
    message: str = ""
    iterations: int = 0
    solve_time: float = 0.0
    wall_time: float = 0.0

    @property
    def succeeded(self) -> bool:
        return self.status in ("ok", "reused")


def run_directory(root: str | os.PathLike, spec: RunSpec) -> Path:
    return Path(root) / "runs" / spec.label


def reusable(spec: RunSpec, root: str | os.PathLike) -> RunOutcome | None:
    """The outcome of an earlier completed run of exactly this spec in root, if any."""
    from ..io.result import SimulationResult

    out = run_directory(root, spec)
    try:
        result = SimulationResult.load(out)
    except InputError:
        return None
    if not result.completed or result.meta.get("spec") != spec.as_dict():
        return None
    return RunOutcome(
        spec.label,
        "reused",
        str(out),
        iterations=int(result.iterations.sum()),
        solve_time=float(result.solve_time.sum()),
        wall_time=float(result.meta.get("wall_time", 0.0)),
    )


@dataclass(frozen=True)
class Study:
    """`specs(parameters)` declares the runs; `analyse(parameters, specs, results, out)` draws
    figures into `out` and returns one table row per run ({"run": label, ...}); a run that did
    not complete has the result None."""

    name: str
    description: str
    parameters: tuple[Parameter, ...]
    specs: Callable[[Mapping[str, Any]], list[RunSpec]]
    analyse: Analyse
