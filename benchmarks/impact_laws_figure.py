"""`python -m benchmarks.impact_laws_figure [--out docs/impact_laws.png]`: the three impact laws
(issue 32 item 3) on a rod whose end hits rough ground, against references/ref_rod_impact.py.

The rod (1 kg, 1 m, 1 rad from the ground) hits at 1 m/s spinning at 2 rad/s toward the ground,
e = 0.9. Left: the kinetic energy change against mu; the lines are the references (Stronge's
process for Poisson's and the energetic law, the one-impulse closed form for nlpmbd's Newton
law, and Stronge's process with Newton's end condition, dotted), the markers nlpmbd (one step
of 1 ms from touching, tests/test_impact_laws.py). Right: the same against the angle at mu 0.4.
Prints the largest difference between nlpmbd and its reference.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import casadi as ca
import numpy as np

from nlpmbd import HardContact, RigidBody, SimulationOptions, System, simulate
from nlpmbd_joints import PlaneContact
from references.ref_rod_impact import LAWS, Rod, energy_change, impact, newton_at_end

U0 = np.array([0.0, -1.0, 2.0])
E = 0.9
STYLE = {"newton": "C3", "poisson": "C0", "energetic": "C2"}


class _Ground(PlaneContact):
    def slip_planes(self, poses):
        return [ca.DM([0.0, 0.0, 1.0])] * len(self.points)


def _engine(theta: float, mu: float, law: str) -> float:
    """nlpmbd's kinetic energy change of the impact (J)."""
    system = System(gravity=(0, 0, 0))
    rod = system.add_body(
        RigidBody(
            "rod", 1.0, (1e-3, 1 / 12, 1 / 12), position=(0, 0.5 * np.sin(theta) + 1e-9, 0),
            orientation=(np.cos(theta / 2), 0, 0, np.sin(theta / 2)),
            velocity=(U0[0], U0[1], 0), angular_velocity=(0, 0, U0[2]),
        )
    )  # fmt: skip
    law_ = HardContact(restitution=E, mu=mu, impact=law)
    system.add_joint(_Ground("floor", rod, [(-0.5, 0, 0)], contact=law_))
    r = simulate(system, SimulationOptions(t_end=1e-3, h_min=1e-3, h_max=1e-3))
    return float(r.energy[1, 0] - r.energy[0, 0])


def _reference(theta: float, mu: float, law: str) -> float:
    rod = Rod(1.0, 1.0, theta, mu)
    if law == "newton":
        return rod.energy(newton_at_end(rod, U0, E)) - rod.energy(U0)
    return rod.energy(impact(rod, U0, E, law)) - rod.energy(U0)


def _at(x: float, theta: float | None, mu: float | None) -> tuple[float, float]:
    """(theta, mu) of a sweep's point x: one of them fixed."""
    return (theta, x) if mu is None else (x, mu)  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/impact_laws.png"))
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    worst = 0.0
    sweeps = (
        ("mu", np.linspace(0.0, 1.0, 41), np.linspace(0.1, 0.9, 5), 1.0, None),
        ("theta", np.linspace(0.2, 1.4, 41), np.linspace(0.3, 1.3, 5), None, 0.4),
    )
    for ax, (name, fine, coarse, theta, mu) in zip(axes, sweeps, strict=True):
        for law in LAWS:
            ax.plot(
                fine,
                [_reference(*_at(x, theta, mu), law) for x in fine],
                color=STYLE[law],
                label=law,
            )
            ours = [_engine(*_at(x, theta, mu), law) for x in coarse]
            worst = max(
                worst,
                *(
                    abs(o - _reference(*_at(x, theta, mu), law))
                    for o, x in zip(ours, coarse, strict=True)
                ),
            )
            ax.plot(coarse, ours, "o", color=STYLE[law], mfc="none")
        stronge = [energy_change(Rod(1.0, 1.0, *_at(x, theta, mu)), U0, E, "newton") for x in fine]
        ax.plot(fine, stronge, ":", color=STYLE["newton"], label="newton, Stronge's process")
        ax.axhline(0, color="k", lw=0.6)
        ax.set(xlabel=name if name == "mu" else "angle from the ground (rad)",
               ylabel="kinetic energy change (J)")  # fmt: skip
        ax.set_title(f"rod at 1 rad, e = {E}" if mu is None else f"mu = {mu}, e = {E}")
    axes[0].legend(fontsize=8)
    fig.suptitle("impact laws: lines references/ref_rod_impact.py, circles nlpmbd", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"largest |nlpmbd - reference|: {worst:.2e} J; wrote {args.out}")


if __name__ == "__main__":
    main()
