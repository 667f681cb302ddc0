"""`python -m benchmarks.spatial_lag [--quick] [--members N] [--steps H,...] [--variants]
[--cut-tol X] [--cascade] [--no-default] [--json FILE]`: is the crank-angle lag at 1 s of
`spatial_slider_crank --set clearance_at=all` (c = 0.1 mm at every joint, against the ideal
mechanism) a convergent quantity? (issue 28, the
flagship acceptance: the default run within 5% of a run at 10x smaller steps.)

Each cell is a run of the case as given and an ensemble of N runs from tiny perturbations of
it: every initial velocity scaled by 1 + delta, delta evenly spaced in [-1e-6, 1e-6] (the
ideal crank then turns about 1e-5 rad more or less in 1 s, nothing next to the lag; the ideal
mechanism is run unperturbed). If the single runs wander with h while the ensemble means agree
within their standard errors, the lag is sensitive to its initial state, not biased by h.
Columns: the single run's lag, the ensemble's mean, standard deviation, standard error of the
mean and range (rad); the mean energy lost (mJ) before, in and between the two impact cascades
(the slider lifts in its guide and the crank's pin strikes its hole and axial stop, at about
0.25 and 0.9 s); the mean number of contact closings (a joint with no active contact gaining
one), which grows as h resolves each cascade's impacts one by one.

Tables: fixed h (the default options otherwise: verlet, vector, curvature); the default run
(error controller in the case's range [1e-4, 1e-3] s) and the same at 10x smaller steps;
--variants: the other scheme, linearisation and correction at fixed h. Runs are compiled
(codegen=on: set $NLPMBD_CACHE to keep the libraries apart). --quick: 6 members, h down to
1e-5 s. --cut-tol sets step/cuts.py's CUT_TOL (the fraction of c by which a pin's or ball's
offset may end a step outside its disc): the next step's gap rows push that residual out
through the velocity, at up to CUT_TOL c / h, which grows as h shrinks (1e-3 c: 0.01 m/s at
h = 1e-5 s, 0.1 m/s at 1e-6 s) and is what makes the single runs wander below h = 1e-4 s
(benchmarks/results/spatial_lag.md). --cascade: only the first cascade, every h restarted from
one state (the h = 1e-5 s run's at 0.24 s), its energy lost over 0.08 s.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from nlpmbd import SimulationOptions, SimulationResult, System, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.step import cuts

from .defaults_table import crank_angle_at

DELTA = 1e-6
T_END = 1.0
#: phases of the run (s): before the first cascade, in it, between, in the second, after
PHASES = ((0.0, 0.24), (0.24, 0.32), (0.32, 0.88), (0.88, 0.96), (0.96, T_END))
STEPS = (1e-3, 1e-4, 1e-5, 3e-6)
#: the cascade restart (s): from the state at CASCADE[0], over CASCADE[1]
CASCADE = (0.24, 0.08)
DEFAULT_RANGE = (1e-4, 1e-3)
VARIANTS = (
    {"integrator": "euler"},
    {"gap_linearization": "scalar"},
    {"gap_correction": "curvature+projection"},
)


def perturbed(delta: float, clearance_at: str = "all") -> System:
    """The case with every initial velocity scaled by 1 + delta (consistent with every joint:
    the velocity constraints are linear). The joints hold the bodies, so the scaled velocities
    are set on the same (frozen) objects."""
    system = get_case("spatial_slider_crank").build({"clearance_at": clearance_at})[0]
    for body in system.bodies:
        for name in ("velocity", "angular_velocity"):
            object.__setattr__(body, name, (1.0 + delta) * getattr(body, name))
    return system


def _run(system: System, options: dict, t_end: float = T_END) -> tuple[SimulationResult, float]:
    tic = time.process_time()
    res = simulate(system, SimulationOptions(t_end=t_end, codegen="on", **options), force=True)
    return res, time.process_time() - tic


def restarted(q: np.ndarray, v: np.ndarray, delta: float) -> System:
    """The case (clearance_at=all) started from the state (q, v) of one of its runs, the
    velocities scaled by 1 + delta."""
    system = get_case("spatial_slider_crank").build({"clearance_at": "all"})[0]
    for i, body in enumerate(system.bodies):
        p = q[7 * i + 3 : 7 * i + 7]
        values = {
            "position": q[7 * i : 7 * i + 3],
            "orientation": p / np.linalg.norm(p),
            "velocity": (1.0 + delta) * v[6 * i : 6 * i + 3],
            "angular_velocity": (1.0 + delta) * v[6 * i + 3 : 6 * i + 6],
        }
        for name, value in values.items():
            object.__setattr__(body, name, value)
    return system


def cascade(steps: list[float], members: int) -> list[str]:
    """The energy lost (mJ) over CASCADE[1] s from one state, the h = 1e-5 s run's at
    CASCADE[0] (just before the first cascade), at each fixed h: the same ensemble as the lag's
    about that state. Table rows."""
    res, _ = _run(perturbed(0.0), fixed(1e-5), CASCADE[0] + 1e-4)
    i = int(np.searchsorted(res.t, CASCADE[0]))
    q, v = res.q[i], res.v[i]
    out = []
    for h in steps:
        losses, cpu = [], 0.0
        for delta in [0.0, *np.linspace(-DELTA, DELTA, members)]:
            run, spent = _run(restarted(q, v, delta), fixed(h), CASCADE[1])
            losses.append(1e3 * float(run.energy[0, 2] - run.energy[-1, 2]))
            cpu += spent
        e = losses[1:]
        out.append(
            f"| {h:g} | {losses[0]:.2f} | {statistics.fmean(e):.2f} | {statistics.stdev(e):.2f} "
            f"| {min(e):.2f} | {max(e):.2f} | {cpu:.0f} |"
        )
        _progress(out[-1])
    return out


@functools.cache
def ideal_angle(items: tuple) -> float:
    """The ideal mechanism's crank angle at T_END under the options `items` (sorted pairs;
    the clearance-only options dropped)."""
    opts = {k: v for k, v in items if k not in ("gap_correction", "gap_linearization")}
    return crank_angle_at(_run(perturbed(0.0, "none"), opts)[0], T_END)


def closings(res: SimulationResult) -> int:
    """How often a joint with no active contact gains one (its contacts by label prefix)."""
    labels = [s.split(".")[0] for s in res.meta["contact_labels"]]
    count = 0
    for joint in sorted(set(labels)):
        cols = [i for i, s in enumerate(labels) if s == joint]
        active = (res.lam[:, cols] > 0).any(axis=1).astype(int)
        count += int(np.count_nonzero(np.diff(active) > 0))
    return count


def measure(options: dict, delta: float) -> dict:
    res, cpu = _run(perturbed(delta), options)
    e = res.energy[:, 2]
    losses = [float(np.interp(a, res.t, e) - np.interp(b, res.t, e)) for a, b in PHASES]
    return {
        "delta": delta,
        "lag": crank_angle_at(res, T_END) - ideal_angle(tuple(sorted(options.items()))),
        "loss": losses,
        "rise": float(e.max() - e[0]),
        "closings": closings(res),
        "steps": res.n_steps,
        "cpu": cpu,
    }


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def ensemble(options: dict, members: int, log: Callable[[str], None] = _progress) -> dict:
    """The single run and `members` perturbed ones under `options`."""
    single = measure(options, 0.0)
    runs = [measure(options, d) for d in np.linspace(-DELTA, DELTA, members)]
    lags = [r["lag"] for r in runs]
    out = {
        "options": options,
        "single": single["lag"],
        "mean": statistics.fmean(lags),
        "sd": statistics.stdev(lags),
        "min": min(lags),
        "max": max(lags),
        "loss": np.mean([r["loss"] for r in runs], axis=0).tolist(),
        "rise": max(r["rise"] for r in [single, *runs]),
        "closings": statistics.fmean(r["closings"] for r in runs),
        "steps": single["steps"],
        "cpu": sum(r["cpu"] for r in [single, *runs]),
        "runs": runs,
    }
    out["se"] = out["sd"] / np.sqrt(members)
    log(f"  {options}: single {out['single']:.4f}, mean {out['mean']:.4f} sd {out['sd']:.4f}")
    return out


HEAD = (
    "| {what} | single | mean | sd | s.e. | min | max | energy lost (mJ): "
    + " / ".join(f"{a:g}-{b:g}" for a, b in PHASES)
    + " | closings | max E - E0 (J) | steps | CPU s |"
)


def table(what: str, rows: list[tuple[str, dict]]) -> list[str]:
    out = [HEAD.format(what=what), "|---" * 12 + "|"]
    for label, r in rows:
        stats = " | ".join(f"{r[k]:.3f}" for k in ("single", "mean", "sd", "se", "min", "max"))
        loss = " / ".join(f"{1e3 * x:.2f}" for x in r["loss"])
        out.append(
            f"| {label} | {stats} | {loss} | {r['closings']:.0f} | {r['rise']:.1e} "
            f"| {r['steps']} | {r['cpu']:.0f} |"
        )
    return out


def fixed(h: float, **extra: str) -> dict:
    return {"h_min": h, "h_max": h, **extra}


def controller(scale: float) -> dict:
    return {"h_min": DEFAULT_RANGE[0] * scale, "h_max": DEFAULT_RANGE[1] * scale}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.spatial_lag")
    ap.add_argument("--quick", action="store_true", help="6 members, h down to 1e-5 s")
    ap.add_argument("--members", type=int, default=None, help="ensemble size (default 16)")
    ap.add_argument("--steps", default=None, help="fixed steps, comma separated (s)")
    ap.add_argument("--variants", action="store_true", help="other scheme/linearisation/correction")
    ap.add_argument(
        "--cut-tol", type=float, default=None, help="step/cuts.py's CUT_TOL for these runs"
    )
    ap.add_argument("--cascade", action="store_true", help="only the first cascade, restarted")
    ap.add_argument("--no-default", action="store_true", help="skip the default run's table")
    ap.add_argument("--json", default=None, help="write every run's numbers to this file")
    args = ap.parse_args(argv)
    members = args.members or (6 if args.quick else 16)
    if args.cut_tol is not None:
        cuts.CUT_TOL = args.cut_tol  # read when each run's graph is built
    steps = (
        [float(s) for s in args.steps.split(",")] if args.steps else STEPS[: 3 if args.quick else 4]
    )
    if args.cascade:
        head = "| h (s) | single | mean | sd | min | max | CPU s |"
        print(f"# Energy lost (mJ) in the first cascade, CUT_TOL {cuts.CUT_TOL:g}, {members} "
              "members\n\n" + head + "\n" + "|---" * 7 + "|")  # fmt: skip
        print("\n".join(cascade(steps, members)))
        return 0
    fixed_rows = [(f"h = {h:g}", ensemble(fixed(h), members)) for h in steps]
    default_rows = (
        []
        if args.no_default
        else [
            (f"controller [{lo:g}, {hi:g}]", ensemble(controller(s), members))
            for s in (1.0, 0.1)
            for lo, hi in [(DEFAULT_RANGE[0] * s, DEFAULT_RANGE[1] * s)]
        ]
    )
    title = (
        f"# Spatial slider-crank lag at 1 s (clearance_at=all), {members} members, "
        f"CUT_TOL {cuts.CUT_TOL:g}"
    )
    lines = [title, "", "## Fixed h (default scheme options)", ""]
    lines += table("h (s)", fixed_rows)
    if default_rows:
        lines += ["", "## The default run and at 10x smaller steps", ""]
        lines += table("step control", default_rows)
    variant_rows = []
    if args.variants:
        for extra in VARIANTS:
            for h in steps[1:3]:
                label = ", ".join(f"{k}={v}" for k, v in extra.items()) + f", h = {h:g}"
                variant_rows.append((label, ensemble(fixed(h, **extra), members)))
        lines += ["", "## Variants at fixed h", ""] + table("options", variant_rows)
    print("\n".join(lines))
    if args.json:
        rows = fixed_rows + default_rows + variant_rows
        with open(args.json, "w") as f:
            json.dump([{"label": k, **v} for k, v in rows], f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
