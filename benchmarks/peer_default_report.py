"""The report of benchmarks/peer_defaults.py: machine, versions, what the defaults were, and one
Markdown table per problem with the issue's two targets."""

from __future__ import annotations

import argparse
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The issue's targets: the default run against the peer, (problem, ratio key, bound).
TARGETS = {
    "slider_crank": ("x_per_sim_s", 1.5, "(a) default slider_crank per simulated second"),
    "pendulum": ("x_per_step", 5.0, "(b) default pendulum per step"),
}


def _out(cmd: list[str]) -> str | None:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def lscpu() -> dict[str, str]:
    fields = {}
    for line in (_out(["lscpu"]) or "").splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return {"model": fields.get("Model name", "?"), "cpus": fields.get("CPU(s)", "?")}


def nlpmbd_commit() -> str:
    head = _out(["git", "rev-parse", "--short", "HEAD"]) or "?"
    dirty = _out(["git", "status", "--porcelain", "--", "nlpmbd", "nlpmbd_cases", "nlpmbd_joints"])
    return head + (" (engine modified)" if dirty else "")


def versions(table: list[dict]) -> list[str]:
    firsts = {r.get("side"): r["first"] for r in table if "first" in r}
    nlp = firsts.get("nlpmbd", {}).get("versions", {})
    deb = _out(["dpkg-query", "-W", "-f=${Version}", "python3-siconos"])
    out = [
        f"nlpmbd {nlp.get('nlpmbd', '?')} at commit {nlpmbd_commit()}, "
        f"CasADi {nlp.get('casadi', '?')}, NumPy {nlp.get('numpy', '?')}"
    ]
    if "siconos" in firsts:
        out.append(
            f"Siconos {firsts['siconos'].get('siconos', '?')} (Debian python3-siconos {deb})"
        )
    if "mujoco" in firsts:
        out.append(f"MuJoCo {firsts['mujoco'].get('mujoco', '?')}")
    if "exudyn" in firsts:
        out.append(f"Exudyn {firsts['exudyn'].get('exudyn', '?')}")
    return out


def taken(first: dict) -> str:
    """What an nlpmbd run took, from its meta.json."""
    o = first["options"]
    t, s = o["time"], o["scheme"]
    h = (
        f"h = {t['h_min']:g}"
        if t["h_min"] == t["h_max"]
        else f"h in [{t['h_min']:g}, {t['h_max']:g}]"
    )
    return (
        f"solver {o['path']['solver']} -> path {first['solver_path']}, codegen "
        f"{o['path']['codegen']} -> {first['codegen']}, scheme {s['integrator']}, gap "
        f"linearisation {s['gap_linearization']}, step control {t['step_control']}, {h}, "
        f"{first['steps']} steps"
    )


def _table(rows: list[dict], pendulum: bool) -> list[str]:
    cpp = any("x_cpp_per_step" in r for r in rows)  # the slider-crank's Siconos C++ loop row
    head = "| run | steps | per step | wall per simulated s | x peer per step | x peer per sim. s |"
    head += " max theta error (rad) |" if pendulum else ""
    head += " x C++ loop per step | x C++ loop per sim. s |" if cpp else ""
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for r in rows:
        if "failed" in r:
            lines.append(f"| {r['run']} | failed: {r['failed']} |")
            continue
        x1 = f"{r['x_per_step']:.2f}" if "x_per_step" in r else "1 (peer)"
        x2 = f"{r['x_per_sim_s']:.2f}" if "x_per_sim_s" in r else ""
        line = (
            f"| {r['run']} | {r['steps']} | {r['per_step_us']:.1f} us | "
            f"{r['wall_per_sim_s']:.3f} s | {x1} | {x2} |"
        )
        if pendulum:
            err = r["first"].get("theta_error")
            line += f" {err:.2e} |" if err is not None else " |"
        if cpp and "x_cpp_per_step" in r:
            line += f" {r['x_cpp_per_step']:.2f} | {r['x_cpp_per_sim_s']:.2f} |"
        elif cpp:
            line += " 1 (peer) | |"
        lines.append(line)
    return lines


def _ms(x: float | None) -> str:
    return f"{1e3 * x:.3f} ms" if x is not None else "none"


def physics_check(rows: list[dict]) -> list[str]:
    """The Siconos rows' untimed --physics runs side by side: the two drivers, same motion?"""
    runs = [(r["run"], r["first"]["physics"]) for r in rows if "physics" in r.get("first", {})]
    if not runs:
        return []
    out = [
        "",
        "Physics check (each Siconos row once, untimed, with --physics over the same T):",
        "",
    ]
    for label, p in runs:
        out.append(
            f"- {label}: first impact {_ms(p['first_impact'])}, first revolution "
            f"{_ms(p['first_revolution'])}, two revolutions {_ms(p['two_revolutions'])}, "
            f"largest penetration {p['max_penetration']:.3g} m, crank speed at T "
            f"{p['crank_speed_end']:.6f} rad/s"
        )
    if len(runs) > 1:
        keys = ("first_impact", "first_revolution", "two_revolutions", "max_penetration")
        same = all(a[1][k] == b[1][k] for a, b in zip(runs, runs[1:], strict=False) for k in keys)
        out += ["", f"The Siconos drivers give {'the same' if same else 'DIFFERENT'} landmarks."]
    return out


def issue_30(rows: list[dict]) -> list[str]:
    """Issue 30: the default (compiled, h = 1e-5) per step <= Siconos', either loop."""
    default = next((r for r in rows if r["run"] == "nlpmbd default" and "first" in r), None)
    if default is None:
        return []
    loops = (("x_per_step", "Python loop"), ("x_cpp_per_step", "C++ loop"))
    said = "; ".join(
        f"{default[key]:.2f}x Siconos' {what}, {'met' if default[key] <= 1 else 'NOT met'}"
        for key, what in loops
        if key in default
    )
    return ["", f"Issue 30 target, default slider_crank per step <= Siconos per step: {said}."]


def markdown(table: list[dict], args: argparse.Namespace, load: list[float]) -> str:
    from nlpmbd.apps.machine import machine_info

    info, cpu = machine_info(), lscpu()
    text = [
        "# The default run against its peers (benchmarks/peer_defaults.py)",
        "",
        f"`python -m benchmarks.peer_defaults --rounds {args.rounds} --slider-t-end "
        f"{args.slider_t_end:g}{''.join(f' --row {shlex.quote(r)}' for r in args.row)}"
        f"{''.join(f' --problem {p}' for p in args.problem or ())}`, "
        f"{info['date']}; {cpu['model']}, {cpu['cpus']} cores "
        f"(shared: 1-minute load average {load[0]:.1f} at the start, {load[-1]:.1f} at the "
        f"end); Python {info['python']}.",
        "",
        *[f"- {v}" for v in versions(table)],
        "",
        f"Medians of {args.rounds} interleaved rounds, loop time only; a ratio is the median "
        "over rounds of the ratio to the peer row in the same round.",
    ]
    for problem, title in (
        ("slider_crank", f"slider_crank, T = {args.slider_t_end:g} s"),
        ("pendulum", "ideal pendulum, 10 s"),
    ):
        rows = [r for r in table if r["problem"] == problem]
        if not rows:
            continue
        text += ["", f"## {title}", ""]
        default = next((r for r in rows if r["run"] == "nlpmbd default" and "first" in r), None)
        ours = [r for r in rows if r.get("side") == "nlpmbd" and "first" in r]
        text += [f"- {r['run']}: {taken(r['first'])}" for r in ours] + [""]
        text += _table(rows, problem == "pendulum")
        key, bound, what = TARGETS[problem]
        if default and key in default:
            ok = "met" if default[key] <= bound else "NOT met"
            text += [
                "",
                f"Target {what} <= {bound:g}x {default['baseline']}: {default[key]:.2f}x, {ok}.",
            ]
        if problem == "slider_crank":
            text += issue_30(rows) + physics_check(rows)
    return "\n".join(text) + "\n"
