"""`python -m benchmarks.chain_peers [--links 4 8 16 32] [--rounds 3] [--t-end 1] [--h 1e-3]
[--nlp] [--clearance-max N] [--nlp-max N]`: nlpmbd's `chain` case against MuJoCo (issue 30's
acceptance: ideal chain N = 32 <= 10x MuJoCo per step; the compiled path faster than the NLP
path at every N; clearance chain N = 32 <= 1 ms per step over a whole simulated second,
growth N = 4..32 <= N^1.3, local exponent 16 -> 32 <= 1.5).

Per N, interleaved round by round, one subprocess per run, BLAS on one thread:

    nlpmbd run chain --set links=N [--set joint=clearance] --t-end T --h H --solver qp
        --codegen on --no-plot --quiet          (with --nlp also: --solver nlp, no --codegen)

and MuJoCo's ideal planar chain (benchmarks/mujoco_chain.py, the peers' interpreter). nlpmbd's
time per step is its loop time (meta.json wall_time - setup_time) / steps, and the run's median
step time (meta.json summary median_step_ms); MuJoCo's its mj_step loop and its
mujoco.rollout (a C loop) over the steps. Every compiled (QP) configuration runs once untimed
first, so its chunk library is in the cache: compilation is not counted. Medians over rounds;
ratios are taken within each round, then the median. Not a test: it prints markdown tables
(again after every round, so a stopped run keeps its completed rounds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path
from statistics import median

import numpy as np

from .peer_default_runs import PEERS_PYTHON, ROOT, Run, _env, nlpmbd_command, peer_missing, warm_up

MUJOCO_SCRIPT = ROOT / "benchmarks/mujoco_chain.py"
#: column -> the nlpmbd arguments beyond links, t_end and h
COLUMNS = {
    "ideal": ("--solver", "qp", "--codegen", "on"),
    "clearance": ("--set", "joint=clearance", "--solver", "qp", "--codegen", "on"),
    "NLP ideal": ("--solver", "nlp"),
    "NLP clearance": ("--set", "joint=clearance", "--solver", "nlp"),
}


def chain_run(column: str, links: int, h: float) -> Run:
    args = ("--set", f"links={links}", "--h", repr(h), "--quiet", *COLUMNS[column])
    return Run(f"{column} N={links}", "chain", "nlpmbd", args=args)


def run_nlpmbd(run: Run, t_end: float, keep: Path | None = None) -> dict:
    """Per-step times (s) of one run from its meta.json; the result left in `keep` if given."""
    with tempfile.TemporaryDirectory(prefix="chain_peers_") as tmp:
        out = keep or Path(tmp) / "run"
        r = subprocess.run(nlpmbd_command(run, t_end, out), capture_output=True, text=True,
                           env=_env(), cwd=ROOT)  # fmt: skip
        if r.returncode != 0:
            tail = (r.stderr.strip().splitlines() or ["?"])[-1]
            raise RuntimeError(f"{run.label}: exit {r.returncode}: {tail}")
        meta = json.loads((out / "meta.json").read_text())
    steps = meta["summary"]["steps"]
    return {
        "step": (meta["wall_time"] - meta["setup_time"]) / steps,
        "median_step": meta["summary"]["median_step_ms"] * 1e-3,
        "codegen": meta.get("codegen"),
        "path": meta.get("solver_path"),
    }


def run_mujoco(links: int, t_end: float, h: float, angles: Path | None = None) -> dict:
    """MuJoCo's JSON line: loop_time, rollout_time, steps, version."""
    cmd = [PEERS_PYTHON, str(MUJOCO_SCRIPT), "--links", str(links), "--h", repr(h)]
    cmd += ["--t-end", repr(t_end), *(["--angles", str(angles)] if angles else [])]
    r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=ROOT, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def joint_angles(result_dir: Path) -> np.ndarray:
    """(N, n+1) relative joint angles of a planar chain from its links' Euler parameters."""
    from nlpmbd.io.result import SimulationResult

    res = SimulationResult.load(result_dir)
    # a rotation by phi about Z has e0 = cos(phi/2), e3 = sin(phi/2)
    phi = np.stack([2 * np.arctan2(res.body_q(b)[:, 6], res.body_q(b)[:, 3])
                    for b in res.body_names])  # fmt: skip
    return np.diff(phi, axis=0, prepend=np.zeros((1, phi.shape[1])))


def accuracy(links: int, t_end: float, h: float) -> str:
    """The ideal chain's joint angles of nlpmbd (QP path) against MuJoCo's, untimed runs."""
    with tempfile.TemporaryDirectory(prefix="chain_peers_") as tmp:
        run_nlpmbd(chain_run("ideal", links, h), t_end, keep=Path(tmp) / "run")
        ours = joint_angles(Path(tmp) / "run")
        run_mujoco(links, t_end, h, angles=Path(tmp) / "angles.npy")
        theirs = np.load(Path(tmp) / "angles.npy")[1:]
    diff = np.abs(np.angle(np.exp(1j * (ours - theirs))))  # wrapped to [0, pi]
    return (f"Accuracy, ideal chain N = {links}, h = {h:g} s: max |joint angle nlpmbd - MuJoCo| "
            f"at t = {t_end:g} s {diff[:, -1].max():.3g} rad, over the run {diff.max():.3g} rad "
            f"(angles at t_end: nlpmbd {np.round(ours[:, -1], 4).tolist()}, "
            f"MuJoCo {np.round(theirs[:, -1], 4).tolist()})")  # fmt: skip


def exponents(times: dict[int, float]) -> tuple[float, float]:
    """(least-squares log-log slope over all N, local exponent between the last two N)."""
    ns = sorted(times)
    if len(ns) < 2:
        return float("nan"), float("nan")
    x, y = np.log(ns), np.log([times[n] for n in ns])
    return float(np.polyfit(x, y, 1)[0]), float((y[-1] - y[-2]) / (x[-1] - x[-2]))


def _us(x: float | None) -> str:
    return "-" if x is None else f"{1e6 * x:.1f}"


def _med(values: list) -> float | None:
    return median(values) if values else None


def table(data: dict, columns: list[str], links: list[int], key: str) -> str:
    """Markdown table of one time (`step` or `median_step`), medians over rounds."""
    head = [
        "N",
        "nlpmbd ideal us/step",
        "MuJoCo mj_step us/step",
        "MuJoCo rollout us/step",
        "ratio vs mj_step",
        "ratio vs rollout",
    ] + [f"nlpmbd {c} us/step" for c in columns[1:]]
    if "NLP ideal" in columns:
        head += ["NLP ideal / compiled ideal"]
    if "NLP clearance" in columns:
        head += ["NLP clearance / compiled clearance"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    med = {c: {n: _med([r[key] for r in data[c, n]]) for n in links} for c in columns}
    for n in links:
        mj = data["mujoco", n]
        row = [str(n), _us(med["ideal"][n]), _us(_med([r["loop"] for r in mj])),
               _us(_med([r["rollout"] for r in mj]))]  # fmt: skip
        for peer in ("loop", "rollout"):
            ratios = [a[key] / b[peer] for a, b in zip(data["ideal", n], mj, strict=False)]
            row.append("-" if not ratios else f"{median(ratios):.1f}x")
        row += [_us(med[c][n]) for c in columns[1:]]
        for nlp, fast in (("NLP ideal", "ideal"), ("NLP clearance", "clearance")):
            if nlp in columns:
                pairs = zip(data[nlp, n], data[fast, n], strict=False)
                ratios = [a[key] / b[key] for a, b in pairs]
                row.append("-" if not ratios else f"{median(ratios):.2f}")
        lines.append("| " + " | ".join(row) + " |")
    for c in columns:
        fit, local = exponents({n: t for n, t in med[c].items() if t is not None})
        lines.append(f"\n{c}: growth N^{fit:.2f} (least squares over N = {links[0]}..{links[-1]}),"
                     f" local exponent {links[-2] if len(links) > 1 else '-'} -> {links[-1]}: "
                     f"{local:.2f}")  # fmt: skip
    return "\n".join(lines)


def one_round(args: argparse.Namespace, columns: list[str], data: dict) -> None:
    for n in args.links:
        for c in columns:
            if n > (args.clearance_max if "clearance" in c else 10**9):
                continue
            if n > (args.nlp_max if c.startswith("NLP") else 10**9):
                continue
            got = run_nlpmbd(chain_run(c, n, args.h), args.t_end)
            data[c, n].append(got)
            print(f"  N={n} {c}: {_us(got['step'])} us/step (median step "
                  f"{_us(got['median_step'])}), {got['path']}, codegen {got['codegen']}",
                  flush=True)  # fmt: skip
        mj = run_mujoco(n, args.t_end, args.h)
        data["mujoco", n].append({"loop": mj["loop_time"] / mj["steps"],
                                  "rollout": (mj["rollout_time"] or np.nan) / mj["steps"],
                                  "version": mj["mujoco"]})  # fmt: skip
        print(f"  N={n} MuJoCo {mj['mujoco']}: {_us(data['mujoco', n][-1]['loop'])} us/step "
              f"(rollout {_us(data['mujoco', n][-1]['rollout'])})", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.chain_peers")
    p.add_argument("--links", type=int, nargs="+", default=[4, 8, 16, 32])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--t-end", type=float, default=1.0)
    p.add_argument("--h", type=float, default=1e-3)
    p.add_argument("--nlp", action="store_true", help="also the NLP path (--solver nlp)")
    p.add_argument("--clearance-max", type=int, default=64, help="no clearance run above this N")
    p.add_argument("--nlp-max", type=int, default=64, help="no NLP run above this N")
    args = p.parse_args(argv)
    args.links = sorted(args.links)
    missing = peer_missing("mujoco", PEERS_PYTHON)
    if missing:
        p.error(missing)
    columns = [*COLUMNS] if args.nlp else ["ideal", "clearance"]
    if 4 in args.links:
        print(accuracy(4, args.t_end, args.h), flush=True)
    print("warm-up (untimed, fills the compiled chunk cache):", flush=True)
    for n in args.links:
        for c in ("ideal", "clearance"):
            if n <= (args.clearance_max if c == "clearance" else n):
                print(f"  N={n} {c}: codegen {warm_up(chain_run(c, n, args.h), args.t_end)}",
                      flush=True)  # fmt: skip
    data: dict = {(c, n): [] for c in [*columns, "mujoco"] for n in args.links}
    for r in range(1, args.rounds + 1):
        print(f"round {r}:", flush=True)
        one_round(args, columns, data)
        print(f"\nAfter {r} round(s), loop time (wall - setup) / steps:\n")
        print(table(data, columns, args.links, "step"))
        print("\nmeta.json median_step_ms (the MuJoCo columns as above):\n")
        print(table(data, columns, args.links, "median_step"), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
