"""The named studies of `nlpmbd study NAME`: each declares parameters, builds its RunSpecs and
turns the finished runs into a table and figures. Cases are referred to by name only."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..io.result import SimulationResult
from ..model.case import Parameter, resolve_parameters
from ..plots.panels import Curve, Panel, save_panels
from .study import RunOutcome, RunSpec, run_specs, write_table

Results = Mapping[str, SimulationResult | None]
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


@dataclass(frozen=True)
class Study:
    name: str
    description: str
    parameters: tuple[Parameter, ...]
    specs: Callable[[Mapping[str, Any]], list[RunSpec]]
    analyse: Callable[[Mapping[str, Any], list[RunSpec], Results, Path], list[dict[str, Any]]]


@dataclass
class StudyReport:
    """Outcomes, table rows and written files of one study."""

    outcomes: list[RunOutcome]
    rows: list[dict[str, Any]]
    files: list[Path]


def run_study(
    study: Study,
    overrides: Mapping[str, Any] | None,
    out: str | os.PathLike,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    progress: bool = False,
) -> StudyReport:
    """Resolve parameters, run (or reuse) every spec, then write table.csv/.md, the figures
    and study.json into `out`."""
    params = resolve_parameters(study.parameters, overrides or {}, f"study {study.name}")
    specs = study.specs(params)
    outcomes = run_specs(specs, out, workers=workers, cluster=cluster, progress=progress)
    results: dict[str, SimulationResult | None] = {}
    for o in outcomes:
        results[o.label] = SimulationResult.load(o.directory) if o.succeeded else None
    d = Path(out)
    before = set(d.glob("*.png"))
    rows = study.analyse(params, specs, results, d)
    status = {o.label: o for o in outcomes}
    for row in rows:  # every table says how each run ended and what it cost
        o = status[row["run"]]
        row.update(
            status=o.status,
            iterations=o.iterations,
            cpu_s=round(o.solve_time, 3),
            wall_s=round(o.wall_time, 3),
        )
        if not o.succeeded:
            row["message"] = o.message
    files = list(write_table(rows, d)) + sorted(set(d.glob("*.png")) - before)
    info = {
        "study": study.name,
        "parameters": params,
        "runs": [{"spec": s.as_dict(), "outcome": vars(status[s.label])} for s in specs],
    }
    (d / "study.json").write_text(json.dumps(info, indent=2, default=str))
    return StudyReport(outcomes, rows, files)


# --- helpers -------------------------------------------------------------------------------
def _ok(results: Results, specs: Sequence[RunSpec]) -> list[tuple[RunSpec, SimulationResult]]:
    return [(s, results[s.label]) for s in specs if results.get(s.label) is not None]


def _energy_change(r: SimulationResult) -> float:
    return float(r.energy[-1, 2] - r.energy[0, 2])


def _pen(r: SimulationResult) -> float:
    return max(r.penetration_fraction().values(), default=0.0)


def _deviation(r: SimulationResult, ref: SimulationResult) -> np.ndarray:
    """|r_com(t) - r_com,ref(t)| (max over bodies) at r's times, ref interpolated."""
    out = np.zeros(r.t.size)
    for k in range(r.q.shape[1] // 7):
        diff = np.column_stack(
            [r.q[:, 7 * k + i] - np.interp(r.t, ref.t, ref.q[:, 7 * k + i]) for i in range(3)]
        )
        out = np.maximum(out, np.linalg.norm(diff, axis=1))
    return out


def _first_bottom_crossing(r: SimulationResult) -> float:
    """Time at which the first body's centre of mass first crosses x = 0 (linear)."""
    x = r.q[:, 0]
    idx = np.nonzero((x[:-1] > 0) & (x[1:] <= 0))[0]
    if idx.size == 0:
        return float("nan")
    k = idx[0]
    return float(r.t[k] + (r.t[k + 1] - r.t[k]) * x[k] / (x[k] - x[k + 1]))


def _impacts(r: SimulationResult, threshold: float = 1e-6) -> int:
    """Steps at which a contact that carried no force in the previous step carries force."""
    active = r.lam > threshold
    return int(np.sum(np.any(active[1:] & ~active[:-1], axis=1)))


def _floats(text: str, name: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(
            f"{name} must be a comma-separated list of numbers, got {text!r}"
        ) from None
    if not values or any(not np.isfinite(v) or v <= 0 for v in values):
        raise InputError(f"{name} must be positive finite numbers, got {text!r}")
    return values


def _t_end(default: float) -> Parameter:
    """The t_end parameter every study has (the CLI's --t-end sets it)."""
    return Parameter(
        "t_end", default, "simulated time of every run", float, low=0.0, low_open=True, unit="s"
    )


# --- ideal vs clearance (paper 5.4) -----------------------------------------------------------
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
            {"joint": joint, "clearance": p["clearance"]},
            t_end=p["t_end"],
            h_min=lo,
            h_max=hi,
        )
        for joint in ("ideal", "clearance")
        for label, lo, hi in STEP_SETTINGS
    ]


def _ivc_analyse(p, specs, results, out: Path) -> list[dict[str, Any]]:
    style = {}
    for i, (label, _, _) in enumerate(STEP_SETTINGS):
        style[f"ideal_{label}"] = {"color": COLORS[i]}
        style[f"clearance_{label}"] = {"color": COLORS[i], "ls": "--"}
    ok = _ok(results, specs)

    def panels(values, ylabels, log=False):
        return [
            Panel(yl, [Curve(s.label, r.t, f(r), style[s.label]) for s, r in ok], log=log)
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
    cross = {s.label: _first_bottom_crossing(r) for s, r in ok}
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
                "energy change (J)": _energy_change(r) if r else "",
                "max penetration / c": _pen(r) if r else "",
                "lag at first bottom crossing (ms)": round(1e3 * lag, 3) if r else "",
            }
        )
    return rows


IDEAL_VS_CLEARANCE = Study(
    "ideal-vs-clearance",
    "the pendulum with ideal and clearance joint at four step settings (paper 5.4, Fig. 37)",
    (
        _t_end(10.0),
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


# --- step ranges (paper Fig. 30) ---------------------------------------------------------------
RANGES = ((2.5e-4, 5e-4), (5e-4, 1e-3), (2.5e-4, 1e-3), (1e-3, 2e-3), (5e-4, 2e-3), (2e-3, 4e-3))


def _range_label(lo: float, hi: float) -> str:
    return f"h=[{lo:g},{hi:g}]"


def _sr_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    return [
        RunSpec(_range_label(lo, hi), p["case"], {}, t_end=p["t_end"], h_min=lo, h_max=hi)
        for lo, hi in RANGES
    ]


def _sr_analyse(p, specs, results, out: Path) -> list[dict[str, Any]]:
    ok = _ok(results, specs)
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
                "h_min (s)": s.h_min,
                "h_max (s)": s.h_max,
                "steps": r.n_steps if r else "",
                "mean h (s)": float(np.mean(r.h)) if r else "",
                "energy lost (J)": -_energy_change(r) if r else "",
                "max penetration / c": _pen(r) if r else "",
            }
        )
    return rows


STEP_RANGES = Study(
    "step-ranges",
    "total energy of a clearance case for several [h_min, h_max] ranges (paper Fig. 30)",
    (
        _t_end(5.0),
        Parameter("case", "revolute", "case to run", str, choices=("revolute", "pendulum")),
    ),
    _sr_specs,
    _sr_analyse,
)


# --- clearance sweep ---------------------------------------------------------------------------
def _cs_clearances(p: Mapping[str, Any]) -> list[float]:
    return _floats(p["clearances"], "clearances")


def _cs_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    common = {"t_end": p["t_end"], "h_min": p["h"], "h_max": p["h"]}
    specs = [RunSpec("ideal", p["case"], {"joint": "ideal"}, **common)]
    specs += [
        RunSpec(f"c={c:g}", p["case"], {"joint": "clearance", "clearance": c}, **common)
        for c in _cs_clearances(p)
    ]
    return specs


def _cs_analyse(p, specs, results, out: Path) -> list[dict[str, Any]]:
    ideal = results.get("ideal")
    ok = _ok(results, specs)
    style = {s.label: {"color": COLORS[i % len(COLORS)]} for i, s in enumerate(specs)}
    dev = {s.label: _deviation(r, ideal) for s, r in ok} if ideal is not None else {}
    loose = [(s, r) for s, r in ok if s.label != "ideal"]
    save_panels(
        out / "deviation.png",
        f"{p['case']}: clearance sweep",
        [
            Panel(
                "|r - r_ideal| (m)",
                [
                    Curve(s.label, r.t, dev[s.label], style[s.label])
                    for s, r in loose
                    if s.label in dev
                ],
                log=True,
            ),
            Panel(
                "|joint force| (N)",
                [
                    Curve(s.label, r.t, np.linalg.norm(r.force_of("pin"), axis=1), style[s.label])
                    for s, r in ok
                ],
            ),
        ],
    )
    if dev and loose:
        cs = [s.params["clearance"] for s, _ in loose]
        save_panels(
            out / "deviation_vs_clearance.png",
            f"{p['case']}: convergence to ideal",
            [
                Panel(
                    "max |r - r_ideal| (m)",
                    [
                        Curve(
                            "max deviation",
                            np.array(cs),
                            np.array([dev[s.label].max() for s, _ in loose]),
                            {"marker": "o"},
                        )
                    ],
                    log=True,
                    xlabel="clearance c (m)",
                    logx=True,
                )
            ],
        )
    rows = []
    for s in specs:
        r = results.get(s.label)
        rows.append(
            {
                "run": s.label,
                "clearance (m)": s.params.get("clearance", 0.0) if s.label != "ideal" else 0.0,
                "peak joint force (N)": float(np.linalg.norm(r.force_of("pin"), axis=1).max())
                if r
                else "",
                "max deviation from ideal (m)": float(dev[s.label].max()) if s.label in dev else "",
                "energy loss (J)": -_energy_change(r) if r else "",
                "impacts": _impacts(r) if r else "",
                "max penetration / c": _pen(r) if r else "",
            }
        )
    return rows


CLEARANCE_SWEEP = Study(
    "clearance-sweep",
    "one case over a list of clearances against its ideal counterpart",
    (
        _t_end(2.0),
        Parameter(
            "case",
            "pendulum",
            "case to run (it must have joint and clearance)",
            str,
            choices=("pendulum", "revolute"),
        ),
        Parameter("clearances", "1e-2,1e-3,1e-4,1e-5", "comma-separated clearances", str, unit="m"),
        Parameter("h", 1e-3, "fixed step size", float, low=0.0, low_open=True, unit="s"),
    ),
    _cs_specs,
    _cs_analyse,
)


# --- step strategies ---------------------------------------------------------------------------
def _ss_specs(p: Mapping[str, Any]) -> list[RunSpec]:
    case, params = p["case"], {"joint": p["joint"], "clearance": p["clearance"]}
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


def _ss_analyse(p, specs, results, out: Path) -> list[dict[str, Any]]:
    ref = results.get("reference")
    ok = _ok(results, specs)
    style = {s.label: {"color": COLORS[i]} for i, s in enumerate(specs)}
    err = {s.label: _deviation(r, ref) for s, r in ok if ref is not None and s.label != "reference"}
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
                "max penetration / c": _pen(r) if r else "",
                "energy drift (J)": _energy_change(r) if r else "",
                "error vs reference (m)": float(err[s.label].max()) if s.label in err else "",
            }
        )
    return rows


STEP_STRATEGIES = Study(
    "step-strategies",
    "the paper's NLP-chosen h, a fixed h and nlpmbd's step-size controller, against a fine step",
    (
        _t_end(2.0),
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

STUDIES: dict[str, Study] = {
    s.name: s for s in (IDEAL_VS_CLEARANCE, STEP_RANGES, CLEARANCE_SWEEP, STEP_STRATEGIES)
}


def get_study(name: str) -> Study:
    if name not in STUDIES:
        raise InputError(f"unknown study {name!r}; known studies: {', '.join(STUDIES)}")
    return STUDIES[name]
