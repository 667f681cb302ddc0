"""Peer benchmark: nlpmbd against Siconos on the Flores-Leine-Glocker slider-crank (issue 14).

    python -m benchmarks.peer_siconos [--t-end 0.01] [--rounds 3] [--no-nlp] [--physics] [--json FILE]

What it measures. The case `slider_crank` (nlpmbd_cases/slider_crank.py: clearance 1 mm per
side, e = 0.4, mu = 0.01, four slider corners against the two guide faces) and the same model
in Siconos (benchmarks/siconos_slider_crank.py: minimal coordinates, Moreau-Jean theta = 0.5,
NewtonImpactFrictionNSL with a 2D friction LCP solved by Lemke). Each run is its own
subprocess with BLAS pinned to one thread; the runs are interleaved (all specs once per round,
--rounds rounds) and the table gives medians of the solver-loop wall time (nlpmbd: meta.json
wall_time - setup_time; Siconos: its own loop timer), per step and per simulated second, and
its ratio to Siconos at the same h. nlpmbd runs on its compiled fast path (`--solver qp
--codegen on`; the compilation, cached after the first run, counts as setup) and on its NLP
path (--no-nlp drops those rows). The mu = e = 0 rows compare the fast path with Siconos'
frictionless LCP (--no-frictionless drops them). --physics adds one two-turn run of
each at h = 1e-5: first impact (end of the first step whose normal force exceeds 1e-6 N),
first revolution and two revolutions (crank angle 2 pi, 4 pi) and the largest penetration of a
corner beyond its guide face, in m and as a fraction of c.

Siconos is a peer for benchmarks only, never a dependency: it comes from Debian
(`apt-get install python3-siconos`) and only the system interpreter (--siconos-python,
default /usr/bin/python3) can import it; its model's C plugin is compiled with gcc. Without
either, the benchmark prints one line saying so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SICONOS_PYTHON = "/usr/bin/python3"
SCRIPT = Path(__file__).with_name("siconos_slider_crank.py")
ROOT = Path(__file__).resolve().parent.parent
BLAS_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
IMPACT_FORCE = 1e-6  # N: a normal force above this is a contact
PAPER, SMOOTH = "e=0.4 mu=0.01", "e=0 mu=0"


@dataclass(frozen=True)
class Spec:
    side: str  # "siconos" or "nlpmbd"
    h: float
    variant: str = PAPER
    solver: str = "qp"  # nlpmbd's path: "nlp" (IPOPT) or "qp" (the compiled fast path)

    @property
    def label(self) -> str:
        name = f"nlpmbd {self.solver}" if self.side == "nlpmbd" else self.side
        return f"{name} ({self.variant})"


def siconos_missing(python: str) -> str | None:
    """Why the Siconos side cannot run, or None when it can."""
    try:
        r = subprocess.run(
            [python, "-c", "import siconos.kernel"], capture_output=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{python} cannot be run ({exc.__class__.__name__})"
    if r.returncode != 0:
        return f"{python} cannot import siconos (apt-get install python3-siconos)"
    if shutil.which("gcc") is None:
        return "gcc, needed for the Siconos model's plugin, is not on PATH"
    return None


def siconos_geometry() -> dict:
    """nlpmbd's own numbers of the case, in the names of siconos_slider_crank.TABLE1."""
    from nlpmbd_cases.slider_crank import CASE, GEOMETRY

    g = GEOMETRY
    defaults = {p.name: p.default for p in CASE.parameters}
    return dict(
        l1=g.crank_length, l2=g.rod_length, a=g.slider_length / 2, b=g.slider_width / 2,
        m1=g.crank_mass, m2=g.rod_mass, m3=g.slider_mass, J1=g.crank_inertia,
        J2=g.rod_inertia, J3=g.slider_inertia, g=defaults["g"], omega0=defaults["omega0"],
    )  # fmt: skip


def _env() -> dict:
    return {**os.environ, **BLAS_ENV}


def run_siconos(spec: Spec, t_end: float, python: str, physics: bool = False) -> dict:
    e, mu = (0.4, 0.01) if spec.variant == PAPER else (0.0, 0.0)
    cmd = [python, str(SCRIPT), "--h", repr(spec.h), "--t-end", repr(t_end)]
    cmd += ["--restitution", repr(e), "--mu", repr(mu), "--clearance", "1e-3"]
    cmd += ["--geometry", json.dumps(siconos_geometry())] + (["--physics"] if physics else [])
    r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=ROOT, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_nlpmbd(spec: Spec, t_end: float, physics: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="peer_siconos_") as tmp:
        out = Path(tmp) / "run"
        cmd = [sys.executable, "-m", "nlpmbd", "run", "slider_crank", "--h", repr(spec.h)]
        cmd += ["--t-end", repr(t_end), "--no-plot", "--quiet", "--force", "--out", str(out)]
        cmd += ["--solver", spec.solver]
        if spec.solver == "qp":
            cmd += ["--codegen", "on"]  # compiled once, cached: setup_time, not loop_time
        if spec.variant == SMOOTH:
            cmd += ["--set", "mu=0", "--set", "restitution=0"]
        subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=ROOT, check=True)
        meta = json.loads((out / "meta.json").read_text())
        row = {
            "setup_time": meta["setup_time"],
            "loop_time": meta["wall_time"] - meta["setup_time"],
            "steps": meta["summary"]["steps"],
        }
        if physics:
            row.update(nlpmbd_physics(out))
        return row


def nlpmbd_physics(out: Path) -> dict:
    import numpy as np

    from nlpmbd.io.result import SimulationResult
    from nlpmbd_joints.guide_data import crank_angle

    from .siconos_slider_crank import revolution_time

    r = SimulationResult.load(out)
    c = r.meta["parameters"].get("clearance", 1e-3)
    hit = np.flatnonzero(r.lam.max(axis=1) > IMPACT_FORCE)
    theta = crank_angle(r)
    pen = float(max(0.0, r.gap.max()))
    return {
        "first_impact": float(r.t[hit[0]]) if hit.size else None,
        "first_revolution": revolution_time(r.t, theta, 1),
        "two_revolutions": revolution_time(r.t, theta, 2),
        "max_penetration": pen,
        "max_penetration_c": pen / c,
        "max_penetration_uncorrected": float(max(0.0, r.gap_uncorrected.max())),
        "energy_start": float(r.energy[0, 2]),
        "energy_end": float(r.energy[-1, 2]),
    }


def specs(smooth: bool, nlp: bool) -> list[Spec]:
    """Siconos, nlpmbd's fast path and (paper variant, `nlp`) its NLP path, at h = 1e-5, 1e-4."""
    out = []
    for v in (PAPER, SMOOTH) if smooth else (PAPER,):
        for h in (1e-5, 1e-4):
            out += [Spec("siconos", h, v), Spec("nlpmbd", h, v, "qp")]
            if nlp and v == PAPER:
                out.append(Spec("nlpmbd", h, v, "nlp"))
    return out


def measure(args) -> dict[Spec, list[dict]]:
    """Every spec once per round, in the same order each round (A B A B ...)."""
    samples: dict[Spec, list[dict]] = {s: [] for s in specs(args.frictionless, args.nlp)}
    for k in range(args.rounds):
        for s in samples:
            if s.side == "siconos":
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
        peer = next(r for r in rows if r["side"] == "siconos" and r["variant"] == row["variant"]
                    and r["h"] == row["h"])  # fmt: skip
        row["ratio_to_siconos"] = row["per_step_us"] / peer["per_step_us"]
    return rows


def print_table(rows: list[dict], t_end: float, rounds: int) -> None:
    print(f"\nslider_crank, t_end = {t_end:g} s, medians of {rounds} interleaved rounds")
    print(f"{'run':<28} {'h':>6} {'steps':>6} {'per step':>11} {'wall/sim s':>11} "
          f"{'setup':>7} {'x Siconos':>9}")  # fmt: skip
    for r in rows:
        print(
            f"{r['run']:<28} {r['h']:>6g} {r['steps']:>6d} {r['per_step_us']:>8.1f} us "
            f"{r['wall_per_sim_s']:>9.2f} s {r['setup_s']:>5.2f} s {r['ratio_to_siconos']:>9.1f}"
        )


def physics(args) -> dict:
    """One two-turn run of each side at h = 1e-5 (paper variant)."""
    t_end, out = args.physics_t_end, {}
    print(f"\nphysics, h = 1e-5, t_end = {t_end:g} s (one run each)")
    out["siconos"] = run_siconos(Spec("siconos", 1e-5), t_end, args.siconos_python, True)
    out["nlpmbd qp"] = run_nlpmbd(Spec("nlpmbd", 1e-5), t_end, True)
    out["nlpmbd qp 1e-4"] = run_nlpmbd(Spec("nlpmbd", 1e-4), t_end, True)
    print(f"{'':<15} {'1st impact':>11} {'1st rev':>10} {'2 revs':>10} {'max pen':>10} "
          f"{'pen/c':>7} {'loop':>8}")  # fmt: skip
    for side, r in out.items():
        ms = [f"{1e3 * r[k]:8.3f} ms" if r[k] is not None else f"{'-':>11}"
              for k in ("first_impact", "first_revolution", "two_revolutions")]  # fmt: skip
        print(f"{side:<15} {ms[0]:>11} {ms[1]:>10} {ms[2]:>10} {r['max_penetration']:>10.2e} "
              f"{r['max_penetration_c']:>7.4f} {r['loop_time']:>6.1f} s")  # fmt: skip
    return out


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
    ap.add_argument("--physics", action="store_true", help="add one two-turn run of each")
    ap.add_argument("--physics-t-end", type=float, default=0.14, help="s; two turns ~0.138")
    ap.add_argument("--json", type=Path, help="write the numbers to this file")
    ap.add_argument("--siconos-python", default=SICONOS_PYTHON, help="interpreter with siconos")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    missing = siconos_missing(args.siconos_python)
    if missing:
        print(f"peer_siconos: skipped, {missing}")
        return 0
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
