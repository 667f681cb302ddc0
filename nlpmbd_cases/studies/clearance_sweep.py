"""The study clearance-sweep: one case over a list of clearances against its ideal counterpart.

The case is a built-in case with `joint` and `clearance` parameters, or a model file (a path)
whose [parameters] declare `clearance` (apps/model_source.py); its ideal counterpart is run when
the case has a `joint` parameter that takes "ideal". Joint forces are those of the joint named
`pin` (else of the first joint).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from nlpmbd.apps.model_source import is_model_file, read_source
from nlpmbd.apps.registry import get_case
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
from nlpmbd.errors import InputError
from nlpmbd.model.case import Parameter
from nlpmbd.plots.panels import Curve, Panel, save_panels
from nlpmbd.validation import short_repr


def _cs_clearances(p: Mapping[str, Any]) -> list[float]:
    return floats(p["clearances"], "clearances")


def _cs_parameters(name: str) -> dict[str, Parameter]:
    """The parameters of the case (InputError unless it has a clearance)."""
    if is_model_file(name):
        case = read_source(name).case()
    else:
        case = get_case(name)
    found = {prm.name: prm for prm in case.parameters}
    if "clearance" not in found:
        raise InputError(
            f"study clearance-sweep: case {short_repr(name)} has no parameter clearance "
            f"(its parameters: {', '.join(found) or 'none'})"
        )
    return found


def _cs_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    common = {"t_end": p["t_end"], "h_min": p["h"], "h_max": p["h"]}
    joint = _cs_parameters(p["case"]).get("joint")
    loose: dict[str, Any] = {}
    specs = []
    if joint is not None and "ideal" in joint.choices:
        loose = {"joint": "clearance"}
        specs.append(RunSpec("ideal", p["case"], {"joint": "ideal"}, **common))
    specs += [
        RunSpec(f"c={c:g}", p["case"], {**loose, "clearance": c}, **common)
        for c in _cs_clearances(p)
    ]
    return specs


def _pin(r: Any) -> np.ndarray:
    """The force of the joint named pin, else of the first joint."""
    joints = list(r.meta.get("joints", []))
    return r.force_of("pin" if "pin" in joints or not joints else joints[0])


def _cs_figures(p: Mapping[str, Any], ok: list, dev: dict, style: dict, out: Path) -> None:
    loose = [(s, r) for s, r in ok if s.label != "ideal"]
    deviations = [
        Curve(s.label, r.t, dev[s.label], style[s.label]) for s, r in loose if s.label in dev
    ]
    forces = [
        # row 0 of a force is 0 by definition (no step yet): not drawn
        Curve(s.label, r.t[1:], np.linalg.norm(_pin(r)[1:], axis=1), style[s.label])
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
        force = float(np.linalg.norm(_pin(r), axis=1).max()) if r else ""
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
            "case to run: a built-in case with joint and clearance parameters (pendulum, "
            "revolute) or a model file with a clearance parameter",
            str,
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
