"""`python -m benchmarks.work_precision [--out docs/work_precision.png] [--case revolute]`:
error against wall time on an impact case (issue 16), one line per step-size strategy.

Case `revolute` (the paper's clearance pendulum: pin impacts, free flight through the
clearance, sustained contact), 0.25 s: from about 0.3 s on the pendulum's axial bounce between
its stops (play 0.1 mm) is so sensitive that runs at every h, of either scheme, differ from the
reference by up to the play itself, whatever their accuracy before. Error: max over time of
the largest body-position difference from a fine run (verlet, h = 1e-5; the euler fine run's
distance from it is printed as the reference's own uncertainty), the reference interpolated
linearly to each run's times. Strategies:

- fixed h, `--integrator euler` and `--integrator verlet` (QP path, chunks not compiled);
- the paper's NLP-chosen h in [h/10, h] (`--integrator euler`, NLP path);
- the controller of `--integrator verlet` at error_tol 1e-3 .. 1e-6 m (SecondOrderController).

Prints each run (error, steps, wall time) and, per accuracy, the steps the controller needs
against the best fixed h; writes the log-log figure.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case

from .convergence import save_loglog

T_END = 0.25


def _run(case: str, **opts):
    system, _ = get_case(case).build({})
    tic = time.perf_counter()
    res = simulate(system, SimulationOptions(t_end=T_END, codegen="off", **opts))
    return res, time.perf_counter() - tic


def _error(res, ref) -> float:
    n = res.q.shape[1] // 7
    worst = 0.0
    for k in range(n):
        for i in range(3):
            r = np.interp(res.t, ref.t, ref.q[:, 7 * k + i])
            worst = max(worst, float(np.max(np.abs(res.q[:, 7 * k + i] - r))))
    return worst


def runs(case: str) -> dict:
    ref, _ = _run(case, h_min=1e-5, h_max=1e-5, solver="qp", integrator="verlet")
    other, _ = _run(case, h_min=1e-5, h_max=1e-5, solver="qp")
    print(f"{case}, {T_END} s; fine references (h = 1e-5) differ by {_error(other, ref):.2e} m")
    out: dict = {}

    def add(name: str, res, wall: float) -> None:
        row = (_error(res, ref), res.n_steps, wall)
        out.setdefault(name, []).append(row)
        print(f"  {name:<28} error {row[0]:.3e} m  steps {row[1]:>6}  wall {wall:6.2f} s")

    for h in (1e-3, 5e-4, 2e-4, 1e-4, 5e-5):
        for scheme in ("euler", "verlet"):
            res, wall = _run(case, h_min=h, h_max=h, solver="qp", integrator=scheme)
            add(f"fixed h, {scheme}", res, wall)
    for h in (1e-3, 5e-4, 2e-4):
        res, wall = _run(case, h_min=h / 10, h_max=h)
        add("NLP-chosen h (paper), euler", res, wall)
    for tol in (1e-3, 1e-4, 1e-5, 1e-6):
        res, wall = _run(
            case, h_min=1e-6, h_max=2e-3, solver="qp", step_control="controller",
            error_tol=tol, integrator="verlet",
        )  # fmt: skip
        add("controller, verlet", res, wall)
    return out


def steps_at_equal_error(out: dict) -> None:
    """For each controller run, the steps the best fixed-h run needs for the same error
    (log-log interpolation between the fixed-h runs)."""
    fixed = sorted(out["fixed h, verlet"] + out["fixed h, euler"], key=lambda r: r[1])
    for err, steps, _ in out["controller, verlet"]:
        good = [s for e, s, _ in fixed if e <= err]
        best = min(good) if good else None
        ratio = f"{best / steps:.1f}x" if best else "none of the fixed h reaches it"
        print(f"  controller error {err:.2e} m in {steps} steps; best fixed h: {best} ({ratio})")


def figure(out: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for (name, rows), mark in zip(out.items(), ("o-", "s-", "^-", "D-"), strict=False):
        e, _, w = np.array(rows).T
        ax.loglog(w, e, mark, label=name)
    ax.set(xlabel="wall time (s)", ylabel="max position error (m)")
    ax.set_title(f"work-precision, revolute clearance pendulum, {T_END} s", fontsize=10)
    save_loglog(fig, (ax,), path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.work_precision")
    p.add_argument("--out", type=Path, default=Path("docs/work_precision.png"))
    p.add_argument("--case", default="revolute")
    args = p.parse_args(argv)
    out = runs(args.case)
    steps_at_equal_error(out)
    figure(out, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
