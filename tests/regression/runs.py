"""The runs of the regression snapshot: every case at its defaults (short t_end), both solver
paths where allowed, every gap correction, the MPCC form, the step-size controller, the
predictor off, friction, restitution and compliant contact. Written against the public API
that both the old and the new layout offer (flat option names, `simulate`, the case registry),
so the same list runs on the code from before a refactor and after it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Run:
    name: str
    case: str
    params: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)


def _r(name: str, case: str, params: dict | None = None, **options: Any) -> Run:
    return Run(name, case, params or {}, options)


CLEAR = {"joint": "clearance"}
TINY = {"joint": "clearance", "clearance": 1e-6}
QP = {"solver": "qp", "codegen": "off"}
RUNS = (
    _r("pend_ideal", "pendulum", t_end=0.3),
    _r("pend_clear", "pendulum", CLEAR, t_end=0.3),
    _r("pend_clear_var", "pendulum", CLEAR, t_end=0.3, h_min=2e-4, h_max=1e-3),
    _r("pend_clear_qp", "pendulum", CLEAR, t_end=0.3, **QP),
    _r("pend_mpcc", "pendulum", CLEAR, t_end=0.1, formulation="mpcc"),
    _r("pend_nopred", "pendulum", CLEAR, t_end=0.1, predictor=False),
    _r("rev", "revolute", t_end=0.1),
    _r("rev_qp", "revolute", t_end=0.1, h_min=1e-3, h_max=1e-3, **QP),
    _r("rev_proj", "revolute", t_end=0.1, gap_correction="projection"),
    _r("rev_curv", "revolute", t_end=0.1, gap_correction="curvature"),
    _r("rev_none", "revolute", t_end=0.1, gap_correction="none"),
    _r("rev_ctrl", "revolute", t_end=0.1, h_min=1e-4, h_max=2e-3, step_control="controller"),
    _r(
        "rev_ctrl_qp",
        "revolute",
        t_end=0.1,
        h_min=1e-4,
        h_max=2e-3,
        step_control="controller",
        solver="qp",
    ),
    _r("rev_long", "revolute", t_end=1.5),
    _r("cyl", "cylindrical", t_end=0.2),
    _r("cyl_qp", "cylindrical", t_end=0.2, h_min=1e-3, h_max=1e-3, **QP),
    _r("pris", "prismatic", t_end=0.1),
    _r("pris_qp", "prismatic", t_end=0.1, h_min=1e-3, h_max=1e-3, **QP),
    _r("box", "box_drop", t_end=0.3),
    _r("box_qp", "box_drop", t_end=0.3, h_min=1e-3, h_max=1e-3, **QP),
    _r("free", "free_body", t_end=0.2),
    _r("free_qp", "free_body", t_end=0.2, **QP),
    _r("stick", "stick_slip", t_end=0.3),
    _r("stick_compliant", "stick_slip", {"contact": "compliant"}, t_end=0.05),
    _r("stick_sd", "stick_slip", {"contact": "spring_damper"}, t_end=0.3, solver="nlp"),
    _r("stick_sd_qp", "stick_slip", {"contact": "spring_damper"}, t_end=0.3, **QP),
    _r("crank", "slider_crank", t_end=0.003),
    _r("crank_driven", "slider_crank_driven", t_end=0.003),
    _r("crank_driven_compliant", "slider_crank_driven", {"guide": "compliant"}, t_end=0.002),
    _r("rocker", "crank_rocker", t_end=0.01),
    _r("moment", "slider_crank_moment", t_end=0.05),
    _r("pend_tiny", "pendulum", TINY, t_end=0.5),
    _r("pend_tiny_qp", "pendulum", TINY, t_end=0.5, **QP),
    _r(
        "pend_tiny_ctrl",
        "pendulum",
        TINY,
        t_end=0.3,
        h_min=1e-4,
        h_max=1e-3,
        step_control="controller",
    ),
)
#: Options every run takes unless it names them (the defaults otherwise). The snapshot holds the
#: virtual machine's numbers: compiled chunks start DAQP from a working set (run/codegen_source.py
#: warm_daqp) and agree with the VM to round-off only, so no run may depend on whether a
#: compiled library happens to be in the cache.
PINNED: dict[str, Any] = {"codegen": "off"}
#: Counters of meta.json that a run determines (wall times aside).
COUNTERS = (
    "projection_failures",
    "curvature_fallbacks",
    "controller_rejections",
    "chunk_steps",
    "chunk_steps_discarded",
    "projection_nlp_solves",
    "predicted_steps",
    "qp_fallback_steps",
    "qp_backup_solves",
    "friction_solves",
    "friction_unconverged",
)


def _get_case(name: str) -> Any:
    try:
        from nlpmbd.apps.registry import get_case
    except ImportError:  # the layout before issue 13
        from nlpmbd.registry import get_case  # type: ignore[no-redef]
    return get_case(name)


def run_arrays(run: Run) -> dict[str, np.ndarray]:
    """Every array of the run's result but the wall times, and its counters."""
    from nlpmbd import SimulationOptions, simulate

    case = _get_case(run.case)
    system, _ = case.build(run.params)
    kw: dict[str, Any] = {"h_min": case.h_min, "h_max": case.h_max, **PINNED, **run.options}
    if kw.get("solver") == "qp" and "step_control" not in kw:
        kw["h_min"] = kw["h_max"]
    result = simulate(system, SimulationOptions(**kw))
    out = {
        f.name: np.asarray(getattr(result, f.name))
        for f in dataclasses.fields(result)
        if f.name not in ("meta", "solve_time")
    }
    out["counters"] = np.array([result.meta[k] for k in COUNTERS], dtype=float)
    return out
