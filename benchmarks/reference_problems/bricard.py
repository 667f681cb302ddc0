"""Bricard's overconstrained mechanism, IFToMM A04 (issue 31, item 7): the `bricard` case over
the benchmark's 10 s, energy conservation as the reference (no peer data: the mechanism is
conservative), on the QP and the NLP paths; `closing=revolute` (six revolute joints, one
dependent equation, its rows compliant: step/dependent.py) and the default
`closing=universal` (the dependent equation dropped).

    python -m benchmarks.reference_problems.bricard
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.errors import SolverFailure

from . import figure, save, timed, write_page

NAME, T_END = "bricard", 10.0
J4_LOCAL = np.array([0.5, 0.0, 0.0])  # rod 3's end, J4, from its centre in its axes


def run(
    closing: str, solver: str = "auto", t_end: float = T_END, predictor: bool = True
) -> tuple[Any, float, str]:
    """(result or None, CPU s, failure message or "") with the case's default options
    (`predictor` False: IPOPT at every step of the NLP path)."""
    case = get_case(NAME)
    system, _ = case.build({"closing": closing})
    options = SimulationOptions(
        t_end=t_end, h_min=case.h_min, h_max=case.h_max, solver=solver, predictor=predictor
    )
    try:
        result, cpu = timed(simulate, system, options)
    except SolverFailure as err:
        return None, 0.0, str(err)
    return result, cpu, ""


def measures(result: Any) -> dict[str, Any]:
    """Energy change (J) against the largest kinetic energy, rod 5's turn about Z (rad: zero
    in Bricard's motion, free in the universal joint) and J4's path."""
    from pyquaternion import Quaternion

    energy = result.energy[:, 2] - result.energy[0, 2]
    rot = [Quaternion(p).rotation_matrix for p in result.q[:, 7 * 4 + 3 : 7 * 4 + 7]]
    tilt = max(abs(float(m[:, 1] @ np.array([0.0, 0.0, 1.0]))) for m in rot)  # its y stays X
    r3 = [Quaternion(p).rotation_matrix for p in result.q[:, 7 * 2 + 3 : 7 * 2 + 7]]
    j4 = np.array([r + m @ J4_LOCAL for r, m in zip(result.q[:, 14:17], r3, strict=True)])
    return {
        "t": result.t, "energy": energy, "drift": float(np.abs(energy).max()),
        "kinetic": float(result.energy[:, 0].max()), "tilt": tilt, "j4": j4,
        "failed": int(np.count_nonzero(result.status)),
    }  # fmt: skip


def main() -> None:
    runs = {}
    for closing, solver in RUNS:
        path, predictor = SOLVERS[solver]
        result, cpu, message = run(closing, path, predictor=predictor)
        if result is None:
            print(f"{NAME}: closing={closing}, solver={solver}: {message}")
            continue
        runs[closing, solver] = m = {**measures(result), "cpu": cpu}
        m["codegen"] = result.meta.get("codegen", "off")  # chunks compiled, cached or VM
        print(f"{NAME}: closing={closing}, solver={solver}: {m['failed']} failed steps, "
              f"CPU {cpu:.1f} s, |E - E0| <= {m['drift']:.3e} J (largest kinetic energy "
              f"{m['kinetic']:.3f} J), rod 5 about Z {m['tilt']:.1e} rad")  # fmt: skip
    if ("revolute", "qp") in runs and ("universal", "qp") in runs:
        gap = np.abs(runs["revolute", "qp"]["j4"] - runs["universal", "qp"]["j4"]).max()
        print(f"  J4, six revolute joints against the universal closing: {gap:.1e} m")
    if runs:
        _figure(runs)
        write_page(NAME, "Bricard's mechanism (IFToMM A04)", _page(runs))


#: the table's solver column: (solver, predictor)
SOLVERS = {"qp": ("qp", True), "nlp": ("nlp", True), "nlp, IPOPT every step": ("nlp", False)}
#: J6 as specified first, then the default
RUNS = [(c, s) for c in ("revolute", "universal") for s in SOLVERS]


def _figure(runs: dict[tuple[str, str], dict[str, Any]]) -> None:
    fig, (ax, ae) = figure(2)
    m = next(iter(runs.values()))
    for k, axis in enumerate("xyz"):
        ax.plot(m["t"], m["j4"][:, k], f"C{k}-", label=f"J4 {axis}")
    ax.set_ylabel("J4 (m)")
    ax.legend(fontsize=8, ncol=3)
    styles = {"qp": "-", "nlp": "--", "nlp, IPOPT every step": ":"}
    for (closing, solver), r in runs.items():
        colour = "C0" if closing == "revolute" else "C3"
        ae.plot(r["t"], r["energy"], colour + styles[solver], label=f"{closing}, solver={solver}")
    low = min(float(r["energy"].min()) for r in runs.values())
    ae.set(xlabel="t (s)", ylabel="E - E(0) (J)", ylim=(2.1 * low, -0.3 * low))  # legend below
    ae.legend(fontsize=7, ncol=2, loc="lower center")
    save(fig, NAME)


def _page(runs: dict[tuple[str, str], dict[str, Any]]) -> str:
    rows = "\n".join(
        f"| {c} | {s} | {m['failed']} | {m['drift']:.3e} J | {m['tilt']:.0e} rad "
        f"| {m['cpu']:.1f} s | {m['codegen']} |"
        for (c, s), m in runs.items()
    )
    gap = ""
    if ("revolute", "qp") in runs and ("universal", "qp") in runs:
        j4 = np.abs(runs["revolute", "qp"]["j4"] - runs["universal", "qp"]["j4"]).max()
        gap = f"\n  J4's paths of the two closings differ by {j4:.0e} m over the 10 s."
    kinetic = next(iter(runs.values()))["kinetic"]
    drift = max(m["drift"] for m in runs.values())
    return f"""
**Problem.** IFToMM A04: five rods (1 m, 1 kg, 0.1 m square section) and six revolute joints
in a closed loop with the ground, each axis normal to the two rods it joins; Gruebler counts no
freedom, the geometry leaves one, so one of the 30 joint equations is dependent everywhere.
Released at rest under gravity (-Y) for 10 s, h = 1e-3 (`nlpmbd run bricard`; the default
closes the loop with a universal joint, see below).

**Reference.** The mechanism is conservative: the total energy must stay at its start. The
benchmark library's solution of point P3 is not among the peer data, so energy is the check.
The OpenSim port (Tagliapietra et al.) reports 0.26 s for its run.

**Measured** (`python -m benchmarks.reference_problems.bricard`).

- **`closing=revolute`**, the six revolute joints as specified: the step finds the dependent
  equation at the start (step/dependent.py) and gives every equality row a compliance rho
  (constraint force mixing: rho = 1e-10 of the largest eigenvalue of Phi_eq,v M^-1 Phi_eq,v^T,
  1.2e-7 1/kg here), so the dependent direction takes the least-squares velocity and the
  smallest force; a joint yields rho h^2 lambda, 4e-12 m at 30 N. Before, it failed at the
  first steps: off the loop's path by the steps' drift (1e-9 m) the 30 rows are independent
  again, their smallest singular value 2e-11 of the largest, and the linearised equalities fix
  the free motion's speed to their inconsistency over it (8 to 80 m/s against the 2 m/s of the
  motion), with multipliers of 1e7 N and more: DAQP (the QP path and the second-order step's
  velocity stage) returned no joint force at step 1 (EoM residual 8e3 N), IPOPT followed the
  multipliers up until its test, scaled by their size, passed a point 14x over the EoM bound
  (step 16 of the first-order step).
- **`closing=universal`**, the default (J6 a universal joint: the dependent equation dropped,
  the motion the same: rod 5 never turns about Z, column 5 below).{gap}

| closing | solver | failed steps | max abs(E - E0) over 10 s | rod 5 about Z | CPU | chunks |
|---|---|---|---|---|---|---|
{rows}

Largest kinetic energy {kinetic:.2f} J: the default second-order step keeps the energy to
{drift / kinetic:.0e} of it, the same with either closing. The NLP path's steps are its QP
predictor's (every one adopted); "IPOPT every step" is `--no-predictor`. CPU on a shared
machine; the QP path's chunks run compiled once a background compile has finished and been
cached (`codegen=auto`), in CasADi's virtual machine until then (the column "chunks").
"""


if __name__ == "__main__":
    main()
