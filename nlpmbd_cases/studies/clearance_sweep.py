"""The study clearance-sweep: one case over a list of clearances against its ideal counterpart."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from nlpmbd.apps.study import Results, RunSpec, Study
from nlpmbd.apps.study_tools import (
    COLORS,
    completed,
    deviation,
    energy_change,
    floats,
    impacts,
    penetration,
    resolved,
    t_end_parameter,
)
from nlpmbd.model.case import Parameter
from nlpmbd.plots.panels import Curve, Panel, save_panels


def _cs_clearances(p: Mapping[str, Any]) -> list[float]:
    return floats(p["clearances"], "clearances")


def _cs_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    common = {"t_end": p["t_end"], "h_min": p["h"], "h_max": p["h"]}
    specs = [RunSpec("ideal", p["case"], {"joint": "ideal"}, **common)]
    specs += [
        RunSpec(f"c={c:g}", p["case"], {"joint": "clearance", "clearance": c}, **common)
        for c in _cs_clearances(p)
    ]
    return specs


def _cs_figures(p: Mapping[str, Any], ok: list, dev: dict, style: dict, out: Path) -> None:
    loose = [(s, r) for s, r in ok if s.label != "ideal"]
    deviations = [
        Curve(s.label, r.t, dev[s.label], style[s.label]) for s, r in loose if s.label in dev
    ]
    forces = [
        # row 0 of a force is 0 by definition (no step yet): not drawn
        Curve(s.label, r.t[1:], np.linalg.norm(r.force_of("pin")[1:], axis=1), style[s.label])
        for s, r in ok
    ]
    save_panels(
        out / "deviation.png",
        f"{p['case']}: clearance sweep",
        [Panel("|r - r_ideal| (m)", deviations, log=True), Panel("|joint force| (N)", forces)],
    )
    drawn = [(s, r) for s, r in loose if s.label in dev]
    if drawn:
        curve = Curve(
            "max deviation",
            np.array([s.params["clearance"] for s, _ in drawn]),
            np.array([dev[s.label].max() for s, _ in drawn]),
            {"marker": "o"},
        )
        panel = Panel(
            "max |r - r_ideal| (m)", [curve], log=True, xlabel="clearance c (m)", logx=True
        )
        save_panels(
            out / "deviation_vs_clearance.png", f"{p['case']}: convergence to ideal", [panel]
        )


def _cs_analyse(
    p: Mapping[str, Any], specs: list[RunSpec], results: Results, out: Path
) -> list[dict[str, Any]]:
    ideal = results.get("ideal")
    ok = completed(results, specs)
    style = {s.label: {"color": COLORS[i % len(COLORS)]} for i, s in enumerate(specs)}
    dev = {s.label: deviation(r, ideal) for s, r in ok} if ideal is not None else {}
    _cs_figures(p, ok, dev, style, out)
    rows = []
    for s in specs:
        r = results.get(s.label)
        force = float(np.linalg.norm(r.force_of("pin"), axis=1).max()) if r else ""
        rows.append(
            {
                "run": s.label,
                "clearance (m)": s.params.get("clearance", 0.0) if s.label != "ideal" else 0.0,
                "peak joint force (N)": force,
                "max deviation from ideal (m)": float(dev[s.label].max()) if s.label in dev else "",
                "energy loss (J)": -energy_change(r) if r else "",
                "impacts": impacts(r) if r else "",
                "max penetration / c": penetration(r) if r else "",
                "resolved": resolved(r, float(dev[s.label].max()), ideal)
                if r and s.label in dev and s.label != "ideal"
                else (resolved(r) if r else ""),
            }
        )
    return rows


CLEARANCE_SWEEP = Study(
    "clearance-sweep",
    "one case over a list of clearances against its ideal counterpart",
    (
        t_end_parameter(2.0),
        Parameter(
            "case",
            "pendulum",
            "case to run (it must have joint and clearance)",
            str,
            choices=("pendulum", "revolute"),
        ),
        Parameter(
            "clearances",
            "1e-2,1e-3,1e-4",
            "comma-separated clearances (each must be resolved by h: h^2 w^2 L / 2 < c / 2)",
            str,
            unit="m",
        ),
        Parameter("h", 1e-3, "fixed step size", float, low=0.0, low_open=True, unit="s"),
    ),
    _cs_specs,
    _cs_analyse,
)
