"""`python -m benchmarks.flexible_slider [trend|corners|qualitative|cost|all]`: issue 18's
acceptance numbers for the flexible slider of Zheng and Wang ([R5] of docs/FORMULATION.md).

- trend: `stick_slip --set slider=flexible` at E = 1e3, 1e4, 1e5 Pa against the rigid slider
  under the same loads (`force_from=top`, `start=seated`), 40 s on the QP path: the largest and
  the RMS distance of the slider's centre of mass (mean node x) from the rigid one's, the share
  of time it sticks (|v| < 1e-4 m/s) and the peak friction while sticking.
- corners: the forces on the two lower corners at t = 0.3 s, while the slider sticks, from the
  NLP and the QP path: the rigid slider's friction split between its corners is statically
  indeterminate (each path picks its own), the flexible slider's (E = 1000 Pa) is determined
  (both paths give the same forces).
- qualitative: from the 40 s oscillator (E = 1000) and the 200 s slider-crank (4 elements, and
  rigid): stick and slip in both, the upper nodes between the corners never touching in the
  oscillator (their closest approach to the upper face), only the lower face in contact in the
  slider-crank's second half, and the peak static friction of the flexible slider against the
  rigid one's.
- cost: wall time of the stepping per simulated second (result meta "wall_time" less "setup_time",
  over t_end; the setup, graph building and C compilation, is printed apart) of
  `slider_crank_moment --set slider=flexible` with 4 and 8 elements and of the rigid slider (the
  baseline), medians of 3 interleaved runs of 30 s each in one process (30000 steps: compiled
  chunks) (the paper: 155 s and 415 s of CPU for 200 s simulated).
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd_cases import REGISTRY

H = 2e-3  # the oscillator's step (the case's)


def _run(case: str, params: dict, t_end: float, solver: str = "qp", h: float = H):
    system = REGISTRY[case].build(params)[0]
    opts = SimulationOptions(t_end=t_end, h_min=h, h_max=h, solver=solver)
    return simulate(system, opts)


def _centre(r) -> tuple[np.ndarray, np.ndarray]:
    """(x - x0, x velocity) of the slider's centre: mean node, or the rigid slider's CoM."""
    if r.node_q.shape[1]:
        return r.node_q[:, :, 0].mean(1) - r.node_q[0, :, 0].mean(), r.node_v[:, :, 0].mean(1)
    k = r.body_names.index("slider")
    return r.q[:, 7 * k] - r.q[0, 7 * k], r.v[:, 6 * k]


def _stick(r) -> tuple[float, float]:
    """(share of time sticking, peak |summed friction| while sticking)."""
    _, v = _centre(r)
    stick = np.abs(v) < 1e-4
    friction = r.friction_force[:, :, 0].sum(1)
    return float(stick.mean()), float(np.abs(friction[stick]).max(initial=0.0))


def trend(t_end: float = 40.0) -> dict:
    rigid = _run("stick_slip", {"force_from": "top", "start": "seated"}, t_end)
    x0, _ = _centre(rigid)
    print(f"stick_slip, {t_end:g} s, QP path: distance of the slider from the rigid one")
    print("| slider | max distance (m) | RMS distance (m) | sticking | peak static friction (N) |")
    print("|---|---|---|---|---|")
    share, peak = _stick(rigid)
    print(f"| rigid | 0 | 0 | {share:.3f} | {peak:.4f} |")
    out = {"rigid": rigid}
    for E in (1e3, 1e4, 1e5):
        r = _run("stick_slip", {"slider": "flexible", "youngs_modulus": E}, t_end)
        d = np.interp(rigid.t, r.t, _centre(r)[0]) - x0
        share, peak = _stick(r)
        rms = float(np.sqrt(np.mean(d**2)))
        print(f"| E = {E:.0e} Pa | {np.abs(d).max():.3e} | {rms:.3e} | {share:.3f} | {peak:.4f} |")
        out[E] = r
    return out


def _corners(r, t: float) -> list[float]:
    """[normal, friction] of the lower-left and lower-right corners at time t."""
    i = int(np.argmin(np.abs(r.t - t)))
    if r.node_q.shape[1]:
        lower = r.meta["flexible"][0]["faces"]["lower"]
        f = r.node_force[i, [lower[0], lower[-1]]]
        return [f[0, 1], f[0, 0], f[1, 1], f[1, 0]]
    labels = r.meta["contact_labels"]
    cols = [labels.index(f"guide.{c}") for c in ("back_lower", "front_lower")]
    return [v for c in cols for v in (r.contact_force[i, c, 1], r.friction_force[i, c, 0])]


def corners(t: float = 0.3) -> None:
    print(f"\nlower corners at t = {t} s (sticking): normal N, friction N, left then right")
    print("| slider | path | N left | f left | N right | f right |")
    print("|---|---|---|---|---|---|")
    for name, params in (
        ("rigid", {"force_from": "top", "start": "seated"}),
        ("flexible E = 1000 Pa", {"slider": "flexible"}),
    ):
        for solver in ("nlp", "qp"):
            r = _run("stick_slip", params, t + 0.01, solver)
            values = " | ".join(f"{v:.5f}" for v in _corners(r, t))
            print(f"| {name} | {solver} | {values} |")


def _upper_gap(r, nodes: list[int]) -> float:
    """The closest approach (largest gap, m; < 0: open) of the given nodes to the upper face."""
    labels = r.meta["contact_labels"]
    cols = [labels.index(f"upper{k}.gap") for k in nodes]
    return float(r.gap[1:, cols].max())


def _longest(mask: np.ndarray) -> int:
    """The longest run of True in `mask`."""
    best = run = 0
    for x in mask:
        run = run + 1 if x else 0
        best = max(best, run)
    return best


def qualitative(oscillator=None, rigid=None, t_crank: float = 200.0) -> None:
    print("\nqualitative results")
    r = oscillator or _run("stick_slip", {"slider": "flexible"}, 40.0)
    rigid = rigid or _run("stick_slip", {"force_from": "top", "start": "seated"}, 40.0)
    upper = r.meta["flexible"][0]["faces"]["upper"]
    share, peak = _stick(r)
    share_r, peak_r = _stick(rigid)
    print(f"oscillator: sticking {share:.1%} of the time, slipping the rest")
    print("oscillator: closest approach of the upper nodes between the corners to the upper")
    print(f"  face {_upper_gap(r, upper[1:-1]):.3e} m; of the upper corners")
    print(f"  {_upper_gap(r, [upper[0], upper[-1]]):.3e} m")
    print(f"oscillator: peak static friction {peak:.4f} N flexible, {peak_r:.4f} N rigid")
    for params in ({"slider": "flexible", "elements": 4}, {}):
        crank = _run("slider_crank_moment", params, t_crank, h=1e-3)
        k = crank.body_names.index("crank")
        late = crank.t >= t_crank / 2
        w = crank.v[late, 6 * k + 5]
        name = "flexible, 4 elements" if params else "rigid"
        stuck = np.abs(w) < 1e-3
        print(f"slider-crank ({name}), t >= {t_crank / 2:g} s: crank at rest {stuck.mean():.1%}")
        rest = _longest(stuck) * 1e-3
        print(f"  of the time, longest rest {rest:.3f} s, |w| <= {np.abs(w).max():.3f} rad/s")
        friction = crank.friction_force[late][:, :, 0].sum(1)
        print(f"  peak friction while at rest {np.abs(friction[stuck]).max(initial=0):.4f} N")
        if params:
            faces = crank.meta["flexible"][0]["faces"]
            lower = np.abs(crank.node_force[late][:, faces["lower"], 1]).max()
            up = np.abs(crank.node_force[late][:, faces["upper"], 1]).max()
            print(f"  largest normal force on the upper face {up:.3g} N, lower face {lower:.3g} N")
            labels = crank.meta["contact_labels"]
            cols = [labels.index(f"upper{n}.gap") for n in faces["upper"]]
            print(f"  closest approach of the upper face {crank.gap[late][:, cols].max():.3e} m")


def cost(t_end: float = 30.0, repeats: int = 3) -> None:
    kinds = {
        "flexible, 4 elements": {"slider": "flexible", "elements": 4},
        "flexible, 8 elements": {"slider": "flexible", "elements": 8},
        "rigid (baseline)": {},
    }
    times: dict[str, list[float]] = {k: [] for k in kinds}
    setup: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(repeats):  # interleaved
        for name, params in kinds.items():
            r = _run("slider_crank_moment", params, t_end, h=1e-3)
            setup[name].append(float(r.meta["setup_time"]))
            times[name].append((float(r.meta["wall_time"]) - setup[name][-1]) / t_end)
    base = statistics.median(times["rigid (baseline)"])
    print(f"\nslider_crank_moment, QP path, h = 1 ms, {repeats} interleaved runs of {t_end:g} s")
    print("| slider | wall s per simulated s (median) | ratio to rigid | setup s (median) |")
    print("|---|---|---|---|")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"| {name} | {med:.3f} | {med / base:.2f} | {statistics.median(setup[name]):.2f} |")
    print("the paper: 155 s / 200 s = 0.78 (4 elements), 415 s / 200 s = 2.1 (8), CPU s per s")


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "all"
    if what in ("trend", "all"):
        runs = trend()
    if what in ("corners", "all"):
        corners()
    if what == "qualitative":
        qualitative()
    if what == "all":
        qualitative(runs[1e3], runs["rigid"])
    if what in ("cost", "all"):
        cost()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
