"""`python -m benchmarks.defaults_table [--quick] [--json FILE]`: the table the default run
options are chosen from (issue "The default run is the best run", item 3).

Every candidate option set runs every problem of benchmarks/defaults_problems.py (errors
against independent references; the metric and unit of each are in its heading) on the QP path
(solver=auto), compiled (codegen=on: set $NLPMBD_CACHE to keep the libraries apart). Candidates:
integrator {euler, verlet} x gap_linearization {scalar, vector} x gap_correction
{curvature+projection, projection, curvature} x step control {fixed h; the error controller in
the problem's h range at the default error_tol 1e-6; the controller with h_min = h_max / 200 at
error_tol 1e-6 and 1e-7}. A problem without pin or ball gaps runs one linearisation, one without
hard contacts one correction (the others are the same run). CPU: process seconds of
simulate() (the C compiler runs in child processes: its total is printed apart); a run is
stopped after CAP s of it and reported so.

The flagship (with no option flags, within 5% of a run at a 10x smaller step): `pendulum --set
joint=clearance` (c = 0.1 mm) against joint=ideal, 10 s, the largest distance of the centres of
mass; `spatial_slider_crank --set clearance_at=all` against the ideal mechanism, the crank-angle
lag at 1 s; each candidate at its steps and at steps 10x smaller (fixed h / 10, or both ends of
the controller's range / 10). Last, qp_solver daqp against qrqp on two frictionless problems.
--quick: six problems, fewer candidates, the pendulum flagship only (a few minutes).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import itertools
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from nlpmbd import SimulationOptions, SimulationResult, SolverFailure, simulate
from nlpmbd.apps.registry import get_case

from .defaults_problems import Problem, problems
from .defaults_report import flagship_passes, report, scores

CONTROLS = {
    "fixed": "fixed h",
    "ctrl": "controller, the problem's range, tol 1e-6",
    "lo6": "controller, h_min = h_max/200, tol 1e-6",
    "lo7": "controller, h_min = h_max/200, tol 1e-7",
}
CORRECTIONS = ("curvature+projection", "projection", "curvature")


@dataclass(frozen=True)
class Candidate:
    integrator: str
    linearization: str
    correction: str
    control: str

    def options(self, h: float, h_range: tuple[float, float], scale: float = 1.0) -> dict:
        """The candidate's options at a problem's fixed `h` and controller range, the steps
        times `scale`."""
        out = {
            "integrator": self.integrator,
            "gap_linearization": self.linearization,
            "gap_correction": self.correction,
        }
        if self.control == "fixed":
            return {**out, "h_min": h * scale, "h_max": h * scale}
        low, high = h_range if self.control == "ctrl" else (h_range[1] / 200, h_range[1])
        tol = 1e-7 if self.control == "lo7" else 1e-6
        return {
            **out,
            "step_control": "controller",
            "error_tol": tol,
            "h_min": low * scale,
            "h_max": high * scale,
        }

    def for_problem(self, p: Problem) -> Candidate | None:
        """The run that stands for this candidate on `p` (None: not applicable)."""
        if self.integrator not in p.schemes:
            return None
        return Candidate(
            self.integrator,
            self.linearization if p.radial else "scalar",
            self.correction if p.gaps else "curvature+projection",
            self.control,
        )

    def runs_on(self, p: Problem) -> bool:
        return self.integrator in p.schemes and self.correction in p.corrections

    @property
    def label(self) -> str:
        return f"{self.integrator} {self.linearization} {self.correction} {self.control}"


#: today's defaults, and the set benchmarks/results/defaults_table.md recommends
DEFAULT = Candidate("euler", "scalar", "curvature+projection", "fixed")
RECOMMENDED = Candidate("verlet", "vector", "curvature", "ctrl")


def candidates(quick: bool) -> list[Candidate]:
    controls = ("fixed", "lo6") if quick else tuple(CONTROLS)
    corrections = CORRECTIONS[:2] if quick else CORRECTIONS
    return [
        Candidate(*c)
        for c in itertools.product(("euler", "verlet"), ("scalar", "vector"), corrections, controls)
    ]


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Discard what C code writes to file descriptors 1 and 2 (CasADi dumps a Function's inputs
    when a chunk's evaluation fails and is handed back, which the run then recovers from)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
        yield
    finally:
        ctypes.CDLL(None).fflush(None)
        for fd, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)


#: process CPU s after which a run is stopped (--quick: half of it)
CAP = [10.0]


def timed(system, t_end: float, **opts) -> tuple[SimulationResult | None, float, str]:
    """(result or None, process CPU s of simulate(), what went wrong or "")."""
    options = SimulationOptions(**{"t_end": t_end, "codegen": "on", **opts})
    with quiet():
        tic = time.process_time()
        try:
            res = simulate(
                system, options, force=True, stop=lambda: time.process_time() - tic > CAP[0]
            )
        except SolverFailure as err:
            cpu = time.process_time() - tic
            if cpu > CAP[0] and err.partial is not None:
                return None, cpu, f"stopped at the {CAP[0]:g} s cap, t = {err.partial.t[-1]:.3g}"
            return None, cpu, str(err)[:120]
        cpu = time.process_time() - tic
    if not res.meta["completed"]:
        return None, cpu, str(res.meta.get("message"))[:120]
    return res, cpu, ""


def run_problem(p: Problem, cand: Candidate) -> dict:
    res, cpu, why = timed(p.build(), p.t_end, **cand.options(p.h, p.h_range), **dict(p.options))
    row = {"problem": p.name, **asdict(cand), "cpu": cpu, "failed": why}
    if res is not None:
        row.update(
            error=p.error(res),
            steps=res.n_steps,
            ipopt_steps=int(res.meta.get("qp_fallback_steps", 0)),
            error_estimate=float(res.meta.get("error_estimate", np.nan)),
        )
    print(f"  {p.name:<13} {cand.label:<45} {row.get('error', np.nan):.3e} {cpu:6.2f} s {why}")
    return row


# ---- the flagship ------------------------------------------------------------------------
PEND_H, PEND_RANGE = 1e-3, (1e-3, 2e-3)
SPATIAL_H, SPATIAL_RANGE = 1e-3, (1e-4, 1e-3)


@functools.cache
def _flagship_run(case: str, params: tuple, t_end: float, key: tuple) -> tuple:
    """timed() of `case` with `params` under the options `key` (sorted items)."""
    system = get_case(case).build(dict(params))[0]
    return timed(system, t_end, **dict(key))


def _key(cand: Candidate, h: float, h_range: tuple[float, float], scale: float) -> tuple:
    return tuple(sorted(cand.options(h, h_range, scale).items()))


def pendulum_lag(cand: Candidate, scale: float, extra: tuple = ()) -> tuple[float, float, str]:
    """(max distance (m) between the clearance and the ideal pendulum's centres of mass over
    10 s, CPU s of the clearance run, what went wrong)."""
    key = _key(cand, PEND_H, PEND_RANGE, scale) + extra
    ideal_key = _key(Candidate(cand.integrator, "scalar", "curvature+projection", cand.control),
                     PEND_H, PEND_RANGE, scale) + extra  # fmt: skip
    loose, cpu, why = _flagship_run("pendulum", (("joint", "clearance"),), 10.0, key)
    ideal, _, why_ideal = _flagship_run("pendulum", (("joint", "ideal"),), 10.0, ideal_key)
    if loose is None or ideal is None:
        return np.nan, cpu, why or f"ideal: {why_ideal}"
    r = np.column_stack([np.interp(loose.t, ideal.t, ideal.q[:, i]) for i in range(3)])
    return float(np.linalg.norm(loose.q[:, :3] - r, axis=1).max()), cpu, ""


def crank_angle_at(res: SimulationResult, t: float) -> float:
    """The crank's rotation about X (body 0; rad, unwrapped) at time t."""
    e0, e1, e2, e3 = res.q[:, 3:7].T
    theta = np.unwrap(np.arctan2(2 * (e2 * e3 + e0 * e1), e0**2 - e1**2 + e2**2 - e3**2))
    return float(np.interp(t, res.t, theta))


def spatial_lag(cand: Candidate, scale: float, extra: tuple = ()) -> tuple[float, float, str]:
    """(crank angle (rad) of clearance_at=all minus the ideal mechanism's at 1 s, CPU s of the
    clearance run, what went wrong)."""
    key = _key(cand, SPATIAL_H, SPATIAL_RANGE, scale) + extra
    ideal_key = _key(Candidate(cand.integrator, "scalar", "curvature+projection", cand.control),
                     SPATIAL_H, SPATIAL_RANGE, scale) + extra  # fmt: skip
    loose, cpu, why = _flagship_run("spatial_slider_crank", (("clearance_at", "all"),), 1.0, key)
    ideal, _, why_ideal = _flagship_run(
        "spatial_slider_crank", (("clearance_at", "none"),), 1.0, ideal_key
    )
    if loose is None or ideal is None:
        return np.nan, cpu, why or f"ideal: {why_ideal}"
    return crank_angle_at(loose, 1.0) - crank_angle_at(ideal, 1.0), cpu, ""


def flagship(cands: list[Candidate], spatial: bool) -> list[dict]:
    rows = []
    for cand in cands:
        row = {**asdict(cand), "pendulum": [pendulum_lag(cand, s) for s in (1.0, 0.1)]}
        if spatial:
            row["spatial"] = [spatial_lag(cand, s) for s in (1.0, 0.1)]
        print(f"  flagship {cand.label:<45} {row['pendulum']} {row.get('spatial', '')}")
        rows.append(row)
    return rows


def qp_solvers(cands: list[Candidate], spatial: bool) -> list[dict]:
    """CPU s (best of 3) of qp_solver daqp and qrqp: the pendulum flagship (10 s) and the
    spatial slider-crank with play at every joint (1 s), both frictionless."""
    rows = []
    for cand, solver in itertools.product(cands, ("daqp", "qrqp")):
        extra = (("qp_solver", solver),)
        row = {**asdict(cand), "qp_solver": solver}
        todo = [("pendulum", (("joint", "clearance"),), 10.0, PEND_H, PEND_RANGE)]
        if spatial:
            todo.append(("spatial_slider_crank", (("clearance_at", "all"),), 1.0, SPATIAL_H,
                         SPATIAL_RANGE))  # fmt: skip
        for case, params, t_end, h, h_range in todo:
            key = _key(cand, h, h_range, 1.0) + extra
            _flagship_run(case, params, t_end, key)  # compiled and cached first
            cpus = []
            for _ in range(3):
                system = get_case(case).build(dict(params))[0]
                res, cpu, why = timed(system, t_end, **dict(key))
                cpus.append(cpu if res is not None else np.nan)
            row[case] = {"cpu": min(cpus), "steps": res.n_steps if res is not None else 0}
        row["pendulum_lag"] = pendulum_lag(cand, 1.0, extra)[0]
        print(f"  qp_solver {solver} {cand.label}: {row}")
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.defaults_table")
    p.add_argument("--quick", action="store_true", help="a subset, a few minutes")
    p.add_argument("--json", type=Path, help="write every run's numbers to this file")
    args = p.parse_args(argv)
    children = os.times().children_user + os.times().children_system
    tic = time.process_time()
    probs = problems(flexible_t_end=20.0)
    if args.quick:
        CAP[0] = 5.0
        keep = ("pendulum", "pendulum_c0", "cylinder_c0", "four_bar_c0", "slope", "bounce")
        probs = [q for q in probs if q.name in keep]
    cands = candidates(args.quick)
    rows = []
    for prob in probs:
        done: dict[Candidate, dict] = {}
        for cand in cands:
            stand = cand.for_problem(prob)
            if stand is not None and stand.runs_on(prob) and stand not in done:
                done[stand] = run_problem(prob, stand)
            rows.append({**asdict(cand), "problem": prob.name, "run": done.get(stand)})
    flag = flagship(cands, spatial=not args.quick)
    ok = flagship_passes(flag)
    ranked = [label for _, label, *_ in scores(probs, rows)]
    best = Candidate(*next((x for x in ranked if x in ok), ranked[0]).split())
    solvers = qp_solvers(list(dict.fromkeys([DEFAULT, best, RECOMMENDED])), not args.quick)
    compile_cpu = os.times().children_user + os.times().children_system - children
    total = {"process_cpu": time.process_time() - tic, "compiler_cpu": compile_cpu}
    print(report(probs, cands, rows, flag, solvers, total))
    if args.json:
        out = {"rows": rows, "flagship": flag, "qp_solvers": solvers, "total": total}
        args.json.write_text(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
