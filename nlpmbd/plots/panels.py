"""Figures of studies: several runs on shared time axes (matplotlib imported lazily). Log panels
are floored at 1e-12 of their largest value (smaller values are drawn at the floor, noted)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .saving import save_figure
from .scales import legend, log_floor, min_span, note, relative_span

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass
class Curve:
    label: str
    x: np.ndarray
    y: np.ndarray
    style: dict = field(default_factory=dict)


@dataclass
class Panel:
    ylabel: str
    curves: list[Curve]
    log: bool = False
    xlabel: str = "time t (s)"
    logx: bool = False
    #: smallest y span of a linear panel (default: 1e-6 of the figure's largest |y|, so that
    #: rounding noise, e.g. a planar mechanism's out-of-plane force, draws as a flat line)
    min_span: float | None = None


def save_panels(
    path: str | os.PathLike, title: str, panels: Sequence[Panel], dpi: int = 120
) -> Path:
    """Write `panels_figure` to `path`."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    return save_figure(panels_figure(title, panels), out, dpi)


def panels_figure(title: str, panels: Sequence[Panel]) -> Figure:
    """One figure with stacked panels (shared x axis when all x labels agree)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    share = len({p.xlabel for p in panels}) == 1
    fig = Figure(figsize=(9.0, 1.2 + 2.6 * len(panels)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, sharex=share, squeeze=False)[:, 0]
    span = relative_span([np.asarray(c.y, float) for p in panels for c in p.curves])
    for ax, panel in zip(axes, panels, strict=True):
        floor = _floor(panel)
        for c in panel.curves:
            y = np.maximum(c.y, floor) if panel.log else c.y
            ax.plot(
                c.x,
                y,
                label=c.label,
                lw=c.style.get("lw", 1.0),
                **{k: v for k, v in c.style.items() if k != "lw"},
            )
        if panel.log:
            ax.set_yscale("log")
            if any(np.any(np.asarray(c.y) < floor) for c in panel.curves):
                note(ax, f"values below {floor:.0e} drawn at {floor:.0e}", y=0.92)
        else:
            min_span(ax, span if panel.min_span is None else panel.min_span)
        if panel.logx:
            ax.set_xscale("log")
        ax.set_ylabel(panel.ylabel)
        ax.grid(True, alpha=0.35)
        if not share or ax is axes[-1]:
            ax.set_xlabel(panel.xlabel)
        if 0 < len(panel.curves) <= 16:
            legend(ax, fontsize="x-small", ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def _floor(panel: Panel) -> float:
    """Floor of a log panel: 1e-12 of the largest value of its curves (scales.log_floor)."""
    values = [np.ravel(np.asarray(c.y, dtype=float)) for c in panel.curves]
    return log_floor(np.concatenate(values)) if values else 1.0
