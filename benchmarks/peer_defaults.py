"""Peer benchmark of the DEFAULT run (issue "The default run is the best run"): nlpmbd as a user
runs it against Siconos on the slider-crank and MuJoCo (and Exudyn) on the ideal pendulum.

    python -m benchmarks.peer_defaults [--rounds 3] [--slider-t-end 0.14] [--json FILE]
                                       [--markdown FILE] [--row PROBLEM:OPTIONS ...]
                                       [--problem slider_crank|pendulum]
                                       [--siconos-python P] [--peers-python P]

Rows (benchmarks/peer_default_runs.py runs them, each in its own subprocess, BLAS on one thread):

* slider_crank: `nlpmbd run slider_crank --t-end T --no-plot --out DIR` with whatever main's
  defaults are when it runs (meta.json records them: the table prints the path, codegen, scheme,
  gap linearisation, step control and h taken), against Siconos at h = 1e-5 over the same T
  (benchmarks/siconos_slider_crank.py) with its time loop in Python and in C++ (the same model,
  benchmarks/siconos_cpp.py). Issue target (a): per simulated second <= 1.5x Siconos' Python
  loop; issue 30: per step <= both. Before the rounds each Siconos row runs once untimed with
  --physics: the report checks that both drivers give the same first impact and revolutions.
* pendulum (10 s, the case's t_end): `nlpmbd run pendulum --no-plot` (defaults) and the same at
  a fixed `--h 1e-3`, against MuJoCo's pendulum with the same parameters at h = 1e-3 (semi-
  implicit Euler, MuJoCo's default, and RK4; benchmarks/mujoco_pendulum.py) and Exudyn's
  (generalized-alpha, the same Euler-parameter body and revolute joint;
  benchmarks/exudyn_pendulum.py). Issue target (b): the default per step <= 5x MuJoCo Euler.
  Every pendulum row also gives its max |theta error| over the 10 s against the minimal-
  coordinate scipy ODE I_O theta'' = -m g L cos(theta), I_O = J_zz + m L^2 (measured in the first
  round): cost per step alone is not the comparison that matters, error at equal cost is.
* `--row PROBLEM:OPTIONS` adds an nlpmbd row with those options (repeatable), e.g.
  `--row "pendulum:--step-control controller --integrator verlet"`: candidate defaults side by side.

Timing: the loop only (nlpmbd: meta.json wall_time - setup_time, progress bar and all; a peer:
its own timer around its stepping). Before the rounds each nlpmbd row runs once untimed with
`--codegen on` (where its path is the QP one) so that the default's `codegen auto` finds the
compiled chunk in the cache, as any user's second run does. Rounds are interleaved (every row
once per round, same order), the table gives medians over rounds, and each ratio is the median
over rounds of the ratio to the peer row measured in the same round (the machine is shared and
noisy: ratios within a round compare, absolute times less so).

The peers are benchmarks only, never dependencies: Siconos from Debian (`apt-get install
python3-siconos`, importable by /usr/bin/python3 only), MuJoCo and Exudyn from pip in a venv of
their own (`python3 -m venv /work/venv-peers && /work/venv-peers/bin/pip install mujoco exudyn`;
--peers-python or $NLPMBD_PEERS_PYTHON). A missing peer drops its rows with one line.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
from pathlib import Path

from .peer_default_report import markdown
from .peer_default_runs import (
    PEERS_PYTHON,
    PENDULUM_T_END,
    Run,
    peer_missing,
    run_nlpmbd,
    run_peer,
    siconos_physics,
    warm_up,
)
from .peer_runs import BLAS_ENV, SICONOS_PYTHON

SICONOS_ROW = "Siconos Python loop, h = 1e-5"
SICONOS_CPP_ROW = "Siconos C++ loop, h = 1e-5"
MUJOCO_ROW = "MuJoCo Euler, h = 1e-3"
PROBLEMS = ("slider_crank", "pendulum")
#: The slider-crank rows' second ratio (columns "x C++ loop"): to Siconos' C++ loop.
SECOND_BASELINE = {"slider_crank": SICONOS_CPP_ROW}
RUNS = (
    Run("nlpmbd default", "slider_crank", "nlpmbd", baseline=SICONOS_ROW),
    Run(SICONOS_ROW, "slider_crank", "siconos", h=1e-5),
    Run(SICONOS_CPP_ROW, "slider_crank", "siconos_cpp", h=1e-5, baseline=SICONOS_ROW),
    Run("nlpmbd default", "pendulum", "nlpmbd", baseline=MUJOCO_ROW),
    Run("nlpmbd --h 1e-3", "pendulum", "nlpmbd", ("--h", "1e-3"), baseline=MUJOCO_ROW),
    Run(MUJOCO_ROW, "pendulum", "mujoco", ("--integrator", "Euler"), h=1e-3),
    Run(
        "MuJoCo RK4, h = 1e-3",
        "pendulum",
        "mujoco",
        ("--integrator", "RK4"),
        h=1e-3,
        baseline=MUJOCO_ROW,
    ),
    Run("Exudyn gen.-alpha, h = 1e-3", "pendulum", "exudyn", h=1e-3, baseline=MUJOCO_ROW),
)


def available(args: argparse.Namespace) -> list[Run]:
    """The rows whose side can run here (one line for each peer that cannot)."""
    problems = args.problem or PROBLEMS
    skipped = set()
    for side in dict.fromkeys(r.side for r in RUNS if r.problem in problems and r.side != "nlpmbd"):
        siconos = side.startswith("siconos")
        why = peer_missing(side, args.siconos_python if siconos else args.peers_python)
        if why:
            print(f"peer_defaults: {side} rows skipped, {why}")
            skipped.add(side)
    extra = [extra_row(spec) for spec in args.row]
    out = []
    for problem in problems:  # nlpmbd's rows, the extra ones, the peers'
        mine = [r for r in RUNS if r.problem == problem and r.side == "nlpmbd"]
        peers = [r for r in RUNS if r.problem == problem and r.side != "nlpmbd"]
        out += mine + [r for r in extra if r.problem == problem]
        out += [r for r in peers if r.side not in skipped]
    return out


def extra_row(spec: str) -> Run:
    """`--row PROBLEM:OPTIONS`, e.g. "pendulum:--step-control controller --integrator verlet"."""
    problem, _, options = spec.partition(":")
    if problem not in PROBLEMS:
        raise SystemExit(
            f"peer_defaults: error: --row {spec!r}: PROBLEM is slider_crank or pendulum"
        )
    base = SICONOS_ROW if problem == "slider_crank" else MUJOCO_ROW
    return Run(
        f"nlpmbd {options.strip()}", problem, "nlpmbd", tuple(shlex.split(options)), baseline=base
    )


def t_end_of(run: Run, args: argparse.Namespace) -> float | None:
    """The simulated time: T on the slider-crank; the pendulum's own (None: not passed)."""
    if run.problem == "slider_crank":
        return args.slider_t_end
    return None if run.side == "nlpmbd" else PENDULUM_T_END


def one(run: Run, args: argparse.Namespace, accuracy: bool) -> dict:
    t_end = t_end_of(run, args)
    if run.side == "nlpmbd":
        return run_nlpmbd(run, t_end, accuracy)
    return run_peer(run, t_end or 0.0, accuracy, args.siconos_python, args.peers_python)


def measure(runs: list[Run], args: argparse.Namespace) -> dict[Run, list[dict]]:
    checks = {}
    for run in runs:
        if run.side == "nlpmbd":
            how = warm_up(run, t_end_of(run, args))
            print(f"  warm-up: {run.problem} {run.label}: codegen {how}", flush=True)
        elif run.side.startswith("siconos"):
            checks[run] = siconos_physics(run, args.slider_t_end, args.siconos_python)
            print(f"  physics: {run.label}: first revolution "
                  f"{checks[run]['first_revolution']}", flush=True)  # fmt: skip
    samples: dict[Run, list[dict]] = {r: [] for r in runs}
    for k in range(args.rounds):
        for run in runs:
            row = one(run, args, accuracy=k == 0)
            samples[run].append(row)
            said = row.get("failed") or f"loop {row['loop_time']:.3f} s, {row['steps']} steps"
            print(f"  round {k + 1}: {run.problem:<12} {run.label:<28} {said}", flush=True)
    for run, check in checks.items():  # the report reads it from the row's first run
        samples[run][0]["physics"] = check
    return samples


def ratios(runs: list[dict], base: list[dict]) -> tuple[float, float]:
    """Medians over rounds of the ratios per step and per simulated second to `base`'s run of
    the same round (rounds where either failed left out)."""
    pairs = [(a, b) for a, b in zip(runs, base, strict=True) if "failed" not in a | b]
    per_step = [(a["loop_time"] / a["steps"]) / (b["loop_time"] / b["steps"]) for a, b in pairs]
    per_sim_s = [a["loop_time"] / b["loop_time"] for a, b in pairs]
    return statistics.median(per_step), statistics.median(per_sim_s)


def rows(samples: dict[Run, list[dict]]) -> list[dict]:
    """Medians over rounds, and each row's ratio to its baseline row, round by round."""
    out = []
    for run, runs in samples.items():
        ok = [r for r in runs if "failed" not in r]
        if not ok:
            out.append({"run": run.label, "problem": run.problem, "failed": runs[0]["failed"]})
            continue
        loop = statistics.median(r["loop_time"] for r in ok)
        steps, t_end = ok[0]["steps"], ok[0].get("t_end") or PENDULUM_T_END
        row = {
            "run": run.label,
            "problem": run.problem,
            "side": run.side,
            "steps": steps,
            "t_end": t_end,
            "loop_s": loop,
            "per_step_us": 1e6 * loop / steps,
            "wall_per_sim_s": loop / t_end,
            "loop_samples_s": [r["loop_time"] for r in runs],
            "first": ok[0],
        }
        by_label = {r.label: r for r in samples if r.problem == run.problem}
        base = by_label.get(run.baseline or "")
        if base is not None:
            row["baseline"] = run.baseline
            row["x_per_step"], row["x_per_sim_s"] = ratios(runs, samples[base])
        second = by_label.get(SECOND_BASELINE.get(run.problem, ""))
        if second is not None and second != run:
            row["x_cpp_per_step"], row["x_cpp_per_sim_s"] = ratios(runs, samples[second])
        out.append(row)
    return out


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians)")
    ap.add_argument(
        "--slider-t-end",
        type=float,
        default=0.14,
        help="simulated time of the slider-crank runs, s (two turns ~0.138)",
    )
    ap.add_argument(
        "--row",
        action="append",
        default=[],
        metavar="PROBLEM:OPTIONS",
        help="another nlpmbd row: slider_crank or pendulum, with these options "
        "(repeatable), e.g. 'pendulum:--step-control controller --integrator verlet'",
    )
    ap.add_argument(
        "--problem",
        action="append",
        choices=PROBLEMS,
        help="only this problem's rows (repeatable; default both)",
    )
    ap.add_argument("--json", type=Path, help="write the numbers to this file")
    ap.add_argument("--markdown", type=Path, help="write the report to this file")
    ap.add_argument("--siconos-python", default=SICONOS_PYTHON, help="interpreter with siconos")
    ap.add_argument("--peers-python", default=PEERS_PYTHON, help="interpreter with mujoco, exudyn")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    os.environ.update(BLAS_ENV)
    load = [os.getloadavg()[0]]
    samples = measure(available(args), args)
    load.append(os.getloadavg()[0])
    table = rows(samples)
    text = markdown(table, args, load)
    print("\n" + text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text)
        print(f"wrote {args.markdown}")
    if args.json:
        report = {"args": {k: str(v) for k, v in vars(args).items()}, "load": load, "rows": table}
        args.json.write_text(json.dumps(report, indent=1, default=str) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
