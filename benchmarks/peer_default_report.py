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
    head = "| run | steps | per step | wall per simulated s | x peer per step | x peer per sim. s |"
    head += " max theta error (rad) |" if pendulum else ""
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
        lines.append(line)
    return lines


def markdown(table: list[dict], args: argparse.Namespace, load: list[float]) -> str:
    from nlpmbd.apps.machine import machine_info

    info, cpu = machine_info(), lscpu()
    text = [
        "# The default run against its peers (benchmarks/peer_defaults.py)",
        "",
        f"`python -m benchmarks.peer_defaults --rounds {args.rounds} --slider-t-end "
        f"{args.slider_t_end:g}{''.join(f' --row {shlex.quote(r)}' for r in args.row)}`, "
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
    return "\n".join(text) + "\n"
