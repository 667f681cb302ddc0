"""The source papers' comparisons, with numbers and figures (issue 6); never run by the tests.

    python -m benchmarks.paper_cases [--out results/paper_cases]

1. slider_crank (Flores, Leine, Glocker) against the Moreau midpoint LCP reference of
   tests/ref_slider_crank_lcp.py: first impact, start of permanent contact, two revolutions,
   wall times; the dimensionless corner paths side by side (slider_crank_corners.png).
2. slider_crank_driven (Flores et al. 2008) clearance sweep, hard and compliant contact, two
   crank turns: peak crank moments against the ideal joint, wall times; crank moment and
   Poincare figures per contact law.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd_joints.guide_data import crank_angle, dimensionless_corners, permanent_contact_angle
from nlpmbd_joints.guide_figures import crank_moment_figure, poincare_figure
from references import ref_slider_crank_lcp as lcp


def _run(name, overrides, t_end, h):
    system, _ = get_case(name).build(overrides)
    tic = time.perf_counter()
    r = simulate(system, SimulationOptions(t_end=t_end, h_min=h, h_max=h))
    return r, time.perf_counter() - tic


def slider_crank(out: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    h, c = 1e-5, 1e-3
    r, wall = _run("slider_crank", {}, 0.14, h)
    k = int(np.argmax(r.lam.max(axis=1) > 1e-6))
    g0, g1 = r.gap[k - 1].max(), r.gap[k - 2].max()
    impact = r.t[k - 1] + min(max(-g0 / ((g0 - g1) / h), 0.0), h)
    theta = crank_angle(r)
    j = int(np.argmax(theta >= 4 * np.pi))
    t2 = r.t[j - 1] + (4 * np.pi - theta[j - 1]) / (theta[j] - theta[j - 1]) * h
    print("slider_crank vs Moreau LCP (first impact ms, permanent contact deg, 2 revs ms, wall s)")
    print(
        f"  nlpmbd  h={h:g}: {impact * 1e3:.4f}  "
        f"{math.degrees(permanent_contact_angle(r, c)):.2f}  {t2 * 1e3:.3f}  {wall:.1f}"
    )
    refs = {}
    for hr in (1e-5, 1e-6):
        ref = lcp.simulate(hr)
        refs[hr] = ref
        print(
            f"  LCP     h={hr:g}: {lcp.first_impact_time(ref) * 1e3:.4f}  "
            f"{math.degrees(lcp.permanent_contact_angle(ref)):.2f}  "
            f"{lcp.revolution_time(ref, 2) * 1e3:.3f}  {ref.wall_time:.1f}"
        )
    p = lcp.PARAMS
    stroke = (p.l2 - p.l1, p.l1 + p.l2)
    X, Y = dimensionless_corners(
        r, "slider", clearance=c, half_width=p.b, half_length=p.a, stroke=stroke
    )
    RX, RY = lcp.corner_paths(refs[1e-5])
    fig = Figure(figsize=(12, 4.5))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (xs, ys), title in (
        (axes[0], (X, Y), "nlpmbd (NLP per step, h = 1e-5 s)"),
        (axes[1], (RX, RY), "Moreau midpoint LCP (h = 1e-5 s)"),
    ):
        for i in range(xs.shape[1]):
            ax.plot(xs[:, i], ys[:, i], lw=0.6)
        for y in (-1, 1):
            ax.axhline(y, ls="--", color="0.5")
        ax.set_title(title)
        ax.set_xlabel("dimensionless slider position")
    axes[0].set_ylabel("corner lateral position / c")
    fig.tight_layout()
    fig.savefig(out / "slider_crank_corners.png", dpi=120)
    print(f"  figure: {out / 'slider_crank_corners.png'}")


def sweep(out: Path) -> None:
    h, t_end = 1e-5, 0.024
    ideal, wall = _run("slider_crank_driven", {"guide": "ideal"}, t_end, h)
    after = ideal.t > 1e-3
    peak0 = np.abs(ideal.driving_load("drive")[after]).max()
    print(
        f"slider_crank_driven sweep, 2 turns, h = {h:g}: ideal peak {peak0:.1f} N m ({wall:.1f} s)"
    )
    for guide in ("hard", "compliant"):
        runs = [("ideal", ideal)]
        for c in (0.5e-3, 0.2e-3, 0.1e-3, 0.01e-3):
            r, wall = _run("slider_crank_driven", {"guide": guide, "clearance": c}, t_end, h)
            peak = np.abs(r.driving_load("drive")[after]).max()
            print(f"  {guide:9s} c = {c * 1e3:5.2f} mm: peak {peak:8.1f} N m  wall {wall:5.1f} s")
            runs.append((f"c = {c * 1e3:g} mm", r))
        for name, fig in (
            ("crank_moment", crank_moment_figure(runs)),
            ("poincare", poincare_figure(runs[1:], clearance=0.5e-3)),
        ):
            fig.savefig(out / f"sweep_{guide}_{name}.png", dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/paper_cases")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    slider_crank(out)
    sweep(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
