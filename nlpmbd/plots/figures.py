"""Standard figures of a SimulationResult: positions, velocities, orientation (Cardan angles and
angular velocities), step size, residuals, energy, joint forces (the paper's CF-x, CF-y, CF-z),
and when the system has contacts the contact forces, gaps and contact-point tracks (joint end
points, slider vertices); per radial clearance joint its journal orbit, eccentricity and forces
(plots/orbit.py); for flexible bodies their corner-node velocities, face-node forces, summed
friction and deformed mesh (plots/flexible.py); then the figures joints declare
(plots/joint_figures.py).

A second result can be drawn dashed over the first (`overlay`, e.g. the ideal-joint run under a
clearance run): positions, velocities, orientation, energy and joint forces then get a
difference panel under every overlaid panel, run minus overlay on a common time grid
(plots/difference.py).

Matplotlib is imported inside `plot_result` only, so `import nlpmbd` never loads it. Figures are
plain `matplotlib.figure.Figure` objects on an Agg canvas: no pyplot, no global state, nothing to
close (each figure is cleared after saving and then dropped).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from ..io.result import SimulationResult
from . import standard
from .difference import Overlay, run_label
from .flexible import flexible_figures
from .joint_figures import joint_figures
from .orbit import clearance_figures
from .orientation import active_rows, orientation
from .saving import save_figure
from .scales import fixed_layout, legend, literal

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Legends with more entries than this are left out (the plot would be all legend); with more
#: than OUTSIDE they are drawn beside the axes instead of over the curves.
MAX_LEGEND = 24
OUTSIDE = 8

Draw = Callable[[list["Axes"], SimulationResult], None]
#: The standard figures a run draws (`--figures standard`, the default): where the bodies went,
#: the energy, how h was chosen (where it varied), the contacts; then every clearance joint's,
#: flexible body's
#: and joint-declared figure. `--figures all` (and `nlpmbd plot`) adds velocities, orientation,
#: residuals, joint forces and contact points. Drawing all of them took 1.8 s CPU for a
#: 500-step clearance pendulum run (10 PNGs), as much as the rest of the command.
STANDARD = frozenset({"positions", "energy", "step_size", "contacts"})
FIGURE_SETS = ("standard", "all")


@dataclass
class Spec:
    """One standard figure: file stem, title, grid (rows, cols), drawing function, the
    overlay it compares (None: not compared), and whether its axes share the time axis (else
    the drawing function labels and scales x itself)."""

    name: str
    title: str
    shape: tuple[int, int]
    draw: Draw
    over: Overlay | None = None
    time_axis: bool = True
    standard: bool = False  # in the standard set (STANDARD)


def plot_result(
    result: SimulationResult,
    out_dir: str | os.PathLike,
    *,
    fmt: str = "png",
    dpi: int = 100,
    overlay: SimulationResult | None = None,
    overlay_label: str = "reference",
    figures: str = "standard",
) -> list[Path]:
    """Write the figures of a result into out_dir and return their paths: the STANDARD set or
    `figures` "all".

    `overlay` (same bodies and joints by name) is drawn dashed in positions, velocities,
    orientation, energy and joint forces, labelled `overlay_label`, with difference panels.
    """
    from matplotlib.backend_bases import FigureCanvasBase

    if fmt not in FigureCanvasBase.get_supported_filetypes():
        raise InputError(f"unsupported figure format {fmt!r}")
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Real) or not dpi > 0:
        raise InputError(f"dpi must be a positive number, got {dpi!r}")
    if figures not in FIGURE_SETS:
        raise InputError(f"figures must be one of {', '.join(FIGURE_SETS)}, got {figures!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    case = result.meta.get("case")
    prefix = f"{literal(case)}: " if case else ""
    paths = [
        _save(result, out / f"{spec.name}.{fmt}", prefix + spec.title, spec, dpi)
        for spec in figure_specs(result, overlay, overlay_label)
        if figures == "all" or spec.standard
    ]
    paths += clearance_figures(result, out, fmt, dpi)
    # figures that joints declare (describe()["figures"]; plots/joint_figures.py)
    paths += joint_figures(result, out, dpi)
    return paths


def figure_specs(
    result: SimulationResult, overlay: SimulationResult | None, overlay_label: str = "reference"
) -> list[Spec]:
    """The standard figures that apply to `result`, in drawing order; each compared figure has
    its own Overlay (which records the curves it compares)."""

    def over() -> Overlay | None:
        if overlay is None:
            return None
        return Overlay(overlay, overlay_label, run_label(result, overlay))

    specs = [
        Spec("positions", "centre-of-mass positions", (3, 1), partial(standard.per_body, width=7)),
        Spec(
            "velocities", "centre-of-mass velocities", (3, 1), partial(standard.per_body, width=6)
        ),
    ]
    if result.q.shape[1]:
        rows = tuple(active_rows(result, overlay))
        draw = partial(orientation, rows=rows)
        specs.append(Spec("orientation", "orientation and angular velocity", (len(rows), 2), draw))
    specs += [
        Spec("step_size", f"step size and {result.iteration_unit}", (2, 1), standard.step_size),
        Spec("residuals", "residuals per step", (2, 2), standard.residuals),
        Spec("energy", "energy", (2, 1), standard.energy),
    ]
    if result.joint_force.shape[1] > 0:
        title = "joint forces on the moving body (CF-x, CF-y, CF-z)"
        specs.append(Spec("joint_forces", title, (3, 1), standard.joint_forces))
    if result.lam.shape[1] > 0:
        specs.append(Spec("contacts", "contact forces and gaps", (2, 1), standard.contacts))
        title = "contact points (global)"
        specs.append(Spec("contact_points", title, (3, 1), standard.contact_points))
    varied = result.n_steps > 1 and float(result.h.max() - result.h.min()) > 1e-9 * result.h.max()
    for spec in specs:  # the step size is news only where it varied
        spec.standard = spec.name in STANDARD and (spec.name != "step_size" or varied)
    for name, title, shape, drawing, time_axis in flexible_figures(result):
        specs.append(Spec(name, title, shape, drawing, time_axis=time_axis, standard=True))
    compared = ("positions", "velocities", "orientation", "energy", "joint_forces")
    for spec in specs:
        if spec.name in compared:
            spec.over = over()
            spec.draw = partial(spec.draw, over=spec.over)  # type: ignore[call-arg]
    return specs


def _save(result: SimulationResult, path: Path, title: str, spec: Spec, dpi: float) -> Path:
    """Draw one standard figure (`render`), write it and clear it."""
    return save_figure(render(result, spec, title), path, dpi)


def render(result: SimulationResult, spec: Spec, title: str = "") -> Figure:
    """One standard figure on an Agg canvas: a grid of axes sharing the time axis (with an
    overlay: a difference panel under each), drawn and laid out."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows, cols = spec.shape
    diff = spec.over is not None
    fig = Figure(figsize=(5.0 + 3.5 * cols, 1.0 + (3.3 if diff else 2.3) * rows))
    FigureCanvasAgg(fig)
    ratios = [2.2, 1.0] * rows if diff else [1.0] * rows
    grid = fig.subplots(
        len(ratios),
        cols,
        sharex=spec.time_axis,
        squeeze=False,
        gridspec_kw={"height_ratios": ratios},
    )
    axes = list((grid[0::2] if diff else grid).ravel())
    spec.draw(axes, result)
    if spec.over is not None:
        spec.over.draw_differences(axes, list(grid[1::2].ravel()))
    for ax in grid.ravel():
        ax.grid(True, which="major", alpha=0.35)
    right = _legends(fig, axes, cols)
    for ax in grid[-1] if spec.time_axis else ():
        ax.set_xlabel("time t (s)")
    fig.suptitle(title)
    titled = spec.name == "residuals"  # axes titles need room between the rows
    hgap = 0.55 if titled else 0.3 if spec.time_axis else 0.85  # titles and x tick labels
    fixed_layout(fig, len(ratios), cols, hgap=hgap, right=right)
    return fig


def _legends(fig: Figure, axes: list[Axes], cols: int) -> float:
    """Legends of up to MAX_LEGEND entries; with more than OUTSIDE entries in a one-column
    figure they go to the right of the axes, on a wider figure (axes whose drawing placed a
    legend keep it). Returns the right margin (inches) that leaves."""
    counts = [0 if ax.get_legend() else len(ax.get_legend_handles_labels()[1]) for ax in axes]
    outside = cols == 1 and max(counts, default=0) > OUTSIDE
    for ax, n in zip(axes, counts, strict=True):
        if not 0 < n <= MAX_LEGEND:
            continue
        if outside:
            legend(ax, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:
            legend(ax, fontsize="small", ncol=1 + (n - 1) // 8)
    if not outside:
        return 0.3
    w, h = fig.get_size_inches()
    fig.set_size_inches(w + 2.6, h)
    return 2.9
