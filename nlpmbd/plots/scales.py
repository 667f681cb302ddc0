"""Axis helpers shared by the figures: minimum y spans (so rounding noise draws as a flat line
instead of being blown up to fill the panel), log-axis floors, distinct line styles, the time
convention of force histories and small text helpers. Matplotlib objects are only passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..io.clearances import penetration_scales

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..io.result import SimulationResult

#: Default length scale (m) when a result has no contacts: positions move at least this much
#: before a panel zooms in (1e-2 of it is the smallest span drawn).
DEFAULT_LENGTH = 1e-4
#: Relative floor of log panels: values below FLOOR_FRACTION * max are drawn at that level.
FLOOR_FRACTION = 1e-12
#: Line styles after the ten colours of the default cycle are used up.
LINE_STYLES = ("-", "--", ":", "-.")
COLORS = tuple(f"C{k}" for k in range(10))


def length_scale(result: SimulationResult) -> float:
    """The smallest clearance of the result's hard contacts (m, soft ones left out), or
    DEFAULT_LENGTH without any."""
    scales = penetration_scales(result.meta, result.gap.shape[1])
    positive = scales[scales > 0]
    return float(positive.min()) if positive.size else DEFAULT_LENGTH


def position_span(result: SimulationResult) -> float:
    """Smallest y span (m) of position-like panels: 1 % of the smallest clearance."""
    return 1e-2 * length_scale(result)


def velocity_span(result: SimulationResult) -> float:
    """Smallest y span (m/s) of velocity panels: the position span over a tenth of the run."""
    duration = float(result.t[-1] - result.t[0]) if result.t.size > 1 else 1.0
    return position_span(result) / max(0.1 * duration, 1e-9)


def relative_span(values: list[np.ndarray], fraction: float = 1e-6, low: float = 1e-9) -> float:
    """Smallest span for panels of one quantity: `fraction` of its largest magnitude, >= low."""
    peak = max((float(np.max(np.abs(v), initial=0.0)) for v in values if v.size), default=0.0)
    return max(fraction * peak, low)


def min_span(ax: Axes, span: float) -> None:
    """Widen the y limits about their middle to at least `span`; plain tick labels."""
    lo, hi = ax.get_ylim()
    if np.isfinite(lo) and np.isfinite(hi) and hi - lo < span:
        mid = 0.5 * (lo + hi)
        ax.set_ylim(mid - 0.5 * span, mid + 0.5 * span)
    if ax.get_yscale() == "linear":
        ax.ticklabel_format(axis="y", useOffset=False)


def log_floor(values: np.ndarray, tol: float | None = None) -> float:
    """Floor of a log panel: FLOOR_FRACTION of the largest value, but not below 1e-3 of the
    solver tolerance `tol` (smaller residuals mean nothing; the floor may then exceed every
    value); 1 when nothing is positive."""
    values = np.asarray(values, dtype=float)
    peak = float(np.max(values[np.isfinite(values)], initial=0.0))
    if not peak > 0:
        return 1.0
    floor = FLOOR_FRACTION * peak
    if tol is not None and tol > 0:
        floor = max(floor, 1e-3 * tol)
    return floor


def style(k: int) -> dict[str, Any]:
    """Colour and line style of the k-th line: ten colours, then the next line style."""
    return {"color": COLORS[k % len(COLORS)], "ls": LINE_STYLES[(k // len(COLORS)) % 4]}


def force_rows(result: SimulationResult) -> tuple[np.ndarray, slice]:
    """(times, rows) for force histories: row k >= 1 is the force of the step from t[k-1] to
    t[k], evaluated at its start, so it is drawn at t[k-1]; row 0 (a placeholder zero) is left
    out."""
    return result.t[:-1], slice(1, None)


def note(ax: Axes, text: str, y: float = 0.5) -> None:
    ax.text(0.5, y, text, transform=ax.transAxes, ha="center", va="center", color="0.4")


def literal(text: object) -> str:
    """`text` as figure text that shows it as it is: Matplotlib reads "$...$" as mathematics,
    and a name such as "$\\frac$" would stop the drawing."""
    return str(text).replace("$", r"\$")


def legend(ax: Axes, **kw: Any) -> Any:
    """The axes' legend, its entries (names, never mathematics) shown literally."""
    handles, names = ax.get_legend_handles_labels()
    return ax.legend(handles, [literal(n) for n in names], **kw)


def labels(names: object, count: int, stem: str) -> list[str]:
    """Names from the metadata when they fit the number of columns, generic ones otherwise."""
    if isinstance(names, list | tuple) and len(names) == count:
        return [str(s) for s in names]
    return [f"{stem} {k + 1}" for k in range(count)]


def solver_tol(result: SimulationResult) -> float | None:
    """The run's NLP tolerance (options.tolerances.tol), if recorded."""
    tol = result.meta.get("options", {}).get("tolerances", {}).get("tol")
    return float(tol) if isinstance(tol, int | float) and not isinstance(tol, bool) else None


def fixed_layout(
    fig: Figure,
    rows: int,
    cols: int,
    *,
    left: float = 1.15,
    right: float = 0.3,
    top: float = 0.65,
    bottom: float = 0.6,
    hgap: float = 0.3,
    wgap: float = 1.3,
) -> None:
    """Margins and gaps in inches for a grid of rows x cols axes: a fixed layout instead of
    tight_layout, which costs a full extra draw of every figure."""
    w, h = fig.get_size_inches()
    axes_w = max((w - left - right - (cols - 1) * wgap) / cols, 0.1)
    axes_h = max((h - top - bottom - (rows - 1) * hgap) / rows, 0.1)
    fig.subplots_adjust(
        left=left / w,
        right=1 - right / w,
        top=1 - top / h,
        bottom=bottom / h,
        wspace=wgap / axes_w,
        hspace=hgap / axes_h,
    )
