"""A second result drawn dashed over a run (e.g. the ideal joint under the clearance joint), and
the difference panels under the overlaid curves: run minus overlay on a common time grid, so that
a lag far below the curves' scale (1e-4 m on a 1 m swing) is visible where the curves coincide.

The common grid is the run's own time points inside the time span both results cover; the
overlay is interpolated linearly onto it (exact where both used the same steps; otherwise its
error is at most h^2/8 max|y''| of the overlay's steps h).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..io.result import SimulationResult
from .scales import literal, min_span

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Smallest span of a difference panel: this fraction of the largest magnitude of its curves,
#: and MAIN_FRACTION of the y span of the panel above (whose own minimum span hides noise).
DIFF_FRACTION = 1e-9
MAIN_FRACTION = 1e-4


def difference(
    t: np.ndarray, y: np.ndarray, t_ref: np.ndarray, y_ref: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(grid, y - y_ref on the grid): the grid is t inside [max(t0), min(t_end)] of both."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    t_ref, y_ref = np.asarray(t_ref, dtype=float), np.asarray(y_ref, dtype=float)
    if t.size == 0 or t_ref.size == 0:
        return np.zeros(0), np.zeros(0)
    inside = (t >= t_ref[0]) & (t <= t_ref[-1])
    grid = t[inside]
    return grid, y[inside] - np.interp(grid, t_ref, y_ref)


@dataclass
class Pair:
    """One overlaid curve and the run's curve it is compared with (drawn on the same axes)."""

    ax: Any
    t: np.ndarray
    y: np.ndarray
    t_ref: np.ndarray
    y_ref: np.ndarray
    color: Any
    name: str


@dataclass
class Overlay:
    """The overlay result, its label, and the pairs drawn so far (for the difference panels)."""

    result: SimulationResult
    label: str
    run_label: str = "run"
    pairs: list[Pair] = field(default_factory=list)

    def dashed(
        self, ax: Axes, t_ref: np.ndarray, y_ref: np.ndarray, line: Any, name: str | None
    ) -> None:
        """Draw the overlay's curve dashed in the colour of the run's `line` and remember the
        pair; `name` labels it in the legend (None: no legend entry)."""
        label = f"{name} ({self.label})" if name else "_nolegend_"
        color = line.get_color()
        ax.plot(t_ref, y_ref, "--", color=color, lw=1.0, alpha=0.8, label=label)
        t, y = (np.asarray(a, dtype=float) for a in line.get_data())
        self.pairs.append(Pair(ax, t, y, np.asarray(t_ref), np.asarray(y_ref), color, name or ""))

    def draw_differences(self, main: list[Axes], below: list[Axes]) -> None:
        """Under each axes of `main`, the differences of its pairs in `below`."""
        for ax, diff_ax in zip(main, below, strict=True):
            pairs = [p for p in self.pairs if p.ax is ax]
            scale = 0.0
            for p in pairs:
                grid, d = difference(p.t, p.y, p.t_ref, p.y_ref)
                diff_ax.plot(grid, d, color=p.color, lw=0.9)
                both = np.concatenate([p.y, p.y_ref])
                scale = max(scale, float(np.max(np.abs(both), initial=0.0)))
            diff_ax.axhline(0.0, color="0.5", lw=0.6)
            head = f"$\\Delta$ {ax.get_ylabel()}" if ax.get_ylabel() else "difference"
            names = f"{literal(self.run_label)} - {literal(self.label)}"
            diff_ax.set_ylabel(f"{head}\n{names}", fontsize="small")
            lo, hi = ax.get_ylim()
            min_span(diff_ax, max(DIFF_FRACTION * scale, MAIN_FRACTION * (hi - lo), 1e-300))

    def differences(self, ax: Axes) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """(name, grid, run - overlay) of the pairs drawn on `ax` (for tests and reports)."""
        return [(p.name, *difference(p.t, p.y, p.t_ref, p.y_ref)) for p in self.pairs if p.ax is ax]


def run_label(result: SimulationResult, overlay: SimulationResult | None = None) -> str:
    """How the run is named in difference panels: its values of the case parameters in which it
    differs from the overlay (e.g. "clearance" for joint=clearance over joint=ideal), else
    "run"."""
    mine, theirs = (r.meta.get("parameters") if r else None for r in (result, overlay))
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return "run"
    differ = [str(v) for k, v in mine.items() if k in theirs and theirs[k] != v]
    return "-".join(differ[:2]) if differ else "run"
