"""The study step-strategies: the NLP-chosen h, a fixed h and the step-size controller against
a fine reference step."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nlpmbd.apps.study import Results, RunSpec, Study
from nlpmbd.apps.study_tools import (
    COLORS,
    completed,
    deviation,
    energy_change,
    penetration,
    t_end_parameter,
)
from nlpmbd.model.case import Parameter
from nlpmbd.plots.panels import Curve, Panel, save_panels


def _ss_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    case, params = p["case"], {"joint": p["joint"]}
    if p["joint"] == "clearance":
        params["clearance"] = p["clearance"]
    t = p["t_end"]
    return [
        RunSpec("nlp", case, params, t_end=t, h_min=p["h_min"], h_max=p["h_max"]),
        RunSpec("fixed", case, params, t_end=t, h_min=p["h_fixed"], h_max=p["h_fixed"]),
        RunSpec(
            "controller",
            case,
            params,
            t_end=t,
            h_min=p["h_min"],
            h_max=p["h_max"],
            step_control="controller",
            error_tol=p["error_tol"],
        ),
        RunSpec("reference", case, params, t_end=t, h_min=p["h_ref"], h_max=p["h_ref"]),
    ]


def _ss_analyse(
    p: Mapping[str, Any], specs: list[RunSpec], results: Results, out: Path
) -> list[dict[str, Any]]:
    ref = results.get("reference")
    ok = completed(results, specs)
    style = {s.label: {"color": COLORS[i]} for i, s in enumerate(specs)}
    err = {s.label: deviation(r, ref) for s, r in ok if ref is not None and s.label != "reference"}
    save_panels(
        out / "strategies.png",
        f"{p['case']} ({p['joint']}): step-size strategies",
        [
            Panel(
                "step size h (s)",
                [Curve(s.label, r.t[1:], r.h, style[s.label]) for s, r in ok],
                log=True,
            ),
            Panel(
                "|r - r_reference| (m)",
                [
                    Curve(s.label, r.t, err[s.label], style[s.label])
                    for s, r in ok
                    if s.label in err
                ],
                log=True,
            ),
            Panel(
                "E(t) - E(0) (J)",
                [
                    Curve(s.label, r.t, r.energy[:, 2] - r.energy[0, 2], style[s.label])
                    for s, r in ok
                ],
            ),
        ],
    )
    rows = []
    for s in specs:
        r = results.get(s.label)
        rows.append(
            {
                "run": s.label,
                "steps": r.n_steps if r else "",
                "max penetration / c": penetration(r) if r else "",
                "energy drift (J)": energy_change(r) if r else "",
                "error vs reference (m)": float(err[s.label].max()) if s.label in err else "",
            }
        )
    return rows


STEP_STRATEGIES = Study(
    "step-strategies",
    "the paper's NLP-chosen h, a fixed h and nlpmbd's step-size controller, against a fine step",
    (
        t_end_parameter(2.0),
        Parameter("case", "pendulum", "case to run", str, choices=("pendulum", "revolute")),
        Parameter("joint", "clearance", "joint model", str, choices=("ideal", "clearance")),
        Parameter(
            "clearance", 1e-4, "radial clearance", float, low=0.0, low_open=True, high=0.1, unit="m"
        ),
        Parameter(
            "h_min",
            2e-4,
            "lower step bound (NLP and controller)",
            float,
            low=0.0,
            low_open=True,
            unit="s",
        ),
        Parameter(
            "h_max",
            2e-3,
            "upper step bound (NLP and controller)",
            float,
            low=0.0,
            low_open=True,
            unit="s",
        ),
        Parameter("h_fixed", 1e-3, "the fixed step", float, low=0.0, low_open=True, unit="s"),
        Parameter(
            "error_tol",
            1e-6,
            "controller's local error tolerance",
            float,
            low=0.0,
            low_open=True,
            high=1.0,
            unit="m",
        ),
        Parameter(
            "h_ref", 1e-4, "step of the fine reference run", float, low=0.0, low_open=True, unit="s"
        ),
    ),
    _ss_specs,
    _ss_analyse,
)
