"""Issue 31, item 9: Painleve's rod (mu = 5/3) sliding into the configurations where sliding
contact has no solution, against the sliding mode's ODE and the closed-form tangential impact
(no peer program's data).

`python -m benchmarks.reference_problems.painleve` prints the numbers, draws
docs/reference_problems/painleve.png and writes docs/reference_problems/painleve.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from nlpmbd.errors import SolverFailure

from .contact_runs import DOCS, Run, failed_steps, run_case, write_page

M, L, G, MU = 1.0, 0.5, 9.81, 5 / 3  # L: the half length
INERTIA = M * L**2 / 3


def coefficient_b(theta: np.ndarray | float) -> np.ndarray | float:
    """B of the sliding end's normal acceleration A + B lambda (1/kg), sliding towards -X."""
    c, s = np.cos(theta), np.sin(theta)
    return (1 + 3 * c * c - 3 * MU * s * c) / M


def sliding_mode(angle: float, speed: float, t_end: float) -> dict[str, np.ndarray]:
    """The contact held and sliding (lambda = -A / B), from the case's start, until the slip
    stops or B reaches 1e-3 of its start: t, theta, the end's slip speed, lambda."""

    def rhs(_t: float, s: np.ndarray) -> np.ndarray:
        theta, w, vx = s[2], s[5], s[3]
        lam = -(-G + L * np.sin(theta) * w * w) / coefficient_b(theta)
        return np.array([vx, s[4], w, MU * lam / M, lam / M - G,
                         lam * L * (MU * np.sin(theta) - np.cos(theta)) / INERTIA])  # fmt: skip

    th0 = np.radians(angle)
    b0 = coefficient_b(th0)

    def stop(_t: float, s: np.ndarray) -> float:
        return min(-(s[3] + L * np.sin(s[2]) * s[5]), coefficient_b(s[2]) - 1e-3 * b0)

    stop.terminal = True  # type: ignore[attr-defined]
    start = [L * np.cos(th0), L * np.sin(th0), th0, -speed, 0.0, 0.0]
    sol = solve_ivp(rhs, (0, t_end), start, events=stop, rtol=1e-11, atol=1e-12, max_step=1e-5)
    th, w = sol.y[2], sol.y[5]
    lam = -(-G + L * np.sin(th) * w * w) / coefficient_b(th)
    return {"t": sol.t, "theta": th, "slip": sol.y[3] + L * np.sin(th) * w, "lam": lam}


def tangential_impact(angle: float, speed: float) -> tuple[float, float]:
    """The sticking impact that stops a slip of `speed` at `angle` with the end kept on the
    ground: (normal, tangential) impulse (N s); Coulomb holds if |P_T| <= mu P_N."""
    th = np.radians(angle)
    n = np.array([0.0, 1.0, -L * np.cos(th)])  # the end's height rate in (vx, vy, omega)
    w = np.array([1.0, 0.0, L * np.sin(th)])  # its slip rate
    W = np.array([n, w])
    A = W @ np.diag([1 / M, 1 / M, 1 / INERTIA]) @ W.T
    p = np.linalg.solve(A, -W @ np.array([-speed, 0.0, 0.0]))
    return float(p[0]), float(p[1])


@dataclass
class Rod:
    t: np.ndarray
    theta: np.ndarray
    slip: np.ndarray
    lam: np.ndarray
    impulse: np.ndarray  # per step, normal (N s)


def of_run(run: Run) -> Rod:
    r = run.result
    th = 2 * np.arctan2(r.q[:, 6], r.q[:, 3])
    slip = r.v[:, 0] + L * np.sin(th) * r.v[:, 5]
    h = np.append(0.0, r.h)  # row k of lam: the step ending at t[k]
    return Rod(r.t, th, slip, r.lam[:, 0], r.lam[:, 0] * h)


def arrival(rod: Rod) -> dict[str, float]:
    """Where the slip towards -X stops (slip > -1e-3 m/s): instant, angle, the normal impulse
    until then, the largest normal force and the impulse of its step."""
    k = int(np.flatnonzero(rod.slip > -1e-3)[0])
    j = int(np.argmax(rod.lam))
    return {
        "t": float(rod.t[k]),
        "theta": float(np.degrees(rod.theta[k])),
        "impulse": float(rod.impulse[: k + 1].sum()),
        "lam_max": float(rod.lam[j]),
        "step_impulse": float(rod.impulse[j]),
    }


def sliding_error(rod: Rod, ode: dict[str, np.ndarray]) -> float:
    """max |theta - theta_ODE| (rad) while the ODE's slip is above 0.5 m/s."""
    fast = np.abs(ode["slip"]) > 0.5
    ours = np.interp(ode["t"][fast], rod.t, rod.theta)
    return float(np.abs(ours - ode["theta"][fast]).max())


def runs() -> dict[str, Run | str]:
    out: dict[str, Run | str] = {"default": run_case("painleve")}
    for h in (1e-3, 1e-4, 1e-5):
        for scheme in ("verlet", "euler"):
            try:
                out[f"{scheme}, h = {h:g}"] = run_case(
                    "painleve", h_min=h, h_max=h, integrator=scheme
                )
            except SolverFailure as err:  # recorded, not hidden
                out[f"{scheme}, h = {h:g}"] = str(err)
    for h in (1e-3, 1e-4, 1e-5):
        out[f"inside: 55 deg, 1 m/s, h = {h:g}"] = run_case(
            "painleve", {"angle": 55.0, "speed": 1.0}, h_min=h, h_max=h
        )
    return out


def table(results: dict[str, Run | str], ode: dict[str, np.ndarray]) -> str:
    rows = [
        "| run | slip stops at (s) | at theta (deg) | normal impulse to then (N s) "
        "| largest lambda (N) | its step's impulse (N s) | max \\|theta - ODE\\| sliding (rad) "
        "| CPU s | steps | failed |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, run in results.items():
        if isinstance(run, str):
            rows.append(f"| {label} | failed: {run} | | | | | | | | |")
            continue
        rod, a = of_run(run), arrival(of_run(run))
        err = sliding_error(rod, ode) if not label.startswith("inside") else float("nan")
        rows.append(
            f"| {label} | {a['t']:.5f} | {a['theta']:.3f} | {a['impulse']:.4f} | "
            f"{a['lam_max']:.1f} | {a['step_impulse']:.4f} | {err:.1e} | {run.cpu:.2f} | "
            f"{run.result.n_steps} | {failed_steps(run.result)} |"
        )
    end = len(ode["t"]) - 1
    rows.append(
        f"| sliding mode's ODE (lambda = -A / B) | {ode['t'][end]:.5f} (B -> 0) | "
        f"{np.degrees(ode['theta'][end]):.3f} | "
        f"{np.trapezoid(ode['lam'], ode['t']):.4f} | {ode['lam'][end]:.1f} and growing "
        "| | 0 | | | |"
    )
    pn, pt = tangential_impact(55.0, 1.0)
    rows.append(f"| tangential impact at 55 deg, 1 m/s (closed form) | 0 | 55 | {pn:.4f} "
                f"(P_T = {pt:.4f} <= mu P_N = {MU * pn:.4f}) | | | | | | |")  # fmt: skip
    return "\n".join(rows)


def figure(results: dict[str, Run | str], ode: dict[str, np.ndarray], path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    top.plot(ode["t"], ode["slip"], "k-", lw=2.5, alpha=0.35, label="sliding mode ODE")
    bottom.semilogy(ode["t"], ode["lam"], "k-", lw=2.5, alpha=0.35, label="ODE: -A / B")
    for label in ("default", "euler, h = 0.001", "euler, h = 0.0001", "euler, h = 1e-05"):
        run = results.get(label)
        if isinstance(run, Run):
            rod = of_run(run)
            top.plot(rod.t, rod.slip, lw=1, label=f"nlpmbd {label}")
            bottom.semilogy(rod.t, np.maximum(rod.lam, 1e-3), lw=1, label=f"nlpmbd {label}")
    top.set(ylabel="slip speed of the end (m/s)", title="Painleve rod, mu = 5/3, from 44 deg")
    top.axhline(0, color="grey", lw=0.5)
    top.legend(fontsize=8)
    bottom.set(xlabel="t (s)", ylabel="normal force (N)", xlim=(0, 0.012), ylim=(1, 1e4))
    bottom.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    results = runs()
    ode = sliding_mode(44.0, 5.0, 0.05)
    text = table(results, ode)
    print(text)
    DOCS.mkdir(parents=True, exist_ok=True)
    figure(results, ode, DOCS / "painleve.png")
    print(write_page("painleve", "Painleve's rod, mu = 5/3", text + NOTES, PROBLEM, REFERENCE))


PROBLEM = """
A 1 m, 1 kg rod (I = m l^2 / 3 about its centre, l = 0.5 m) with its lower end on the ground,
44 deg above the horizontal, sliding at 5 m/s towards -X with Coulomb mu = 5/3 > 4/3 (case
`painleve`, `nlpmbd run painleve`). While the end slides that way its normal acceleration is
A + B lambda with B = (1 + 3 cos^2 - 3 mu sin cos) / m, negative between 45 and 75.96 deg: a
sliding contact there has no solution (Painleve's paradox). Friction turns the rod up towards
45 deg, and the sliding mode's normal force -A / B grows without bound as B -> 0.
"""
REFERENCE = """
No peer program's data: the sliding mode's ODE (scipy's solve_ivp, rtol 1e-11), and the
closed-form sticking impact for a start inside the inconsistent range (55 deg, 1 m/s): the
impulse that stops the slip with the end kept on the ground, inside the friction cone
(Stewart, SIAM Review 42 (2000); Genot and Brogliato, Eur. J. Mech. A 18 (1999)).
"""
NOTES = """

`default` is `nlpmbd run painleve` with no flags (the error controller in [1e-5, 1e-3] s, the
second-order scheme, the QP path). Largest lambda and its step's impulse: the normal force's
peak and lambda h of that step.

- Sliding into 45 deg: every run follows the sliding mode's ODE and stops the slip where B
  reaches 0 (44.99 deg at h = 1e-5, within a step of it at h = 1e-3), where the end then lifts
  off. The normal impulse up to the stop is the ODE's, 1.9049 N s, to 1e-3 at every h. The
  force peaks at the last sliding step, as the ODE's -A / B grows without bound, but that
  step's impulse falls with h (17 %, 3.6 %, 1.0 % of the whole at h = 1e-3, 1e-4, 1e-5): no
  impulse concentrates at the arrival, no spike beyond the sliding mode's own growth.
- Started inside (55 deg): the first step sticks the end with the closed form's impulse (a
  tangential impact), independent of h, then the rod pivots.
- The fix this problem needed (engine): the friction bounds' fixed point (g = mu lambda)
  substitutes each solve's normal forces into the next; its slope is 3 mu sin cos /
  (1 + 3 cos^2) for this rod, 0.98 at 44 deg and 1 at 45 deg, so 8 rounds of the QP path (and
  50 of the NLP path) crawl and the step failed ("Solve_Succeeded" with the fixed point not
  settled, or Coulomb friction not converged); inside the range the map has no sliding fixed
  point at all. Now the QP path's rounds take secant steps (exact for a linear map,
  step/qp_rounds.py), and on both paths a fixed point that has not settled is started once
  more from above, from normal forces whose friction stops any slip within the step: it
  settles on the sticking solution where that is consistent (the tangential impact).
"""

if __name__ == "__main__":
    main()
