"""`python -m benchmarks.backlash_figure [--out docs/backlash.png]`: stops and backlash on ideal
joints (issue 32 item 1) against the event-driven reference (references/ref_backlash.py).

Left: `nlpmbd run pendulum --set joint=backlash --h-min 1e-5` (play +-0.3 rad, e = 0.5), the
angle against the reference's, to rest on the lower stop. Right: `nlpmbd run gear_backlash`
(gear rattle), the teeth's travel s = r1 phi1 + r2 phi2 inside the backlash. Prints the impact
time errors the tests assert (tests/test_backlash.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.reference_problems.contact_runs import run_case
from references import ref_backlash as ref

B = 0.3  # the pendulum's play, rad
HALF = 1e-3  # half the gears' backlash, m


def _impact_errors(result, motion, column: int, name: str, v_min: float) -> np.ndarray:
    on = result.lam[:, column] > 0
    ours = result.t[np.nonzero(on[1:] & ~on[:-1])[0] + 1]
    theirs = [t for t, which, sd in motion.impacts if which == name and abs(sd) > v_min]
    return np.array([np.min(np.abs(ours - t)) for t in theirs])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/backlash.png"))
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params = {"joint": "backlash", "backlash": B, "restitution": 0.5}
    pend = run_case("pendulum", params, h_min=1e-5, t_end=1.0).result
    stops = ref.pendulum(mass=1.0, L=0.5, I_O=0.085 + 0.25, g=9.81, backlash=B, e=0.5)
    p_ref = ref.simulate(stops, np.zeros(1), np.zeros(1), 1.0)
    gear = run_case("gear_backlash").result
    pair = ref.gears(r1=0.05, r2=0.1, J1=1e-3, J2=4e-3, b=2 * HALF, e=0.5, T0=0.02, f=2.0)
    g_ref = ref.simulate(pair, np.zeros(2), np.zeros(2), 1.0)
    errors = _impact_errors(pend, p_ref, 1, "lower", 0.1)
    print(f"pendulum: {errors.size} impacts, max time error {errors.max():.2e} s")
    both = [_impact_errors(gear, g_ref, k, n, 1e-3) for k, n in ((0, "upper"), (1, "lower"))]
    errors = np.concatenate(both)
    print(f"gear_backlash: {errors.size} impacts, max time error {errors.max():.2e} s")

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    t = np.linspace(0, 1.0, 2001)
    left.plot(t, p_ref.state(t)[:, 0], "k-", lw=2.5, alpha=0.35, label="event-driven reference")
    left.plot(pend.t, -pend.gap[:, 1] - B, "C0-", lw=1, label="nlpmbd (verlet, h_min 1e-5)")
    left.axhline(-B, color="C3", lw=0.8, ls="--", label="stops +-b")
    left.axhline(B, color="C3", lw=0.8, ls="--")
    left.set(xlabel="t (s)", ylabel="joint angle phi (rad)", title="pendulum, joint=backlash")
    left.legend(fontsize=8, loc="center right")
    x = g_ref.state(t)[:, :2]
    right.plot(t, 1e3 * (x @ pair.c), "k-", lw=2.5, alpha=0.35, label="event-driven reference")
    s = gear.gap[:, 0] + HALF  # the drive gap is s - b/2
    right.plot(gear.t, 1e3 * s, "C0-", lw=1, label="nlpmbd")
    for y in (-HALF, HALF):
        right.axhline(1e3 * y, color="C3", lw=0.8, ls="--")
    right.set(xlabel="t (s)", ylabel="teeth travel s (mm)", title="gear_backlash (rattle)")
    right.set_ylim(-1.6, 1.2)
    right.legend(fontsize=8, loc="lower center", ncol=2)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
