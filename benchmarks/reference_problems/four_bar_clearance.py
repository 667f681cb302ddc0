"""Four-bar with three revolute clearance joints and a tracking-controlled crank (issue 31,
item 1): the `four_bar_clearance` case with its default options over 1 s against Siconos'
FourBarLinkageWith3clearance run (Moreau-Jean with combined projection, h = 1e-4), at the
reference's 21 sample times.

    python -m benchmarks.reference_problems.four_bar_clearance
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.errors import SolverFailure
from nlpmbd.step.solver import RETRIED
from nlpmbd_cases.four_bar_clearance import CASE
from nlpmbd_cases.four_bar_controller import L0, L1, L2, L3, desired

from . import figure, load_csv, peer_or_skip, save, timed, write_page

NAME, FOLDER, FILE = "four_bar_clearance", "siconos_fourbar_3clearance", "FourBarClearance_ref.csv"
SETTLED = 0.2  # s: every journal on its bearing wall from here on (the reference's README)
#: Counters of meta.json that say where the default run's time goes.
COUNTERS = ("chunk_steps", "chunk_steps_discarded", "qp_backup_solves", "qp_fallback_steps")


def run(t_end: float = 1.0, **options: Any) -> tuple[Any, float]:
    """The case with its default options (and `options`); (result, CPU s)."""
    system, _ = CASE.build({})
    kw = {"t_end": t_end, "h_min": CASE.h_min, "h_max": CASE.h_max, **options}
    return timed(simulate, system, SimulationOptions(**kw))


def coordinates(result: Any, t: np.ndarray) -> np.ndarray:
    """The reference's q (theta1, theta2, theta3, coupler centre, rocker centre from D) and
    eccentricities e1, e2, e3 (columns 1-7 and 13-18 of its file) at the times t."""
    i = np.abs(result.t[None, :] - t[:, None]).argmin(axis=1)
    q = result.q[i]
    th = [np.unwrap(2 * np.arctan2(q[:, 7 * k + 6], q[:, 7 * k + 3])) for k in range(3)]
    x2, y2, x3, y3 = q[:, 7], q[:, 8], q[:, 14] - L0, q[:, 15]

    def end(x: Any, y: Any, length: float, angle: Any, sign: float) -> np.ndarray:
        return np.column_stack([x + sign * 0.5 * length * np.cos(angle),
                                y + sign * 0.5 * length * np.sin(angle)])  # fmt: skip

    crank_tip = L1 * np.column_stack([np.cos(th[0]), np.sin(th[0])])
    e1 = end(x2, y2, L2, th[1], -1) - crank_tip
    e2 = end(x3 + L0, y3, L3, th[2], 1) - end(x2, y2, L2, th[1], 1)
    e3 = end(x3, y3, L3, th[2], -1)
    return np.column_stack([*th, x2, y2, x3, y3, e1, e2, e3])


def compare(result: Any, ref: np.ndarray) -> dict[str, Any]:
    """Differences at the reference's sample times: angles (rad), centres (m), and the angle
    between the eccentricity directions of each joint once the journals are on the wall."""
    ours, theirs = coordinates(result, ref[:, 0]), np.column_stack([ref[:, 1:8], ref[:, 13:19]])
    d = ours - theirs
    late = ref[:, 0] >= SETTLED - 1e-9
    directions = []
    for k in range(3):
        a, b = ours[late, 7 + 2 * k : 9 + 2 * k], theirs[late, 7 + 2 * k : 9 + 2 * k]
        cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
        directions.append(float(np.abs(np.arctan2(cross, (a * b).sum(axis=1))).max()))
    qd = np.asarray(desired(ref[:, 0])[0], float).ravel()
    return {
        "t": ref[:, 0], "ours": ours, "theirs": theirs,
        "crank": float(np.abs(d[:, 0]).max()), "angles": float(np.abs(d[:, 1:3]).max()),
        "centres": float(np.abs(d[:, 3:7]).max()), "directions": directions,
        "tracking": {s: float(np.interp(s, ref[:, 0], ours[:, 0] - qd)) for s in (0.5, 1.0)},
        "tracking_ref": {s: float(np.interp(s, ref[:, 0], theirs[:, 0] - qd)) for s in (0.5, 1.0)},
        "eccentricity": float(np.abs(np.linalg.norm(ours[late, 7:13].reshape(-1, 3, 2), axis=2)
                                     - (0.06 - 0.055)).max()),
    }  # fmt: skip


def main() -> None:
    folder = peer_or_skip(NAME, FOLDER)
    if folder is None:
        return
    failure = ""
    try:
        result, cpu = run()
    except SolverFailure as err:  # the default scheme's velocity stage: see the page
        failure = str(err)
        print(f"{NAME}: default options: {failure}; again with integrator=euler")
        result, cpu = run(integrator="euler")
    c = compare(result, load_csv(folder, FILE))
    c["failure"] = failure
    c["first_order"] = int(result.meta.get("first_order_steps", 0))
    c["counters"] = {k: int(result.meta.get(k, 0)) for k in COUNTERS}
    c["steps"] = len(result.t) - 1
    retried = int(np.count_nonzero(result.status == RETRIED))
    print(
        f"{NAME}: {len(result.t) - 1} steps ({result.meta['integrator']}), {retried} solved "
        f"again, {c['first_order']} of them first order, CPU {cpu:.1f} s"
    )
    print(f"  at the 21 samples: crank angle {c['crank']:.1e} rad, coupler and rocker angles "
          f"{c['angles']:.1e} rad, centres {c['centres']:.1e} m")  # fmt: skip
    print(
        "  eccentricity directions after 0.2 s: "
        + ", ".join(f"{a:.2e}" for a in c["directions"])
        + " rad (B, C, D)"
    )
    print(f"  |e| - c after 0.2 s: {c['eccentricity']:.1e} m")
    ours, ref = c["tracking"], c["tracking_ref"]
    print(f"  tracking error theta1 - q_d at 0.5 / 1 s: nlpmbd {ours[0.5]:+.2e} / "
          f"{ours[1.0]:+.2e}, Siconos {ref[0.5]:+.2e} / {ref[1.0]:+.2e} rad")  # fmt: skip
    _figure(c)
    write_page(NAME, "Four-bar with three clearance joints against Siconos", _page(c, cpu, retried))


def _figure(c: dict[str, Any]) -> None:
    fig, (ax, ae) = figure(2)
    for k, name in enumerate(("crank", "coupler", "rocker")):
        ax.plot(
            c["t"], c["theirs"][:, k], "ko", mfc="none", ms=6, label="Siconos" if k == 0 else None
        )
        ax.plot(c["t"], c["ours"][:, k], f"C{k}.-", label=f"nlpmbd, {name}")
    ax.set_ylabel("angle (rad)")
    ax.legend(fontsize=8, ncol=2)
    for k, joint in enumerate("BCD"):
        ang = [np.arctan2(s[:, 8 + 2 * k], s[:, 7 + 2 * k]) for s in (c["ours"], c["theirs"])]
        ae.plot(c["t"], ang[1], "ko", mfc="none", ms=6)
        ae.plot(c["t"], ang[0], f"C{k}.-", label=f"joint {joint}")
    ae.set(xlabel="t (s)", ylabel="eccentricity direction (rad)")
    ae.legend(fontsize=8)
    save(fig, NAME)


def _page(c: dict[str, Any], cpu: float, retried: int) -> str:
    if c["failure"]:
        run = f"""**The default options fail** in this run: `{c["failure"]}`. The retry ladder's
last rung (a step that every attempt of the second-order step failed is taken first order,
`first_order_steps` in meta.json) takes the run past 0.697 s, where it stopped without it (the
friction fixed point of the fallback NLP's position stage not converged), and the page's first
version (347f28f) stopped at 0.517 s (the velocity stage's friction fixed point: the journal at
B, on its bearing wall, took a normal force 14 times the position stage's). At the step above,
already at h = h_min, neither scheme's friction fixed point settles: the QP's rounds fail, and
the fallback NLP's 50 solves leave an EoM residual 36 (first order: 42) times the bound.
The comparison below is the first-order step (`integrator=euler`, the reference's class), which
runs through: from its own states it never meets that step."""
    else:
        n = c["counters"]
        run = f"""**The default options run through** (the second-order step), without a
failed step and without the retry ladder's first-order rung ({c["first_order"]} first-order
steps). They stopped at 0.923 s before: at h = h_min a step whose normal forces had jumped
between the two ends of the pin at D in the step before (655 N on one end, from 54 N on the
other) starts the QP's friction fixed point 28.7 N off; its substitution contracts by 0.15 a
round (the pins carry each other's friction moments), so its 8 rounds end 5.6e-5 N off against
a tolerance of 1.8e-6 N, and the restart from above (2.5e7 N) does not come down in its 8
rounds. The QP backup (qpOASES) and the NLP fallback failed it too: the NLP's fixed point
settles to 1e-4 N and then alternates between two IPOPT solutions that differ in the split of
a pin's force over its two ends (1e-5 N), 30 times its bound. The fixed point now continues a
contracting substitution with Anderson steps where both phases failed (step/qp_rounds.py): that
step settles in one more round. Where the time goes: {n["chunk_steps"]} of the
{c["steps"]} steps in compiled chunks, {n["chunk_steps_discarded"]} chunk steps computed and
thrown away after a step a chunk could not take, {n["qp_backup_solves"]} solves of the QP
backup (qpOASES) for such steps in Python and {n["qp_fallback_steps"]} steps left to the NLP
fallback. Most are steps at h_min in 0.2-0.3 s, where the fixed point's normal forces
converge to 1e-8 N but its friction-cone check stalls at 9-17 times its tolerance: the QP
solver's accuracy (DAQP's primal and dual tolerances 1e-12) over h = 1e-5 s; at 1e-14 they
settle in 5-7 rounds and the run takes 54 s of CPU (a change of step/qp_graph.py, not made
here)."""
    return f"""
**Problem.** Planar four-bar (crank 1 m, coupler 4 m, rocker 2.5 m, ground 3 m, 1 kg links) with
radial clearance c = 5 mm at the three pins B, C, D, restitution 0 and Coulomb mu = 0.1, the
crank driven by a passivity-based tracking controller of q_d = 6 sin(0.75 pi t) (Kp = 200,
lambda = 10), from rest with the crank 1.57 rad off its target: the case
`nlpmbd_cases/four_bar_clearance.py` (h from 1e-5 to 1e-4, 1 s). The controller is the
reference's, ported term by term (`nlpmbd_cases/four_bar_controller.py`; from the reference's
own states it gives the torque the reference records to 1e-12 N m). Not in the CLI's list of
cases: a model file cannot hold this controller (the expression language has no named
sub-expressions and caps an expression at 2000 characters), and every built-in case has its
example file.

**Reference.** Siconos `FourBarLinkageWith3clearance` (siconos-tutorials b6c9bfd1, `.ref` of
d73f8450): Moreau-Jean theta = 0.5 with combined projection at h = 1e-4, sampled every 0.05 s.
A first-order time-stepping answer like nlpmbd's; the upstream commit notes "only a slight error
due to time of detection of impacts". Its CPU time is not in the data.

{run}

**Measured** (`python -m benchmarks.reference_problems.four_bar_clearance`; CPU {cpu:.0f} s,
steps solved again by the retry ladder: {retried}): at the 21 samples the crank angle differs
by at most {c["crank"]:.1e} rad, the coupler and rocker angles by {c["angles"]:.1e} rad, their
centres by {c["centres"]:.1e} m (c = 5e-3 m). After 0.2 s every journal lies on its bearing wall
in both (nlpmbd leaves |e| - c at most {c["eccentricity"]:.0e} m) and the
contact directions agree to {max(c["directions"]):.1e} rad. Tracking error theta1 - q_d at
0.5 / 1 s: nlpmbd
{c["tracking"][0.5]:+.1e} / {c["tracking"][1.0]:+.1e} rad, Siconos
{c["tracking_ref"][0.5]:+.1e} / {c["tracking_ref"][1.0]:+.1e} rad.
"""


if __name__ == "__main__":
    main()
