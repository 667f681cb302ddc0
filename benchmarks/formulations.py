"""Implicit vs MPCC step formulation (IPOPT on every step: no QP predictor): median ms/step
and mean IPOPT iterations on the ideal pendulum (no contacts) and on box_drop (8 unilateral
contacts, 1 s).

Run: python -m benchmarks.formulations [--repeats 3] [--t-end 2]
BLAS threads are pinned to 1; each figure is the median over the repeats, and the MPCC/implicit
ratio is taken within the same repeat so that machine noise cancels.
"""

from __future__ import annotations

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import argparse  # noqa: E402
import platform  # noqa: E402

import numpy as np  # noqa: E402

from nlpmbd import SimulationOptions, simulate  # noqa: E402
from nlpmbd.apps.registry import get_case  # noqa: E402

RUNS = (
    ("pendulum", 1e-3, 1e-3),
    ("pendulum", 2e-4, 2e-4),
    ("pendulum", 1e-3, 2e-3),
    ("pendulum", 2e-4, 1e-3),
    ("box_drop", 1e-3, 1e-3),
    ("box_drop", 1e-3, 2e-3),
)


def measure(
    case: str, form: str, h_min: float, h_max: float, t_end: float
) -> tuple[float, float, float]:
    system, _ = get_case(case).build({})
    res = simulate(
        system,
        SimulationOptions(t_end=t_end, h_min=h_min, h_max=h_max, formulation=form, predictor=False),
    )
    return (
        1e3 * float(np.median(res.solve_time)),
        float(res.iterations.mean()),
        float(res.eom_residual.max()),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--t-end", type=float, default=2.0)
    args = ap.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; t_end = {args.t_end} s (box_drop: 1 s), "
        f"median of {args.repeats}"
    )
    print(
        "| case | h range (s) | implicit ms/step | implicit iter | MPCC ms/step | MPCC iter | "
        "MPCC/implicit time | max EoM residual |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for case, h_min, h_max in RUNS:
        t_end = 1.0 if case == "box_drop" else args.t_end
        rows = {"implicit": [], "mpcc": []}
        ratios, eom = [], 0.0
        for _ in range(args.repeats):
            for form in rows:
                rows[form].append(measure(case, form, h_min, h_max, t_end))
            ratios.append(rows["mpcc"][-1][0] / rows["implicit"][-1][0])
            eom = max(eom, rows["implicit"][-1][2], rows["mpcc"][-1][2])
        med = {f: np.median(np.array(r), axis=0) for f, r in rows.items()}
        print(
            f"| {case} | [{h_min:g}, {h_max:g}] | {med['implicit'][0]:.3f} | "
            f"{med['implicit'][1]:.2f} | "
            f"{med['mpcc'][0]:.3f} | {med['mpcc'][1]:.2f} | {np.median(ratios):.2f} | {eom:.1e} |"
        )


if __name__ == "__main__":
    main()
