"""Studies: families of runs declared as RunSpecs, executed serially, on a local process pool or
on a Dask distributed cluster, each written in the normal result format.

>>> specs = [RunSpec("ideal", "pendulum", {"joint": "ideal"}, t_end=1.0, h_min=1e-3, h_max=1e-3),
...          RunSpec("loose", "pendulum", {"joint": "clearance"}, t_end=1.0)]
>>> outcomes = run_specs(specs, "results/my-study", workers=2)       # doctest: +SKIP

A run is reused (not recomputed) when DIR/runs/LABEL/ holds a completed result of the same spec.
A failed run is reported in its RunOutcome and does not stop the others.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..validation import name_string

#: Options a RunSpec may set (None = the case's default or SimulationOptions' default).
OPTION_FIELDS = (
    "t_end",
    "h_min",
    "h_max",
    "formulation",
    "gap_correction",
    "step_control",
    "error_tol",
)


@dataclass(frozen=True)
class RunSpec:
    """One simulation of a study: a case, its parameters and the simulation options."""

    label: str
    case: str
    params: Mapping[str, Any] = field(default_factory=dict)
    t_end: float | None = None
    h_min: float | None = None
    h_max: float | None = None
    formulation: str | None = None
    gap_correction: str | None = None
    step_control: str | None = None
    error_tol: float | None = None

    def __post_init__(self) -> None:
        name_string("run label", self.label)
        if any(ch in self.label for ch in "/\\") or self.label.startswith("."):
            raise InputError(f"run label must be a plain folder name, got {self.label!r}")
        object.__setattr__(self, "params", dict(self.params))

    def as_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(asdict(self), sort_keys=True))

    def options(self, case) -> dict[str, Any]:
        """SimulationOptions keywords: the case's step defaults, then this spec's settings."""
        kw: dict[str, Any] = {"t_end": case.t_end, "h_min": case.h_min, "h_max": case.h_max}
        kw.update({k: getattr(self, k) for k in OPTION_FIELDS if getattr(self, k) is not None})
        if self.h_min is not None and self.h_max is None:
            kw["h_max"] = max(kw["h_max"], kw["h_min"])
        return kw


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one RunSpec: "ok", "reused" or "failed", where its result is, and
    its cost (total IPOPT iterations, summed solve time, wall time, all in seconds)."""

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


def execute(spec: RunSpec, root: str) -> RunOutcome:
    """Run one spec and write DIR/runs/LABEL/. Never raises: a failure becomes the outcome (the
    partial result of a solver failure is written first)."""
    from ..errors import SolverFailure
    from ..run.options import SimulationOptions
    from ..run.simulate import simulate
    from .registry import get_case

    out = run_directory(root, spec)
    tic = time.perf_counter()
    try:
        case = get_case(spec.case)
        system, params = case.build(spec.params)
        options = SimulationOptions(**spec.options(case))
        meta = {"case": case.name, "parameters": params, "spec": spec.as_dict()}
        result = simulate(system, options, meta=meta)
    except SolverFailure as err:
        if err.partial is not None:
            err.partial.meta["spec"] = spec.as_dict()
            err.partial.save(out)
        return RunOutcome(
            spec.label, "failed", str(out), str(err), wall_time=time.perf_counter() - tic
        )
    except Exception as err:  # a study reports every failure and goes on with the others
        return RunOutcome(
            spec.label,
            "failed",
            str(out),
            f"{type(err).__name__}: {err}",
            wall_time=time.perf_counter() - tic,
        )
    result.save(out)
    return RunOutcome(
        spec.label,
        "ok",
        str(out),
        iterations=int(result.iterations.sum()),
        solve_time=float(result.solve_time.sum()),
        wall_time=time.perf_counter() - tic,
    )


def reusable(spec: RunSpec, root: str | os.PathLike) -> RunOutcome | None:
    """The outcome of an earlier completed run of exactly this spec in root, if any."""
    from ..io.result import SimulationResult

    out = run_directory(root, spec)
    try:
        meta = json.loads((out / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    if not meta.get("completed") or meta.get("spec") != spec.as_dict():
        return None
    try:
        result = SimulationResult.load(out)
    except InputError:
        return None
    return RunOutcome(
        spec.label,
        "reused",
        str(out),
        iterations=int(result.iterations.sum()),
        solve_time=float(result.solve_time.sum()),
        wall_time=float(meta.get("wall_time", 0.0)),
    )


def run_specs(
    specs: Sequence[RunSpec],
    root: str | os.PathLike,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = False,
    on_done: Callable[[RunOutcome], None] | None = None,
) -> list[RunOutcome]:
    """Execute the specs (reusing completed ones) and return their outcomes in spec order.

    workers: size of the local process pool (default: the number of cores; 1 = serial, in this
    process). cluster: address of an existing Dask distributed scheduler (tcp://host:port);
    needs the `cluster` extra.
    """
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        raise InputError("run labels of a study must be unique")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise InputError(f"workers must be an integer >= 1, got {workers!r}")
    if workers is not None and cluster is not None:
        raise InputError("--workers and --cluster cannot be combined")
    root = str(root)
    Path(root).mkdir(parents=True, exist_ok=True)
    done: dict[str, RunOutcome] = {}
    todo = []
    for spec in specs:
        previous = reusable(spec, root)
        if previous is None:
            todo.append(spec)
        else:
            done[spec.label] = previous
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(specs), initial=len(done), unit="run")

    def finished(outcome: RunOutcome) -> None:
        done[outcome.label] = outcome
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(f"{outcome.label}: {outcome.status}")
        if on_done is not None:
            on_done(outcome)

    try:
        for outcome in _backend(todo, root, workers, cluster):
            finished(outcome)
    finally:
        if bar is not None:
            bar.close()
    return [done[label] for label in labels]


def _backend(
    todo: list[RunSpec], root: str, workers: int | None, cluster: str | None
) -> Iterable[RunOutcome]:
    """Outcomes as runs finish, from the chosen executor."""
    if not todo:
        return
    if cluster is not None:
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise InputError("--cluster needs Dask: pip install 'nlpmbd[cluster]'") from None
        try:
            client = Client(cluster, timeout="10s")
        except (OSError, TimeoutError, ValueError) as err:
            raise InputError(f"cannot reach the Dask cluster at {cluster!r} ({err})") from None
        try:
            futures = client.map(execute, todo, root=root, pure=False)
            for future in as_completed(futures):
                yield future.result()
        finally:
            client.close()
        return
    n = workers or os.cpu_count() or 1
    if n == 1 or len(todo) == 1:
        for spec in todo:
            yield execute(spec, root)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # "spawn": a fresh interpreter per worker, no fork of a process holding CasADi/IPOPT state
    with ProcessPoolExecutor(
        max_workers=min(n, len(todo)), mp_context=multiprocessing.get_context("spawn")
    ) as pool:
        futures = [pool.submit(execute, spec, root) for spec in todo]
        for future in as_completed(futures):
            yield future.result()


def write_table(
    rows: Sequence[Mapping[str, Any]], directory: str | os.PathLike, name: str = "table"
) -> tuple[Path, Path]:
    """Write rows (dicts with the same keys) as DIR/NAME.csv and DIR/NAME.md."""
    import csv

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    columns = list(rows[0]) if rows else []
    csv_path, md_path = d / f"{name}.csv", d / f"{name}.md"
    with open(csv_path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r[c]) for c in columns) + " |" for r in rows]
    md_path.write_text("\n".join(lines) + "\n")
    return csv_path, md_path
