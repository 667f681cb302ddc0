"""Peer benchmark: nlpmbd against Siconos on the Flores-Leine-Glocker slider-crank (issue 14).

    python -m benchmarks.peer_siconos [--t-end 0.01] [--rounds 3] [--no-nlp] [--physics]
                                      [--no-cpp] [--json FILE]

What it measures. The case `slider_crank` (nlpmbd_cases/slider_crank.py: clearance 1 mm per
side, e = 0.4, mu = 0.01, four slider corners against the two guide faces) and the same model in
Siconos (benchmarks/siconos_slider_crank.py: minimal coordinates, Moreau-Jean theta = 0.5,
NewtonImpactFrictionNSL with a 2D friction LCP solved by Lemke), its time loop driven from
Python (rows "siconos") and from C++ (rows "siconos C++": benchmarks/siconos_cpp.py, the same
model compiled with g++ against Debian's libsiconos-kernel-dev; dropped with one line where g++
or the headers are absent). Each run is its own subprocess with BLAS pinned to one thread; the
runs are interleaved (all specs once per round, --rounds rounds) and the table gives medians of
the solver-loop wall time (nlpmbd: meta.json wall_time - setup_time; Siconos: its own loop
timer), per step and per simulated second, and its ratios to Siconos' Python loop and C++ loop
at the same h. nlpmbd runs on its compiled fast path (`--solver qp --codegen on`; the
compilation, cached after the first run, counts as setup) and on its NLP path (--no-nlp drops
those rows). The mu = e = 0 rows compare the fast path with Siconos' frictionless LCP
(--no-frictionless drops them). --physics measures accuracy (paper variant, --physics-t-end,
default two crank turns): each side at h = 1e-6, 1e-5, 1e-4; first impact (end of the first step
whose normal force exceeds 1e-6 N), first revolution and two revolutions (crank angle 2 pi, 4
pi), the largest penetration of a corner beyond its guide face (m and fraction of c), and the
errors of the revolution times against the same side's h = 1e-6 run (own reference) and the
other side's (cross reference). The target of issue 14: nlpmbd at h = 1e-4 at least as close to
its reference as Siconos at h = 1e-5 (two-revolution time).

Siconos is a peer for benchmarks only, never a dependency: it comes from Debian
(`apt-get install python3-siconos`) and only the system interpreter (--siconos-python,
default /usr/bin/python3) can import it; its model's C plugin is compiled with gcc. Without
either, the benchmark prints one line saying so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from .peer_physics import physics
from .peer_runs import (
    BLAS_ENV,
    PAPER,
    SICONOS_DRIVERS,
    SICONOS_PYTHON,
    SMOOTH,
    Spec,
    run_nlpmbd,
    run_siconos,
    siconos_missing,
)
from .siconos_cpp import missing as siconos_cpp_missing


def specs(smooth: bool, nlp: bool, cpp: bool = True) -> list[Spec]:
    """Siconos (Python loop, and with `cpp` C++ loop), nlpmbd's fast path and (paper variant,
    `nlp`) its NLP path, at h = 1e-5, 1e-4."""
    out = []
    for v in (PAPER, SMOOTH) if smooth else (PAPER,):
        for h in (1e-5, 1e-4):
            out += [Spec("siconos", h, v)] + ([Spec("siconos_cpp", h, v)] if cpp else [])
            out.append(Spec("nlpmbd", h, v, "qp"))
            if nlp and v == PAPER:
                out.append(Spec("nlpmbd", h, v, "nlp"))
    return out


def measure(args) -> dict[Spec, list[dict]]:
    """Every spec once per round, in the same order each round (A B A B ...)."""
    cpp = args.cpp and not siconos_cpp_missing()
    samples: dict[Spec, list[dict]] = {s: [] for s in specs(args.frictionless, args.nlp, cpp)}
    for k in range(args.rounds):
        for s in samples:
            if s.side in SICONOS_DRIVERS:
                row = run_siconos(s, args.t_end, args.siconos_python)
            else:
                row = run_nlpmbd(s, args.t_end)
            samples[s].append(row)
            print(
                f"  round {k + 1}: {s.label:<28} h={s.h:g}  loop {row['loop_time']:.3f} s",
                flush=True,
            )
    return samples


def table(samples: dict[Spec, list[dict]], t_end: float) -> list[dict]:
    rows = []
    for s, runs in samples.items():
        loop = statistics.median(r["loop_time"] for r in runs)
        steps = runs[0]["steps"]
        rows.append(
            dict(
                run=s.label,
                side=s.side,
                variant=s.variant,
                h=s.h,
                steps=steps,
                per_step_us=1e6 * loop / steps,
                wall_per_sim_s=loop / t_end,
                loop_s=loop,
                setup_s=statistics.median(r["setup_time"] for r in runs),
                loop_samples_s=[r["loop_time"] for r in runs],
            )  # fmt: skip
        )
    for row in rows:
        for side, key in (("siconos", "ratio_to_siconos"), ("siconos_cpp", "ratio_to_siconos_cpp")):
            peer = next((r for r in rows if r["side"] == side and r["variant"] == row["variant"]
                         and r["h"] == row["h"]), None)  # fmt: skip
            if peer is not None:
                row[key] = row["per_step_us"] / peer["per_step_us"]
    return rows


def print_table(rows: list[dict], t_end: float, rounds: int) -> None:
    print(f"\nslider_crank, t_end = {t_end:g} s, medians of {rounds} interleaved rounds")
    print("x Siconos: per step against Siconos with its time loop in Python (rows siconos); "
          "x C++: in C++ (rows siconos C++)")  # fmt: skip
    print(f"{'run':<32} {'h':>6} {'steps':>6} {'per step':>11} {'wall/sim s':>11} "
          f"{'setup':>7} {'x Siconos':>9} {'x C++':>6}")  # fmt: skip
    for r in rows:
        cpp = f"{r['ratio_to_siconos_cpp']:>6.2f}" if "ratio_to_siconos_cpp" in r else f"{'-':>6}"
        print(
            f"{r['run']:<32} {r['h']:>6g} {r['steps']:>6d} {r['per_step_us']:>8.1f} us "
            f"{r['wall_per_sim_s']:>9.2f} s {r['setup_s']:>5.2f} s {r['ratio_to_siconos']:>9.1f} "
            f"{cpp}"
        )


def machine() -> dict:
    from nlpmbd.apps.machine import machine_info

    info = machine_info()
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-siconos"],
                       capture_output=True, text=True)  # fmt: skip
    info["python3_siconos_deb"] = r.stdout.strip() if r.returncode == 0 else None
    return info


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--t-end", type=float, default=0.01, help="simulated time of the timing runs, s"
    )
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians)")
    ap.add_argument("--no-frictionless", dest="frictionless", action="store_false",
                    help="skip the mu = e = 0 rows")  # fmt: skip
    ap.add_argument("--no-nlp", dest="nlp", action="store_false",
                    help="skip the rows of nlpmbd's NLP path")  # fmt: skip
    ap.add_argument(
        "--physics", action="store_true", help="add the accuracy runs (h = 1e-6, 1e-5, 1e-4)"
    )
    ap.add_argument("--physics-t-end", type=float, default=0.14, help="s; two turns ~0.138")
    ap.add_argument("--no-cpp", dest="cpp", action="store_false",
                    help="skip the rows of Siconos with its time loop in C++")  # fmt: skip
    ap.add_argument("--json", type=Path, help="write the numbers to this file")
    ap.add_argument("--siconos-python", default=SICONOS_PYTHON, help="interpreter with siconos")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    missing = siconos_missing(args.siconos_python)
    if missing:
        print(f"peer_siconos: skipped, {missing}")
        return 0
    why = args.cpp and siconos_cpp_missing()
    if why:
        print(f"peer_siconos: Siconos C++ rows skipped, {why}")
    os.environ.update(BLAS_ENV)
    rows = table(measure(args), args.t_end)
    print_table(rows, args.t_end, args.rounds)
    report = {"t_end": args.t_end, "rounds": args.rounds, "machine": machine(), "rows": rows}
    if args.physics:
        report["physics"] = physics(args)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
