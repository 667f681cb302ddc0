"""Checkpoints of a running simulation and resuming from them (issue 7).

A checkpoint is an ordinary partial result (DIR/result.npz + meta.json, `completed: false`,
written atomically by SimulationResult.save) whose meta.json also holds `resume`: the little
state the stepping loop carries from one step to the next besides (t, q, v), namely the
previous step's IPOPT point and multipliers (its warm start), the step-size controller's next
h and the counters. With it, a resumed run takes exactly the steps the uninterrupted run would
have taken: same arrays, bit for bit (only solve_time and wall times differ).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..errors import InputError
from ..io.result import SimulationResult
from ..io.schema import ARRAYS
from ..model.system import System
from ..step.solver import StepSolution
from .options import SimulationOptions
from .state import COUNTERS, RunState

#: Keys of meta.json that must match between a checkpoint and the run that resumes it.
_SAME = ("bodies", "nodes", "contact_labels", "eq_labels", "joints")


def resume_state(state: RunState, counters: dict[str, int]) -> dict[str, Any]:
    """The JSON-able `resume` entry of a checkpoint: the RunState besides (t, q, v), which the
    arrays hold (floats round-trip exactly through JSON: Python writes the shortest repr that
    reads back to the same double)."""
    warm = state.warm
    return {
        "n_steps": state.step,
        "h_next": state.h_next,
        "counters": dict(counters),
        "warm": None
        if warm is None or warm.warm is None
        else {k: np.asarray(a).tolist() for k, a in warm.warm.items()},
        "impact_speed": state.impact_speed.tolist(),
        "error": state.error,
    }


def _normal(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


def restore(
    result: SimulationResult, system: System, options: SimulationOptions
) -> tuple[dict[str, np.ndarray], RunState]:
    """Check that `result` is a checkpoint of this system and these options, and return its
    arrays and the RunState to continue from."""
    meta = result.meta
    state = meta.get("resume")
    if result.completed:
        raise InputError("resume: the result is complete; nothing to resume")
    if not isinstance(state, dict) or state.get("n_steps") != result.n_steps:
        raise InputError(
            "resume: the result holds no consistent checkpoint state (meta.json resume.n_steps "
            f"{state.get('n_steps') if isinstance(state, dict) else None} != {result.n_steps} "
            "steps in result.npz)"
        )
    given = meta.get("options")
    if isinstance(given, dict):
        given = {k: v for k, v in given.items() if k != "output"}
    if _normal(given) != _normal(options.as_dict(run_defining=True)):
        raise InputError("resume: the options differ from the checkpoint's (meta.json options)")
    now = {
        "bodies": [b.name for b in system.bodies],
        "nodes": [f"{f.name}[{k}]" for f in system.flexible for k in range(f.n_nodes)],
        "contact_labels": system.gap_labels,
        "eq_labels": system.eq_labels,
        "joints": [j.name for j in system.joints],
    }
    for key in _SAME:
        if _normal(meta.get(key)) != _normal(now[key]):
            raise InputError(f"resume: the system differs from the checkpoint's ({key})")
    arrays = {name: getattr(result, name) for name in ARRAYS}
    n_compliant = len(meta.get("compliant_labels", []))
    run_state = RunState(
        t=float(result.t[-1]),
        q=np.r_[result.q[-1], result.node_q[-1].ravel()],
        v=np.r_[result.v[-1], result.node_v[-1].ravel()],
        h_next=float(state["h_next"]),
        impact_speed=np.asarray(state.get("impact_speed", [0.0] * n_compliant), dtype=float),
        step=result.n_steps,
        warm=_warm(result, state.get("warm")),
        error=_error_sum(state.get("error", 0.0)),
    )
    previous = state.get("counters", {})
    run_state.earlier.update({k: int(previous.get(k, 0)) for k in COUNTERS})
    return arrays, run_state


def _error_sum(value: Any) -> float:
    """resume.error: the sum of the local error estimates so far (m)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < np.inf:
        raise InputError(f"resume.error must be a finite error sum >= 0 m, got {value!r:.40}")
    return float(value)


def _warm(result: SimulationResult, warm: dict | None) -> StepSolution | None:
    """The last step's solution as the next step's warm start (its solver's restart data)."""
    if not warm:
        return None
    return StepSolution(
        h=float(result.h[-1]) if result.n_steps else 0.0,
        q=np.r_[result.q[-1], result.node_q[-1].ravel()],
        v=np.r_[result.v[-1], result.node_v[-1].ravel()],
        lam=result.lam[-1],
        lam_eq=result.lam_eq[-1],
        eom_residual=0.0,
        comp_residual=0.0,
        norm_drift=0.0,
        status=0,
        iterations=0,
        solve_time=0.0,
        return_status="checkpoint",
        warm={k: np.asarray(a, dtype=float) for k, a in warm.items()},
    )
