"""The study ideal-vs-clearance: the pendulum with an ideal and a clearance pin at four step
settings (paper 5.4, Fig. 37)."""

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
    first_bottom_crossing,
    penetration,
    t_end_parameter,
)
from nlpmbd.model.case import Parameter
from nlpmbd.plots.panels import Curve, Panel, save_panels

STEP_SETTINGS = (
    ("h=2e-4", 2e-4, 2e-4),
    ("h=1e-3", 1e-3, 1e-3),
    ("h=[2e-4,1e-3]", 2e-4, 1e-3),
    ("h=[1e-3,2e-3]", 1e-3, 2e-3),
)


def _ivc_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    return [
        RunSpec(
            f"{joint}_{label}",
            "pendulum",
            {"joint": joint, **({"clearance": p["clearance"]} if joint == "clearance" else {})},
            t_end=p["t_end"],
            h_min=lo,
            h_max=hi,
        )
        for joint in ("ideal", "clearance")
        for label, lo, hi in STEP_SETTINGS
    ]


def _ivc_figures(ok: list, style: dict, out: Path) -> None:
    def panels(values, ylabels, log=False, first=0):
        # first = 1 for forces: their row 0 is 0 by definition (no step yet), not a force
        return [
            Panel(
                yl,
                [Curve(s.label, r.t[first:], f(r)[first:], style[s.label]) for s, r in ok],
                log=log,
            )
            for f, yl in zip(values, ylabels, strict=True)
        ]

    title = "pendulum, ideal (solid) vs clearance (dashed)"
    save_panels(
        out / "positions.png",
        f"{title}: centre of mass",
        panels([lambda r: r.q[:, 0], lambda r: r.q[:, 1]], ["x (m)", "y (m)"]),
    )
    save_panels(
        out / "velocities.png",
        f"{title}: centre-of-mass velocity",
        panels([lambda r: r.v[:, 0], lambda r: r.v[:, 1]], ["dx/dt (m/s)", "dy/dt (m/s)"]),
    )
    save_panels(
        out / "energy.png",
        f"{title}: energy",
        panels(
            [
                lambda r: r.energy[:, 0],
                lambda r: r.energy[:, 1],
                lambda r: r.energy[:, 2] - r.energy[0, 2],
            ],
            ["kinetic (J)", "potential (J)", "total - E(0) (J)"],
        ),
    )
    save_panels(
        out / "contact_forces.png",
        f"{title}: pin force on the pendulum",
        panels(
            [lambda r, i=i: r.force_of("pin")[:, i] for i in range(3)],
            ["CF-x (N)", "CF-y (N)", "CF-z (N)"],
            first=1,
        ),
    )
    save_panels(
        out / "constraint_norm.png",
        f"{title}: constraint violation",
        panels(
            [
                lambda r: r.eq_residual,
                lambda r: np.maximum(r.gap.max(axis=1) if r.gap.size else 0 * r.t, 0),
            ],
            ["ideal-constraint norm", "penetration (m)"],
            log=True,
        ),
    )


def _ivc_analyse(
    p: Mapping[str, Any], specs: list[RunSpec], results: Results, out: Path
) -> list[dict[str, Any]]:
    style = {}
    for i, (label, _, _) in enumerate(STEP_SETTINGS):
        style[f"ideal_{label}"] = {"color": COLORS[i]}
        style[f"clearance_{label}"] = {"color": COLORS[i], "ls": "--"}
    ok = completed(results, specs)

    _ivc_figures(ok, style, out)
    cross = {s.label: first_bottom_crossing(r) for s, r in ok}
    rows = []
    for s in specs:
        r = results.get(s.label)
        joint, setting = s.label.split("_", 1)
        lag = cross.get(s.label, np.nan) - cross.get(f"ideal_{setting}", np.nan)
        rows.append(
            {
                "run": s.label,
                "joint": joint,
                "h (s)": setting[2:],
                "steps": r.n_steps if r else "",
                "energy change (J)": energy_change(r) if r else "",
                "max penetration / c": penetration(r) if r else "",
                "lag at first bottom crossing (ms)": round(1e3 * lag, 3) if r else "",
            }
        )
    return rows


IDEAL_VS_CLEARANCE = Study(
    "ideal-vs-clearance",
    "the pendulum with ideal and clearance joint at four step settings (paper 5.4, Fig. 37)",
    (
        t_end_parameter(10.0),
        Parameter(
            "clearance",
            1e-4,
            "radial clearance of the pin",
            float,
            low=0.0,
            low_open=True,
            high=0.1,
            unit="m",
        ),
    ),
    _ivc_specs,
    _ivc_analyse,
)
