"""Issue 31, item 8: Housner's rocking block (e = 0, sticking friction) against Housner's
angular-velocity ratio 1 - 1.5 sin^2(alpha) at each corner switch (a closed form).

`python -m benchmarks.reference_problems.rocking_block` prints the numbers, draws
docs/reference_problems/rocking_block.png and writes docs/reference_problems/rocking_block.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .contact_runs import DOCS, Run, failed_steps, run_case, write_page

G = 9.81
ALPHA = float(np.arctan2(0.2, 0.6))  # the case's default block
HOUSNER = 1 - 1.5 * np.sin(ALPHA) ** 2


@dataclass
class Switch:
    t: float  # s, when the block is level
    before: float  # angular velocity just before (rad/s)
    after: float  # just after

    @property
    def ratio(self) -> float:
        return self.after / self.before


def switches(run: Run) -> list[Switch]:
    """Corner switches: runs of steps whose contact force is impulsive (above 3 m g; the
    resting corner carries about m g), each over the steps of its impulse; the velocities
    on either side are taken to the instant the block is level (tilt 0) along the steps next
    to them (gravity's part)."""
    r = run.result
    t, w = r.t, r.v[:, 5]
    tilt = 2 * np.arctan2(r.q[:, 6], r.q[:, 3])
    hit = np.flatnonzero(r.lam.max(axis=1) > 3 * G)  # row k: the step ending at t[k]
    out = []
    for group in np.split(hit, np.flatnonzero(np.diff(hit) > 1) + 1):
        a, b = int(group[0]), int(group[-1])
        if a < 2 or b + 1 >= len(t):
            continue
        window = tilt[a - 2 : b + 2]
        level_at = np.flatnonzero(np.sign(window[:-1]) != np.sign(window[1:]))
        if level_at.size == 0:  # an impulse without a switch (a corner's bounce of creep)
            continue
        k = a - 2 + int(level_at[0])
        level = t[k] + (t[k + 1] - t[k]) * tilt[k] / (tilt[k] - tilt[k + 1])

        def line(i: int, j: int, s: float = level) -> float:
            return float(w[i] + (w[j] - w[i]) / (t[j] - t[i]) * (s - t[i]))

        out.append(Switch(float(level), line(a - 2, a - 1), line(b, b + 1)))
    return out


def pivot_slip(run: Run) -> float:
    """Largest speed (m/s) along the floor of a corner that carries the block between impacts."""
    r = run.result
    b, h = 0.1, 0.3
    tilt = 2 * np.arctan2(r.q[:, 6], r.q[:, 3])
    worst = 0.0
    for j, sx in enumerate((-b, b)):
        # corner velocity x: vx - omega * (A s)_y with A s = (sx cos - (-h) sin, ...)
        sy = sx * np.sin(tilt) - h * np.cos(tilt)
        vx = r.v[:, 0] - r.v[:, 5] * sy
        resting = (r.lam[:, j] > 0.1 * G) & (r.lam[:, j] < 3 * G)
        worst = max(worst, float(np.abs(vx[resting]).max(initial=0.0)))
    return worst


def runs() -> dict[str, Run]:
    out = {"default": run_case("rocking_block")}
    for h_min in (1e-4, 1e-6):
        out[f"h_min = {h_min:g}"] = run_case("rocking_block", h_min=h_min)
    return out


def table(results: dict[str, Run]) -> str:
    rows = [
        "| run | switches | max \\|ratio - Housner\\|, first 5 "
        "| same, while \\|omega\\| > 0.1 rad/s | resting corner's largest slip (m/s) "
        "| CPU s | steps | failed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, run in results.items():
        s = switches(run)
        err = np.array([abs(x.ratio - HOUSNER) for x in s])
        fast = np.array([abs(x.before) > 0.1 for x in s])
        rows.append(
            f"| {label} | {len(s)} | {err[:5].max():.1e} | {err[fast].max():.1e} | "
            f"{pivot_slip(run):.1e} | {run.cpu:.2f} | {run.result.n_steps} | "
            f"{failed_steps(run.result)} |"
        )
    return "\n".join(rows)


def figure(results: dict[str, Run], path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7))
    r = results["default"].result
    top.plot(r.t, r.v[:, 5], lw=1, label="nlpmbd default: omega")
    for s in switches(results["default"]):
        top.plot([s.t, s.t], [s.before, s.before * HOUSNER], "k-", lw=0.6)
    top.set(xlabel="t (s)", ylabel="angular velocity (rad/s)",
            title=f"rocking block, alpha = {np.degrees(ALPHA):.2f} deg: black, "
                  f"omega- to Housner's {HOUSNER:.4f} omega-")  # fmt: skip
    top.legend(fontsize=8)
    for label, run in results.items():
        s = switches(run)
        err = [max(abs(x.ratio - HOUSNER), 1e-9) for x in s]
        bottom.semilogy(range(1, len(s) + 1), err, "o-", ms=3, label=f"nlpmbd {label}")
    bottom.set(xlabel="corner switch", ylabel="|omega+ / omega- - (1 - 1.5 sin^2 alpha)|")
    bottom.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    results = runs()
    text = table(results)
    print(text)
    DOCS.mkdir(parents=True, exist_ok=True)
    figure(results, DOCS / "rocking_block.png")
    print(write_page("rocking_block", "Housner's rocking block", text + NOTES, PROBLEM, REFERENCE))


PROBLEM = """
A 0.2 m wide, 0.6 m tall block of 1 kg (alpha = atan(b / h) = 18.43 deg) tilted by 0.1 rad
onto its right corner and released at rest; its two bottom corners are a `PlaneContact` with
e = 0 and mu = 1 (sticking), the motion planar (case `rocking_block`, `nlpmbd run
rocking_block`). It rocks from corner to corner for 2 s, losing energy at each switch.
"""
REFERENCE = """
Housner (1963), "The behavior of inverted pendulum structures during earthquakes", Bull.
Seismol. Soc. Am. 53(2): at a corner switch without bounce or slip, angular momentum about the
landing corner is kept, and omega+ / omega- = 1 - 1.5 sin^2(alpha) = 0.85 for this block (a
closed form; no peer program's run). No CPU time to compare.
"""
NOTES = """

`default` is `nlpmbd run rocking_block` with no flags: the error controller in [1e-5, 1e-3] s,
the second-order scheme (no restitution: the engine's default), the QP path with friction.
Ratios are taken between the angular velocities on either side of each switch's impulsive
steps, carried to the instant the block is level along the neighbouring steps.

- The ratio is Housner's to 2e-4 at the first switches with the defaults and to 2e-5 with
  h_min = 1e-6 (7e-4 and 1e-4 over all switches while |omega| > 0.1 rad/s): the impact is a
  velocity-level step, applied while the landing corner is up to h_min |v| above the floor,
  so the ratio is off by O(h_min) in absolute angular velocity (about 1e-4 rad/s at
  h_min = 1e-5), a relative error that grows as the rocking dies out.
- A switch is resolved to the step the controller takes there, h_min at the strong ones; the
  last, weak switches (|omega| < 0.1 rad/s) may be taken at a larger step where the error
  estimate of the impact step stays below its rejection threshold.
- No corner slips: the resting corner moves along the floor at most at the creep speed of the
  smoothed friction law (docs/method/contact.md: eps = 1e-7 m/s).
"""

if __name__ == "__main__":
    main()
