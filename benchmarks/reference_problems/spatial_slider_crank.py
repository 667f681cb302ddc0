"""IFToMM spatial rigid slider-crank (issue 31, item 10): the built-in case, ideal joints, the
default options at h = 1e-4 over 1 s, against Masarati's published solution (Gonzalez's as an
independent check) and against this project's minimal-coordinate model of the same data.

    python -m benchmarks.reference_problems.spatial_slider_crank
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from references.ref_spatial_slider_crank import simulate_reference

from . import figure, load_csv, peer_or_skip, save, timed, write_page

NAME, FOLDER, H, T_END = "spatial_slider_crank", "iftomm_spatial_slider_crank", 1e-4, 1.0
EARLY = 0.2  # s: before the first fast passage of the crank (0.26-0.3 s)


def run(h: float = H, t_end: float = T_END) -> tuple[Any, float]:
    """The case with its defaults (ideal joints) at a fixed step h; (result, CPU s)."""
    system, _ = get_case(NAME).build({})
    return timed(simulate, system, SimulationOptions(t_end=t_end, h_min=h, h_max=h))


def compare(result: Any, masarati: np.ndarray, summary: list[list[str]]) -> dict[str, Any]:
    """Slider-x differences (m) against Masarati's 20 ms samples, Gonzalez's values and the
    minimal-coordinate model."""
    t, x = masarati[:, 0], np.interp(masarati[:, 0], result.t, result.q[:, 14])
    _, x_min = simulate_reference(t)
    gonzalez = {float(r[1]): float(r[2]) for r in summary if r[0] == "Gonzalez"}
    at = {s: float(np.interp(s, result.t, result.q[:, 14])) for s in (0.5, 1.0)}
    early = t <= EARLY + 1e-9
    return {
        "t": t, "x": x, "x_min": x_min, "x_ref": masarati[:, 1],
        "masarati_max": float(np.abs(x - masarati[:, 1]).max()),
        "masarati_early": float(np.abs(x - masarati[:, 1])[early].max()),
        "masarati_1s": abs(at[1.0] - masarati[-1, 1]),
        "gonzalez": {s: abs(at[s] - gonzalez[s]) for s in at},
        "spread": {s: abs(float(np.interp(s, t, masarati[:, 1])) - gonzalez[s]) for s in at},
        "minimal_max": float(np.abs(x - x_min).max()),
        "minimal_vs_masarati": float(np.abs(x_min - masarati[:, 1]).max()),
    }  # fmt: skip


def summary(folder: Any) -> list[list[str]]:
    lines = (folder / "other_submissions_summary.csv").read_text().splitlines()
    return [line.split(",") for line in lines if line and not line.startswith(("#", "sub"))]


def main() -> None:
    folder = peer_or_skip(NAME, FOLDER)
    if folder is None:
        return
    result, cpu = run()
    c = compare(result, load_csv(folder, "masarati_20ms.csv"), summary(folder))
    failed = int(np.count_nonzero(result.status))
    print(f"{NAME}: h = {H:g}, {len(result.t) - 1} steps, {failed} failed, CPU {cpu:.2f} s")
    print(f"  slider x vs Masarati: max {c['masarati_max']:.2e} m (0-{EARLY} s: "
          f"{c['masarati_early']:.2e}), at 1 s {c['masarati_1s']:.2e}")  # fmt: skip
    print(f"  vs Gonzalez at 0.5 / 1 s: {c['gonzalez'][0.5]:.2e} / {c['gonzalez'][1.0]:.2e} m; "
          f"Masarati - Gonzalez: {c['spread'][0.5]:.2e} / {c['spread'][1.0]:.2e} m")  # fmt: skip
    print(f"  vs the minimal-coordinate model of the same data: max {c['minimal_max']:.2e} m; "
          f"that model vs Masarati: {c['minimal_vs_masarati']:.2e} m")  # fmt: skip
    _figure(c)
    write_page(NAME, "IFToMM spatial rigid slider-crank", _page(c, cpu, failed))


def _figure(c: dict[str, Any]) -> None:
    fig, (ax, ad) = figure(2)
    ax.plot(c["t"], c["x_ref"], "k-", lw=2.5, alpha=0.35, label="Masarati (IFToMM)")
    ax.plot(c["t"], c["x"], "C0.-", ms=3, label="nlpmbd, h = 1e-4")
    ax.set_ylabel("slider x (m)")
    ax.legend(fontsize=8)
    ad.plot(c["t"], c["x"] - c["x_ref"], "C0.-", ms=3, label="nlpmbd - Masarati")
    ad.plot(c["t"], c["x_min"] - c["x_ref"], "C3--", label="minimal-coordinate model - Masarati")
    ad.axhspan(-1e-3, 1e-3, color="0.9", label="issue's band 1e-3 m")
    ad.set(xlabel="t (s)", ylabel="difference (m)")
    ad.legend(fontsize=8)
    save(fig, NAME)


def _page(c: dict[str, Any], cpu: float, failed: int) -> str:
    return f"""
**Problem.** IFToMM benchmark "Spatial rigid slider-crank mechanism": crank (revolute),
rod (spherical at the crank, universal at the slider), slider (prismatic), gravity, crank free
from 6 rad/s. `nlpmbd run spatial_slider_crank` (ideal joints by default), here at a fixed
h = 1e-4 over 1 s with the default options otherwise.

**Reference.** Masarati's submitted solution (every 5th row, 20 ms), with Gonzalez's as an
independent check: `../shared/peer_references/iftomm_spatial_slider_crank/` (from
jgerstmayr/EXUDYN `docs/verification/Slidercrank3DiftommBenchmark/` at 657f9c63). The two agree
to {c["spread"][0.5]:.1e} m at 0.5 s and {c["spread"][1.0]:.1e} m at 1 s. Their CPU times are not
published with the data.

**Measured** (`python -m benchmarks.reference_problems.spatial_slider_crank`): slider x differs
from Masarati by at most {c["masarati_early"]:.1e} m over 0-{EARLY} s and {c["masarati_max"]:.1e} m
over 0-1 s ({c["masarati_1s"]:.1e} m at 1 s: **within the issue's 1e-3 m**), from Gonzalez by
{c["gonzalez"][0.5]:.1e} m at 0.5 s and {c["gonzalez"][1.0]:.1e} m at 1 s. nlpmbd agrees with this
project's independent minimal-coordinate model of the same mechanism
(`references/ref_spatial_slider_crank.py`) to {c["minimal_max"]:.1e} m. CPU {cpu:.2f} s for
10 000 steps, {failed} failed steps.

**What changed (issue 31).** The case's universal joint at C had the slider's pin along Y and
the rod's along X, and started the rod at (2.4, -1.2, 0) rad/s: 4.8e-3 m from Masarati over 1 s
(8.2e-5 m already over 0-0.2 s), and the minimal-coordinate model of that mechanism agreed with
it, so the difference was the mechanism, not the solver. The benchmark's published velocity
field, the rod at (1.92, -0.96, 0.48) rad/s (Exudyn's omega1Init, "retrieved from fixedVelocity",
i.e. a consistent state of their model), breaks that cross's velocity condition (w_rod . Z = 0)
by 0.48 rad/s; it satisfies exactly the cross whose slider pin lies along the guide (X) and whose
rod pin is normal to the rod and to X. With that cross the joints alone give (1.92, -0.96, 0.48)
from the crank's 6 rad/s, and the run meets both published solutions as above. The rod's inertia
(4e-4 about its axis, 4e-3 about the normals) is symmetric about the rod, so its axes' choice
does not enter. The case's default is this published mechanism (its tests, example file and
minimal-coordinate reference follow it).
"""


if __name__ == "__main__":
    main()
