"""`python -m benchmarks.convergence [--out docs/convergence.png] [--quick]`: the two schemes'
order of convergence (issue 16).

- Ideal pendulum (the peers' parameters, 10 s): max angle error against the minimal-coordinate
  scipy ODE (rtol 1e-12) at a ladder of fixed h, `--integrator euler` and `--integrator verlet`.
- Free body (10 s, torque-free flip): relative drift of the energy and of the global angular
  momentum, which the true motion conserves.
- `revolute` (clearance pin, impacts) and `slider_crank` (guide clearance, friction): max body
  position difference at h = 1e-4 (and 2e-4) against a fine-step run (verlet, h = 1e-5); the
  spread between the two schemes' fine runs is printed as the reference's own uncertainty.

Prints the tables and writes a log-log figure with slope-1 and slope-2 markers.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.rotation import rotation_matrix
from tests.fixtures import pendulum_theta_reference  # the scipy minimal-coordinate ODE

SCHEMES = ("euler", "verlet")
#: the peers' errors on the same pendulum at h = 1e-3, 10 s, as issue 16 reports them (not re-run)
PEERS = {"Exudyn generalized-alpha": 3.02e-4, "MuJoCo semi-implicit Euler": 3.01e-3}


def _run(case: str, h: float, scheme: str, t_end: float | None = None, **params):
    spec = get_case(case)
    system, _ = spec.build(params)
    opts = {"h_min": h, "h_max": h, "integrator": scheme, "solver": "qp", "codegen": "off"}
    opts["t_end"] = spec.t_end if t_end is None else t_end
    tic = time.perf_counter()
    res = simulate(system, SimulationOptions(**opts))
    return res, time.perf_counter() - tic, system


def pendulum_errors(hs: list[float], t_end: float) -> dict:
    ref = pendulum_theta_reference(t_end)
    out: dict = {s: [] for s in SCHEMES}
    for h in hs:
        for s in SCHEMES:
            res, wall, _ = _run("pendulum", h, s, t_end)
            theta = np.unwrap(np.arctan2(res.q[:, 1], res.q[:, 0]))
            out[s].append((h, float(np.max(np.abs(theta - ref(res.t)))), wall))
            print(f"  pendulum {s:<6} h={h:<8g} error {out[s][-1][1]:.3e} rad  wall {wall:.2f} s")
    return out


def free_body_drift(hs: list[float], t_end: float) -> dict:
    out: dict = {s: [] for s in SCHEMES}
    for h in hs:
        for s in SCHEMES:
            res, _, system = _run("free_body", h, s, t_end)
            J = system.bodies[0].inertia
            pairs = zip(res.q, res.v, strict=True)
            L = np.array([rotation_matrix(q[3:7]) @ J @ v[3:6] for q, v in pairs])
            E = res.energy[:, 2]
            dE = float(np.max(np.abs(E - E[0])) / E[0])
            dL = float(np.max(np.linalg.norm(L - L[0], axis=1)) / np.linalg.norm(L[0]))
            out[s].append((h, dE, dL))
            print(f"  free body {s:<6} h={h:<8g} energy drift {dE:.2e}  |L| drift {dL:.2e}")
    return out


def mechanism_errors(case: str, hs: list[float], t_end: float) -> dict:
    """Max body-position difference (m) against the fine-step verlet run at h = 1e-5."""
    fine = {s: _run(case, 1e-5, s, t_end)[0] for s in SCHEMES}
    ref = fine["verlet"]

    def diff(res) -> float:
        n = ref.q.shape[0] - 1
        k = round(n / (res.q.shape[0] - 1))
        r_ref = ref.q[::k, :].reshape(res.q.shape[0], -1, 7)[:, :, :3]
        return float(np.max(np.abs(res.q.reshape(res.q.shape[0], -1, 7)[:, :, :3] - r_ref)))

    spread = diff(fine["euler"])
    print(f"  {case}: fine-step references (h = 1e-5) differ by {spread:.2e} m")
    out: dict = {s: [] for s in SCHEMES}
    for h in hs:
        for s in SCHEMES:
            res, wall, _ = _run(case, h, s, t_end)
            out[s].append((h, diff(res), wall))
            print(f"  {case} {s:<6} h={h:<8g} error {out[s][-1][1]:.3e} m  wall {wall:.2f} s")
    out["spread"] = spread
    return out


def _slope(ax, h0: float, e0: float, order: int, label: str) -> None:
    hs = np.array([h0, h0 * 4])
    ax.loglog(hs, e0 * (hs / h0) ** order, "k:", lw=1)
    ax.text(hs[1], e0 * 4**order, label, fontsize=8, va="bottom")


def figure(pend: dict, free: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for s, mark, color in zip(SCHEMES, ("o-", "s-"), ("C0", "C1"), strict=True):
        h, e, _ = np.array(pend[s]).T
        a.loglog(h, e, mark, color=color, label=f"--integrator {s}")
        h, dE, dL = np.array(free[s]).T
        b.loglog(h, dL, mark, color=color, label=f"{s}: angular momentum")
        b.loglog(h, dE, mark.replace("-", "--"), color=color, mfc="none", label=f"{s}: energy")
    h, e, _ = np.array(pend["verlet"]).T
    _slope(a, h[-1], e[-1] / 3, 2, "slope 2")
    h, e, _ = np.array(pend["euler"]).T
    _slope(a, h[-1], e[-1] * 2, 1, "slope 1")
    for (name, err), mark in zip(PEERS.items(), ("kD", "kv"), strict=True):
        a.loglog([1e-3], [err], mark, mfc="none", label=name)
    a.set(xlabel="h (s)", ylabel="max angle error over 10 s (rad)", title="ideal pendulum")
    b.set(xlabel="h (s)", ylabel="max relative drift over 10 s", title="free body (flip)")
    save_loglog(fig, (a, b), out)


def save_loglog(fig, axes, path: Path) -> None:
    """Grid, plain minor ticks and legends on log-log axes; the figure written to `path`."""
    from matplotlib.ticker import NullFormatter

    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    print(f"figure: {path}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.convergence")
    p.add_argument("--out", type=Path, default=Path("docs/convergence.png"))
    p.add_argument("--quick", action="store_true", help="fewer steps sizes, shorter runs")
    args = p.parse_args(argv)
    hs = [4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4] if not args.quick else [2e-3, 1e-3]
    print(f"ideal pendulum, 10 s, QP path, h = {hs}")
    pend = pendulum_errors(hs, 10.0)
    print("free body, 10 s")
    free = free_body_drift(hs[:4], 10.0)
    for case, t_end in (("revolute", 0.5), ("slider_crank", 0.05)):
        mechanism_errors(case, [2e-4, 1e-4] if not args.quick else [1e-4], t_end)
    figure(pend, free, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
