"""Issue 31, item 5: Glocker's woodpecker toy against Siconos' Moreau-Jean run (h = 2e-5,
`siconos_woodpecker`) and, to separate the model from the code, against this project's own
minimal-coordinate Moreau-LCP model of the same bodies in both forms
(references/ref_woodpecker.py): the small-angle equations Siconos integrates, and the finite
angles nlpmbd's rigid bodies move through.

`python -m benchmarks.reference_problems.woodpecker` prints the numbers, draws
docs/reference_problems/woodpecker.png and writes docs/reference_problems/woodpecker.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nlpmbd_cases.woodpecker import sleeve_tilt
from references import ref_woodpecker as ref

from .contact_runs import DOCS, Run, failed_steps, peer_csv, run_case, write_page

FOLDER, FILE = "siconos_woodpecker", "Woodpecker_ref.csv"
LONG = 1.0  # s: seven beak impacts, the limit cycle's period from the last six
JUMP = 1.0  # rad/s: a beak impact reverses phi_S' by about 8 rad/s, a smooth step by < 0.1


@dataclass
class Motion:
    """y (m), phi_M, phi_S (rad) and phi_S' (rad/s) on a time grid."""

    t: np.ndarray
    q: np.ndarray  # (n, 3)
    w_bird: np.ndarray

    def impacts(self) -> np.ndarray:
        """Beak impacts: the steps where phi_S' jumps from > 0 to < 0 (the beak's e = 0.5
        reverses it; the sleeve's contacts hold the sleeve, not the bird)."""
        w = self.w_bird
        k = np.flatnonzero((w[:-1] > 0) & (w[1:] < 0) & (w[:-1] - w[1:] > JUMP)) + 1
        return self.t[k]

    def cycle(self) -> tuple[float, float]:
        """The limit cycle's period (s) and mean descent speed (m/s): over the impacts from
        the second on when there are three or more (the first cycle is the initial state's),
        else between the first two."""
        t = self.impacts()
        first = 1 if t.size >= 3 else 0
        span = t[-1] - t[first]
        y = np.interp([t[first], t[-1]], self.t, self.q[:, 0])
        return span / (t.size - 1 - first), float(y[0] - y[1]) / span


def of_run(run: Run) -> Motion:
    r = run.result
    tilt = [2 * np.arctan2(r.q[:, 7 * b + 6], r.q[:, 7 * b + 3]) for b in (1, 2)]
    return Motion(r.t, np.column_stack([r.q[:, 8], *tilt]), r.v[:, 17])


def of_model(res: ref.Result) -> Motion:
    return Motion(res.t, res.q, res.u[:, 2])


def reference() -> Motion | None:
    d = peer_csv(FOLDER, FILE)
    return None if d is None else Motion(d[:, 0], d[:, [1, 3, 5]], d[:, 6])


def finite_start() -> tuple[float, float, float]:
    """The case's initial positions: the sleeve's tilt where its edge touches at finite angles."""
    q0 = ref.PARAMS.q0
    return (q0[0], sleeve_tilt(ref.PARAMS.r_O), q0[2])


def models(h: float = 2e-5) -> dict[str, Motion]:
    """This project's minimal-coordinate model: small angles (the reference's equations, its
    initial state) and finite angles (the case's initial state), over LONG."""
    return {
        "small angles": of_model(ref.simulate(h, LONG, linear=True)),
        "finite angles": of_model(ref.simulate(h, LONG, linear=False, q0=finite_start())),
        "finite angles, h = 1e-5": of_model(
            ref.simulate(h / 2, LONG, linear=False, q0=finite_start())
        ),
    }


def split(own: dict[str, Motion], h: float = 2e-5) -> str:
    """The limit cycle of the own model with the dynamics (mass matrix, forces) and the
    contacts (gaps, directions) each in either form: which part of the linearisation moves it."""
    rows = [
        "| dynamics | contacts | period (s) | descent (m/s) |",
        "|---|---|---|---|",
    ]
    forms = {True: "small angles", False: "finite angles"}
    for dynamics in (True, False):
        for contacts in (True, False):
            if dynamics == contacts:
                m = own[forms[dynamics]]
            else:
                start = ref.PARAMS.q0 if contacts else finite_start()
                res = ref.simulate(h, LONG, dynamics, start, contacts_linear=contacts)
                m = of_model(res)
            period, speed = m.cycle()
            rows.append(f"| {forms[dynamics]} | {forms[contacts]} | {period:.5f} | {speed:.4f} |")
    return "\n".join(rows)


def difference(a: Motion, b: Motion, t_end: float = 0.3) -> np.ndarray:
    """max |y_a - y_b| (m), |phi_M| and |phi_S| differences (rad) on b's grid up to t_end."""
    t = b.t[b.t <= t_end + 1e-12]
    ours = np.column_stack([np.interp(t, a.t, a.q[:, j]) for j in range(3)])
    return np.abs(ours - b.q[: t.size]).max(axis=0)


def runs() -> dict[str, Run]:
    return {
        "default (`nlpmbd run woodpecker`, 0.3 s)": run_case("woodpecker"),
        f"default h range, {LONG:g} s": run_case("woodpecker", t_end=LONG),
        f"h = 2e-5 fixed, {LONG:g} s": run_case("woodpecker", t_end=LONG, h_min=2e-5, h_max=2e-5),
    }


def _row(label: str, model: str, m: Motion, against: tuple[str, Motion] | None, cost: str) -> str:
    period, speed = m.cycle()
    hits = ", ".join(f"{x:.5f}" for x in m.impacts()[:3])
    diff, name = "", ""
    if against is not None:
        name = against[0]
        diff = ", ".join(f"{d:.1e}" for d in difference(m, against[1]))
    return f"| {label} | {model} | {hits} | {period:.5f} | {speed:.4f} | {diff} | {name} | {cost} |"


def head(m: Motion, t_end: float = 0.3) -> Motion:
    """The motion up to t_end."""
    n = int(np.count_nonzero(m.t <= t_end + 1e-12))
    return Motion(m.t[:n], m.q[:n], m.w_bird[:n])


def table(results: dict[str, Run], siconos: Motion | None, own: dict[str, Motion]) -> str:
    rows = [
        "| run | model | first beak impacts (s) | period (s) | descent (m/s) "
        "| max \\|dy\\| (m), \\|dphi_M\\|, \\|dphi_S\\| (rad), 0-0.3 s | against "
        "| CPU s, steps, failed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lin, fin = own["small angles"], own["finite angles"]
    if siconos is not None:
        rows.append(_row("Siconos Moreau-Jean, h = 2e-5, 0.3 s", "small angles", siconos, None, ""))
    vs_siconos = None if siconos is None else ("Siconos", siconos)
    for label, m, against in (
        ("own Moreau-LCP, h = 2e-5, 0.3 s", head(lin), vs_siconos),
        (f"own Moreau-LCP, h = 2e-5, {LONG:g} s", lin, None),
    ):
        rows.append(_row(label, "small angles", m, against, ""))
    for label, m in (
        ("own Moreau-LCP, h = 2e-5, 0.3 s", head(fin)),
        (f"own Moreau-LCP, h = 2e-5, {LONG:g} s", fin),
        (f"own Moreau-LCP, h = 1e-5, {LONG:g} s", own["finite angles, h = 1e-5"]),
    ):
        rows.append(_row(label, "finite angles", m, None, ""))
    for label, run in results.items():
        cost = f"{run.cpu:.2f}, {run.result.n_steps}, {failed_steps(run.result)}"
        against = ("own, finite angles", fin)
        rows.append(_row(f"nlpmbd {label}", "finite angles", of_run(run), against, cost))
    return "\n".join(rows)


def figure(results: dict[str, Run], siconos: Motion | None, own: dict[str, Motion], path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    nlpmbd = of_run(results[f"default h range, {LONG:g} s"])
    curves = [
        ("own model, small angles", own["small angles"], dict(color="tab:blue", lw=2.5, alpha=0.4)),
        (
            "own model, finite angles",
            own["finite angles"],
            dict(color="tab:red", lw=2.5, alpha=0.4),
        ),
        ("nlpmbd (finite angles)", nlpmbd, dict(color="k", lw=0.8)),
    ]
    if siconos is not None:
        curves.insert(
            0, ("Siconos (small angles)", siconos, dict(color="tab:blue", lw=0.8, ls="--"))
        )
    for label, m, style in curves:
        top.plot(m.t, m.q[:, 0] * 1e3, label=label, **style)
        bottom.plot(m.t, m.q[:, 2], label=label, **style)
        for t in m.impacts():
            bottom.axvline(t, color=style["color"], lw=0.5, alpha=0.5)
    top.set(ylabel="sleeve height y (mm)", title="woodpecker: Siconos' small-angle model, "
            "this project's model in both forms, nlpmbd")  # fmt: skip
    top.legend(fontsize=8)
    bottom.set(xlabel="t (s)", ylabel="bird tilt phi_S (rad)")
    bottom.text(0.01, 0.03, "vertical lines: beak impacts", transform=bottom.transAxes, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    results, siconos, own = runs(), reference(), models()
    text = table(results, siconos, own)
    parts = split(own)
    print(text, parts, sep="\n\n")
    DOCS.mkdir(parents=True, exist_ok=True)
    figure(results, siconos, own, DOCS / "woodpecker.png")
    print(
        write_page(
            "woodpecker",
            "Woodpecker toy (Glocker), three frictional contacts",
            text + NOTES,
            PROBLEM,
            REFERENCE,
            ("Which part of the linearisation", SPLIT + parts + SPLIT_NOTES),
        )
    )


PROBLEM = """
Glocker's woodpecker toy (Pfeiffer and Glocker 1996; Leine, Glocker and van Campen 2003): a
sleeve (0.3 g) whose hole (radius 3.1 mm) is 0.6 mm wider than its vertical pole (2.5 mm), a
bird (4.5 g) on a pin 10 mm from the sleeve's centre, a torsion spring (0.0056 N m/rad) between
them; three contacts with Coulomb friction mu = 0.3: the sleeve's two edges on the pole
(Newton e = 0) and the beak (e = 0.5). In its limit cycle the sleeve jams, the bird swings,
the sleeve unjams and slips down, the beak pecks the pole. Case `woodpecker` (`nlpmbd run
woodpecker`, no flags: 0.3 s, h from 1e-5 to 1e-4 s): three rigid bodies (a carriage on a
prismatic joint keeps the sleeve's centre on the pole's axis, as the model neglects its
horizontal play), two revolute joints, a `RotationalSpringDamper`, two `PlaneContact`s on the
pole's surface. The bodies move at finite angles (the bird between -0.48 and +0.12 rad).
"""
REFERENCE = """
Siconos' Moreau-Jean run (theta = 0.5, h = 2e-5, 0.3 s; `siconos/siconos-tutorials`
`examples/mechanics/Woodpecker/Woodpecker.ref`, read from `siconos_woodpecker/` in the peer
references). Siconos integrates the **small-angle** (linearised) equations of these bodies:
constant mass matrix, gravity's generalised forces and contact gaps and directions taken at
zero angles. nlpmbd's rigid bodies cannot take that form, so the period and descent of the two
differ by the model before any code enters. To separate the two, this project's own
minimal-coordinate model (`references/ref_woodpecker.py`, numpy; q = (y, phi_M, phi_S); Moreau's
midpoint step with one frictional LCP, as `ref_slider_crank_lcp`) is run in both forms: the
small-angle form against Siconos (the same equations and scheme: it must reproduce the file),
the finite-angle form against nlpmbd (the same bodies). The honest comparison of nlpmbd is with
the second; Siconos' number is the first's. The finite-angle model starts from the case's
state: the sleeve's tilt where its edge touches at finite angles (-0.10090 rad; Siconos'
-0.1036 rad is the linearised gap's zero, 16 um inside the pole at finite angles).

Period: the mean interval between beak impacts (the steps where phi_S' jumps from positive to
negative), from the second impact on where the run has three or more (the first cycle starts
from the given state), else the first interval; descent: the sleeve's mean speed over the same
impacts. Siconos' CPU time is not published.
"""
NOTES = """

- **The own model reproduces Siconos**: at the same h the small-angle form has Siconos' beak
  impacts to the step (0.08104 and 0.22710 s) and its trajectory within 2.1e-6 m and 2.6e-5 rad
  over 0.3 s (the schemes differ in details only, e.g. Siconos' theta = 0.5 on the spring).
- **nlpmbd against the same bodies** (finite angles): the limit cycle's period 0.13066 s
  against 0.13084 s (0.14 %), 0.13074 s at h = 2e-5; descent 0.1107 against 0.1112 m/s (0.5 %).
  The own model's step error: its period 0.13080 s at h = 1e-5. The trajectories over 0.3 s
  differ by 2e-4 m in y and 8.5e-3 rad in the sleeve's tilt, which flips between its two jammed
  tilts (0.2 rad apart) in a fraction of a millisecond: the events of the two first-order
  schemes fall up to 0.2 ms apart (nlpmbd's default steps are 1e-4 s).
- **The model difference**: the small-angle cycle is 0.1460 s, the finite-angle one 0.1308 s
  (-10.4 %), its descent 0.1332 against 0.1112 m/s. The 0.130 s of an earlier, uncommitted
  rigid-body draft is this finite-angle cycle, not an error of the code.
- Siconos' README gives the mean descent as y(0.3) / 0.3 = 0.138 m/s (from the initial state);
  over its one full cycle it is 0.1333 m/s. The default run: no failed step, no warning.
"""
SPLIT = """
The own model with its dynamics (mass matrix, gravity, the bird's centripetal term) and its
contacts (gaps and directions) each in either form, over 1 s at h = 2e-5:

"""
SPLIT_NOTES = """

Neither part alone gives the difference: the contacts at finite angles shorten the cycle
(0.1460 to 0.1251 s with the small-angle dynamics, 0.1709 to 0.1308 s with the finite-angle
dynamics), the dynamics at finite angles lengthen it (0.1460 to 0.1709 s, 0.1251 to 0.1308 s),
and the two partly cancel. The bird's swing to -0.5 rad (cos 0.88) makes both matter: a
small-angle reference checks a rigid-body code only through a model of the same form.
"""

if __name__ == "__main__":
    main()
