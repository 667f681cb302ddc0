"""`python -m benchmarks.joint_friction_figure [--out docs/joint_friction.png]`: friction inside
ideal joints (issue 32 item 2) against closed forms and independent references.

Left: `nlpmbd run pendulum --set frictionloss=0.8 --t-end 4` (m g L = 4.9 N m), the angle from the
lowest position and the rests the energy balance predicts (references/ref_joint_friction.py).
Middle: `nlpmbd run pendulum --set mu=0.4 --set pin_radius=0.1 --t-end 8`, the friction circle
mu r |F|, against the event-driven reference (references/ref_friction_pendulum.py). Right: a
block on a prismatic guide with frictionloss 2 N pushed by a ramp F = 10 t N, against
k (t - t0)^3 / 6m. Prints the errors the tests assert (tests/test_joint_friction.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.reference_problems.contact_runs import run_case
from references import ref_joint_friction as ref
from references.ref_friction_pendulum import friction_pendulum

LOSS = 0.8  # N m
M, K, G = 2.0, 10.0, 2.0  # block: kg, N/s, N


def _block():
    from nlpmbd import GROUND, RigidBody, SimulationOptions, System, simulate
    from nlpmbd.model.forces import Force
    from nlpmbd_joints import PrismaticJoint

    system = System(gravity=(0, -9.81, 0))
    block = system.add_body(RigidBody("block", M, (0.1,) * 3))
    system.add_joint(PrismaticJoint("guide", GROUND, block, (0, 0, 0), (1, 0, 0), frictionloss=G))
    system.add_load(Force(block, lambda t, state: (K * t, 0, 0)))
    return simulate(system, SimulationOptions(t_end=0.5, h_min=1e-4, h_max=1e-4))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/joint_friction.png"))
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pend = run_case("pendulum", {"frictionloss": LOSS}, t_end=4.0).result
    phi = np.arctan2(pend.q[:, 0], -pend.q[:, 1])
    rests = ref.pendulum_rests(np.pi / 2, 1.0, 9.81, 0.5, LOSS)
    print(f"pendulum: rest {phi[-1]:.9f} rad, closed form {rests[-1]:.9f} rad")
    circle = run_case("pendulum", {"mu": 0.4, "pin_radius": 0.1}, t_end=8.0).result
    theta = np.arctan2(circle.q[:, 1], circle.q[:, 0])
    c_ref = friction_pendulum(0.4 / np.sqrt(1 - 0.4**2), 8.0, params={"R": 0.1})
    print(f"friction circle: rest {theta[-1]:.9f} rad, reference {c_ref.theta[-1]:.9f} rad")
    block = _block()
    x = ref.ramp_slide(K, G, M, block.t)
    print(f"block: max |x - x_ref| {np.max(np.abs(block.q[:, 0] - x)):.2e} m")

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(14, 3.6))
    middle.plot(c_ref.t, c_ref.theta, "k-", lw=2.5, alpha=0.35, label="event-driven reference")
    middle.plot(circle.t, theta, "C0-", lw=1, label="nlpmbd (defaults)")
    middle.set(xlabel="t (s)", ylabel="angle from +X (rad)")
    middle.set_title("pendulum, friction circle mu 0.4, r 0.1 m")
    middle.legend(fontsize=8, loc="upper right")
    left.plot(pend.t, phi, "C0-", lw=1, label="nlpmbd (defaults)")
    for k, r in enumerate(rests):
        label = "rests of the energy balance" if k == 0 else None
        left.axhline(r, color="C3", lw=0.8, ls="--", label=label)
    left.set(xlabel="t (s)", ylabel="angle from the lowest position (rad)")
    left.set_title(f"pendulum, pin friction torque {LOSS} N m")
    left.legend(fontsize=8, loc="upper right")
    right.plot(block.t, 1e3 * x, "k-", lw=2.5, alpha=0.35, label="k (t - g/k)^3 / 6m")
    right.plot(block.t, 1e3 * block.q[:, 0], "C0-", lw=1, label="nlpmbd (h 1e-4)")
    right.axvline(G / K, color="C3", lw=0.8, ls="--", label="breakaway t0 = g / k")
    right.set(xlabel="t (s)", ylabel="slide x (mm)", title="block, frictionloss 2 N, F = 10 t N")
    right.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
