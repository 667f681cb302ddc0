"""The markdown of `python -m benchmarks.defaults_table`: one table per problem, the flagship's
convergence, a ranking of the candidates and the QP solvers' cost."""

from __future__ import annotations

import math
import platform
from typing import Any

import numpy as np

from .defaults_problems import Problem

CONTROL_NAMES = {
    "fixed": "fixed h",
    "ctrl": "controller, range",
    "lo6": "controller, h_max/200, 1e-6",
    "lo7": "controller, h_max/200, 1e-7",
}
#: the flagship's acceptance: within 5% of the run at a 10x smaller step
FLAGSHIP_TOL = 0.05


def _cell(run: dict | None) -> str:
    if run is None:
        return "n/a"
    if run["failed"]:
        return f"failed ({run['failed'][:40]}) / {run['cpu']:.2f}"
    extra = f" ({run['ipopt_steps']} IPOPT)" if run.get("ipopt_steps") else ""
    return f"{run['error']:.2e} / {run['cpu']:.2f}{extra}"


def _steps(p: Problem, control: str) -> str:
    if control == "fixed":
        return f"h = {p.h:g}"
    low, high = p.h_range if control == "ctrl" else (p.h_range[1] / 200, p.h_range[1])
    return f"[{low:g}, {high:g}]"


def problem_tables(probs: list[Problem], rows: list[dict], controls: list[str]) -> list[str]:
    out = []
    for p in probs:
        mine = [r for r in rows if r["problem"] == p.name and r["run"] is not None]
        runs = {(r["run"]["integrator"], r["run"]["linearization"], r["run"]["correction"],
                 r["run"]["control"]): r["run"] for r in mine}  # fmt: skip
        schemes = list(dict.fromkeys(k[:3] for k in runs))
        out += [f"### {p.name}: {p.metric}", ""]
        if p.floor:
            out += [f"Reference uncertainty / model floor: {p.floor:g}.", ""]
        head = " | ".join(f"{CONTROL_NAMES[c]} {_steps(p, c)}" for c in controls)
        out += [f"| scheme | linearisation | correction | {head} |"]
        out += ["|---|---|---|" + "---|" * len(controls)]
        for s in schemes:
            lin = s[1] if p.radial else "(none)"
            corr = s[2] if p.gaps else "(none)"
            cells = " | ".join(_cell(runs.get((*s, c))) for c in controls)
            out.append(f"| {s[0]} | {lin} | {corr} | {cells} |")
        out.append("")
    return out


def _score(err: float, best: float, floor: float) -> float:
    if not math.isfinite(err):
        return math.inf
    return max(err, floor, 1e-300) / max(best, floor, 1e-300)


def _label(r: dict) -> str:
    return " ".join(r[k] for k in ("integrator", "linearization", "correction", "control"))


def scores(probs: list[Problem], rows: list[dict]) -> list[tuple]:
    """(geometric mean of error / best error over the problems, label, {problem: ratio},
    worst problem, total CPU s) per candidate, best first; an error below a problem's floor
    counts as the floor, a failed run as 1e12."""
    probs = [p for p in probs if p.scored]
    best = {}
    for p in probs:
        errs = [r["run"].get("error", np.inf) for r in rows if r["problem"] == p.name and r["run"]]
        best[p.name] = min(errs, default=np.inf)
    table: dict[str, dict[str, Any]] = {}
    for r in rows:
        p = next((q for q in probs if q.name == r["problem"]), None)
        if r["run"] is None or p is None:
            continue
        entry = table.setdefault(_label(r), {"scores": {}, "cpu": 0.0})
        entry["scores"][p.name] = _score(r["run"].get("error", np.inf), best[p.name], p.floor)
        entry["cpu"] += r["run"]["cpu"]
    out = []
    for label, e in table.items():
        s = e["scores"]
        geo = math.exp(np.mean([math.log(min(v, 1e12)) for v in s.values()]))
        out.append((geo, label, s, max(s, key=s.get), e["cpu"]))
    return sorted(out)


def ranking(probs: list[Problem], rows: list[dict], flag: list[dict]) -> list[str]:
    """Per candidate: the geometric mean and the worst of error / best error over the scored
    problems, total CPU (of those), flagship pass."""
    passes = {_label(f): _flagship_pass(f) for f in flag}
    names = [p.name for p in probs if p.scored]
    out = ["| candidate | geo-mean error / best | worst (problem) | "
           + " | ".join(names) + " | CPU s | flagship within 5% |"]  # fmt: skip
    out.append("|---|---|---|" + "---|" * len(names) + "---|---|")
    for geo, label, s, worst, cpu in scores(probs, rows):
        cells = " | ".join(f"{s[n]:.3g}" if n in s else "n/a" for n in names)
        out.append(f"| {label} | {geo:.3g} | {s[worst]:.3g} ({worst}) | {cells} | {cpu:.1f} | "
                   f"{passes.get(label, '')} |")  # fmt: skip
    return out


def _dev(pair: list) -> float:
    (a, *_), (b, *_) = pair
    return abs(a / b - 1) if b and math.isfinite(a / b) else math.inf


def flagship_passes(flag: list[dict]) -> set[str]:
    return {_label(f) for f in flag if _flagship_pass(f) == "yes"}


def _flagship_pass(f: dict) -> str:
    ok = [_dev(f[k]) <= FLAGSHIP_TOL for k in ("pendulum", "spatial") if k in f]
    return "yes" if all(ok) else "no"


def flagship_table(flag: list[dict]) -> list[str]:
    out = [
        "| candidate | pendulum lag (mm) at h / h/10 | dev. | CPU s | spatial lag (mrad) at "
        "h / h/10 | dev. | CPU s | within 5% |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in flag:
        label = _label(f)
        cells = []
        for key, unit in (("pendulum", 1e3), ("spatial", 1e3)):
            if key not in f:
                cells += ["", "", ""]
                continue
            (a, cpu, why_a), (b, _, why_b) = f[key]
            lags = " / ".join(
                f"{x * unit:.3f}" if not why else why[:50] for x, why in ((a, why_a), (b, why_b))
            )
            cells += [lags, f"{_dev(f[key]):.1%}", f"{cpu:.2f}"]
        out.append(f"| {label} | " + " | ".join(cells) + f" | {_flagship_pass(f)} |")
    return out


def solver_table(solvers: list[dict]) -> list[str]:
    out = ["| candidate | qp_solver | pendulum flagship 10 s: CPU s (steps) | lag (mm) | "
           "spatial_slider_crank all 1 s: CPU s (steps) |", "|---|---|---|---|---|"]  # fmt: skip
    for r in solvers:
        label = _label(r)
        pend = r["pendulum"]
        spatial = r.get("spatial_slider_crank")
        sp = f"{spatial['cpu']:.2f} ({spatial['steps']})" if spatial else ""
        out.append(f"| {label} | {r['qp_solver']} | {pend['cpu']:.2f} ({pend['steps']}) | "
                   f"{r['pendulum_lag'] * 1e3:.3f} | {sp} |")  # fmt: skip
    return out


def report(probs, cands, rows, flag, solvers, total) -> str:
    controls = list(dict.fromkeys(c.control for c in cands))
    head = [
        "# Defaults table (`python -m benchmarks.defaults_table`)",
        "",
        f"{platform.python_version()} on {platform.machine()}, {total['process_cpu']:.0f} s of "
        f"process CPU in all, {total['compiler_cpu']:.0f} s more in the C compiler.",
        "Cells: error (the problem's metric) / process CPU s of simulate(); QP path, compiled",
        "(slope_nlp: the NLP path). A run is stopped after 10 s of CPU (--quick: 5 s).",
        "",
        "## Errors against the independent references",
        "",
    ]
    lines = head + problem_tables(probs, rows, controls)
    lines += ["## Ranking (error / best candidate's, per problem)", ""]
    skipped = ", ".join(p.name for p in probs if not p.scored)
    lines += [f"Not scored: {skipped} (a known defect, or not every candidate runs them).", ""]
    lines += ranking(probs, rows, flag) + [""]
    lines += ["## Flagship: lag at the candidate's steps and at 10x smaller ones", ""]
    lines += flagship_table(flag) + [""]
    lines += ["## QP solvers (frictionless; CPU s best of 3)", ""]
    lines += solver_table(solvers) + [""]
    return "\n".join(lines)
