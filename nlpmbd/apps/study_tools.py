"""What study authors use (apps/study_report.py): colours, and quantities of results that most
studies tabulate. Analyses get `Results` (label -> result, None for a run that did not
complete) and must tabulate every spec, drawing only the runs that completed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..model.case import Parameter
from ..validation import short_repr
from .study import Results, RunSpec

if TYPE_CHECKING:  # studies are declared for `nlpmbd list` without loading the result code
    from ..io.result import SimulationResult

COLORS = (
    "tab:blue",
    "tab:orange",
    "tab:green",
    "tab:red",
    "tab:purple",
    "tab:brown",
    "tab:pink",
    "tab:gray",
)


def completed(results: Results, specs: Sequence[RunSpec]) -> list[tuple[RunSpec, SimulationResult]]:
    return [(s, results[s.label]) for s in specs if results.get(s.label) is not None]


def energy_change(r: SimulationResult) -> float:
    return float(r.energy[-1, 2] - r.energy[0, 2])


def penetration(r: SimulationResult) -> float:
    return max(r.penetration_fraction().values(), default=0.0)


def deviation(r: SimulationResult, ref: SimulationResult) -> np.ndarray:
    """|r_com(t) - r_com,ref(t)| (max over bodies) at r's times, ref interpolated."""
    out = np.zeros(r.t.size)
    for k in range(r.q.shape[1] // 7):
        diff = np.column_stack(
            [r.q[:, 7 * k + i] - np.interp(r.t, ref.t, ref.q[:, 7 * k + i]) for i in range(3)]
        )
        out = np.maximum(out, np.linalg.norm(diff, axis=1))
    return out


def first_bottom_crossing(r: SimulationResult) -> float:
    """Time at which the first body's centre of mass first crosses x = 0 (linear)."""
    x = r.q[:, 0]
    idx = np.nonzero((x[:-1] > 0) & (x[1:] <= 0))[0]
    if idx.size == 0:
        return float("nan")
    k = idx[0]
    return float(r.t[k] + (r.t[k + 1] - r.t[k]) * x[k] / (x[k] - x[k + 1]))


def impacts(r: SimulationResult, threshold: float = 1e-6) -> int:
    """Steps at which a contact that carried no force in the previous step carries force."""
    active = r.lam > threshold
    return int(np.sum(np.any(active[1:] & ~active[:-1], axis=1)))


def floats(text: str, name: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(
            f"{name} must be a comma-separated list of numbers, got {short_repr(text)}"
        ) from None
    if not values or any(not np.isfinite(v) or v <= 0 for v in values):
        raise InputError(f"{name} must be positive finite numbers, got {short_repr(text)}")
    return values


def t_end_parameter(default: float) -> Parameter:
    """The t_end parameter every study has (the CLI's --t-end sets it)."""
    return Parameter(
        "t_end", default, "simulated time of every run", float, low=0.0, low_open=True, unit="s"
    )


#: A deviation between two runs counts as converged when the runs' error estimates together
#: are below this fraction of it.
CONVERGED = 0.1


def resolved(
    r: SimulationResult, deviation: float | None = None, other: SimulationResult | None = None
) -> str:
    """ "yes", or "no: " and why: the first validity warning of the run (run/validity.py: a run
    that finished without resolving its motion, e.g. a clearance the step cannot resolve); with
    `deviation` (m) from the run `other`, also when the two runs' error estimates (meta
    error_estimate) are not below CONVERGED of it: the deviation is not converged in h."""
    warnings = list(r.meta.get("warnings", []))
    if not warnings and deviation is not None and other is not None:
        error = float(r.meta.get("error_estimate", 0.0))
        error += float(other.meta.get("error_estimate", 0.0))
        if error > CONVERGED * deviation:
            warnings.append(
                f"the error estimates ({error:.3g} m) are not below {CONVERGED:g} of the "
                f"deviation ({deviation:.3g} m): not converged in h; use a smaller h"
            )
    if not warnings:
        return "yes"
    first = warnings[0]
    return "no: " + (first if len(first) <= 120 else first[:117] + "...")
