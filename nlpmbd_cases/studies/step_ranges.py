"""The study step-ranges: total energy of a clearance case for several [h_min, h_max] ranges
(paper Fig. 30)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from nlpmbd.apps.study import Results, RunSpec, Study
from nlpmbd.apps.study_tools import (
    COLORS,
    completed,
    energy_change,
    penetration,
    t_end_parameter,
)
from nlpmbd.model.case import Parameter
from nlpmbd.plots.panels import Curve, Panel, save_panels

RANGES = ((2.5e-4, 5e-4), (5e-4, 1e-3), (2.5e-4, 1e-3), (1e-3, 2e-3), (5e-4, 2e-3), (2e-3, 4e-3))


def _range_label(lo: float, hi: float) -> str:
    return f"h=[{lo:g},{hi:g}]"


def _sr_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    return [
        RunSpec(_range_label(lo, hi), p["case"], {}, t_end=p["t_end"], h_min=lo, h_max=hi)
        for lo, hi in RANGES
    ]


def _sr_analyse(
    p: Mapping[str, Any], specs: list[RunSpec], results: Results, out: Path
) -> list[dict[str, Any]]:
    ok = completed(results, specs)
    style = {s.label: {"color": COLORS[i]} for i, s in enumerate(specs)}
    save_panels(
        out / "energy.png",
        f"{p['case']}: total energy for several step ranges",
        [
            Panel(
                "total energy E(t) - E(0) (J)",
                [
                    Curve(s.label, r.t, r.energy[:, 2] - r.energy[0, 2], style[s.label])
                    for s, r in ok
                ],
            ),
            Panel(
                "step size h (s)",
                [Curve(s.label, r.t[1:], r.h, style[s.label]) for s, r in ok],
                log=True,
            ),
        ],
    )
    rows = []
    for s in specs:
        r = results.get(s.label)
        rows.append(
            {
                "run": s.label,
                "h_min (s)": s.options["h_min"],
                "h_max (s)": s.options["h_max"],
                "steps": r.n_steps if r else "",
                "mean h (s)": float(np.mean(r.h)) if r else "",
                "energy lost (J)": -energy_change(r) if r else "",
                "max penetration / c": penetration(r) if r else "",
            }
        )
    return rows


STEP_RANGES = Study(
    "step-ranges",
    "total energy of a clearance case for several [h_min, h_max] ranges (paper Fig. 30)",
    (
        t_end_parameter(5.0),
        Parameter("case", "revolute", "case to run", str, choices=("revolute", "pendulum")),
    ),
    _sr_specs,
    _sr_analyse,
)
