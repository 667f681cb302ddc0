"""Figures of flexible bodies (issue 18; Zheng & Wang's flexible slider), drawn for every result
whose system has nodes (node_q.shape[1] > 0) and describes them (meta["flexible"]):

- node_velocities: x and y velocity of each body's four corner nodes (the paper's Fig. 8);
- node_forces: normal (y) and friction (x) contact force on each node of the lower and upper
  faces, sign as stored (global axes; the lower guide pushes up, the upper one down);
- friction_total: per body the friction and the normal force summed over all its nodes, and
  over each of the two faces;
- deformed_slider: the mesh at SNAPSHOTS times spread over the run, in the body's moving frame
  (each snapshot's mean node position subtracted), its deformation (displacement from the
  mean-translated reference) magnified so that the largest one drawn is FRACTION of the body's
  height (`magnification`), over the reference mesh dashed grey.

Forces follow the force-row convention (scales.force_rows). A body's nodes are consecutive
columns of node_q, in the order of meta["flexible"]. Matplotlib objects are only passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..io.result import SimulationResult
from .scales import COLORS, force_rows, legend, literal, min_span, relative_span, style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Draw = Callable[[list["Axes"], SimulationResult], None]

CORNERS = ("lower-left", "lower-right", "upper-right", "upper-left")
FACES = ("lower", "upper")
#: Dash patterns of node lines, cycled with the colours (distinct pairs for 20 lines): lines
#: that coincide (symmetric nodes, a rigid translation) still show each colour.
DASHES = ("-", (0, (5, 2)), (0, (1, 1.2)), (0, (6, 2, 1, 2)))
#: Snapshots of the deformed mesh, and the largest drawn displacement as a fraction of height.
SNAPSHOTS = 6
FRACTION = 0.1
#: Panels of deformed-mesh snapshots per row, and their height (in): the figure is sized to the
#: mesh's aspect with the margins of scales.fixed_layout and the row gap figures.render leaves.
SNAPSHOT_COLUMNS = 3
PANEL_HEIGHT = 2.4
MARGINS = (1.45, 1.3, 1.25, 0.85)  # left + right, column gap, top + bottom, row gap
#: Legends above the curves: at most this many columns; the y axis grows to leave them room.
LEGEND_COLUMNS = 6


@dataclass(frozen=True)
class Strip:
    """One flexible body of a result: its name, first column in node_q, and its description
    (FlexibleBody.describe(): nodes, elements, size, quads, corners, faces)."""

    name: str
    offset: int
    info: dict[str, Any]

    def columns(self, nodes: Any = None) -> np.ndarray:
        """Columns in node_q of the given node numbers (default: all the body's nodes)."""
        local = np.arange(int(self.info["nodes"])) if nodes is None else np.asarray(nodes)
        return self.offset + local.astype(int)

    def label(self, node: int) -> str:
        return f"{self.name}[{int(node)}]"

    @property
    def height(self) -> float:
        return float(self.info["size"][1])

    @property
    def reference(self) -> np.ndarray:
        """Undeformed node positions (n_nodes, 2) from the lower-left corner, node order."""
        nx, ny = (int(n) for n in self.info["elements"])
        width, height = (float(s) for s in self.info["size"][:2])
        xx, yy = np.meshgrid(np.linspace(0.0, width, nx + 1), np.linspace(0.0, height, ny + 1))
        return np.column_stack([xx.ravel(), yy.ravel()])


def strips(result: SimulationResult) -> list[Strip]:
    """The result's flexible bodies; [] without nodes or when meta["flexible"] does not account
    for them (a hand-made result: no figures rather than wrong ones)."""
    count = result.node_q.shape[1] if result.node_q.ndim == 3 else 0
    described = result.meta.get("flexible")
    if count == 0 or not isinstance(described, list):
        return []
    out, offset = [], 0
    try:
        for info in described:
            out.append(Strip(str(info["name"]), offset, info))
            offset += int(info["nodes"])
            if out[-1].reference.shape[0] != int(info["nodes"]):
                return []
    except (KeyError, TypeError, ValueError):
        return []
    return out if offset == count else []


def flexible_figures(
    result: SimulationResult,
) -> list[tuple[str, str, tuple[int, int], Draw, bool]]:
    """(name, title, grid, draw, time axis) of the figures of flexible bodies, [] without."""
    bodies = strips(result)
    if not bodies:
        return []
    factors = []
    for strip in bodies:
        _, shift, factor = deformation(result, strip)
        peak = float(np.max(np.linalg.norm(shift, axis=-1), initial=0.0))
        drawn = f"drawn as {FRACTION:.0%} of height" if factor > 1 else "true to scale"
        factors.append(f"x {factor:.3g} ({strip.name}: largest {1e3 * peak:.3g} mm {drawn})")
    mesh = (
        f"deformed mesh in the moving frame (dashed: reference), deformation {', '.join(factors)}"
    )
    rows = len(bodies) * -(-SNAPSHOTS // SNAPSHOT_COLUMNS)
    total = "friction and normal force summed over the nodes"
    return [
        ("node_velocities", "velocities of the corner nodes", (2, 1), node_velocities, True),
        ("node_forces", "contact forces on the face nodes", (2, 2), node_forces, True),
        ("friction_total", total, (2, 1), friction_total, True),
        ("deformed_slider", mesh, (rows, SNAPSHOT_COLUMNS), deformed, False),
    ]


def node_style(k: int) -> dict[str, Any]:
    """Colour and dash pattern of the k-th node line (COLORS and DASHES cycled together)."""
    return {"color": COLORS[k % len(COLORS)], "ls": DASHES[k % len(DASHES)]}


def node_velocities(axes: list[Axes], result: SimulationResult) -> None:
    """x (axes[0]) and y (axes[1]) velocity of each body's corners, one line per corner."""
    k = 0
    for strip in strips(result):
        for corner, node in zip(CORNERS, strip.info["corners"], strict=True):
            column = strip.columns([node])[0]
            label = f"{corner} ({strip.label(node)})"
            for i, ax in enumerate(axes):
                v, kw = result.node_v[:, column, i], node_style(k)
                ax.plot(result.t, v, lw=0.9, label=label if i == 0 else "_nolegend_", **kw)
            k += 1
    span = relative_span([result.node_v], 1e-6)
    for ax, coord in zip(axes, "xy", strict=True):
        ax.set_ylabel(f"corner velocity d{coord}/dt (m/s)")
        min_span(ax, span)
    legend_above(axes[0], 4)


def node_forces(axes: list[Axes], result: SimulationResult) -> None:
    """Axes row-major 2 x 2: per face (lower, upper) its nodes' normal (y) and friction (x)
    forces, from row 1 at the step starts; one style per node, the same in both panels."""
    t, rows = force_rows(result)
    force = result.node_force[rows]
    bodies = strips(result)
    title = f"nodes of {bodies[0].name}" if len(bodies) == 1 else "nodes"
    span = relative_span([force], 1e-6)
    for f, face in enumerate(FACES):
        normal, friction = axes[2 * f], axes[2 * f + 1]
        k = 0
        for strip in bodies:
            for node in strip.info["faces"][face]:
                column, kw = strip.columns([node])[0], node_style(k)
                label = str(node) if len(bodies) == 1 else strip.label(node)
                normal.plot(t, force[:, column, 1], lw=0.9, label=label, **kw)
                friction.plot(t, force[:, column, 0], lw=0.9, label=label, **kw)
                k += 1
        normal.set_ylabel(f"{face} face: normal force y (N)")
        friction.set_ylabel(f"{face} face: friction force x (N)")
        for ax in (normal, friction):
            min_span(ax, span)
            legend_above(ax, LEGEND_COLUMNS, title)


def friction_total(axes: list[Axes], result: SimulationResult) -> None:
    """Per body: friction (x, axes[0]) and normal force (y, axes[1]) summed over all its nodes
    (the first body: solid), over the lower face (dashed) and over the upper face (dotted), each
    in its own colour and dashes (a face that carries everything coincides with the total)."""
    t, rows = force_rows(result)
    force = result.node_force[rows]
    for b, strip in enumerate(strips(result)):
        parts = [("all nodes", strip.columns(), 1.4)]
        parts += [(f"{face} face", strip.columns(strip.info["faces"][face]), 1.0) for face in FACES]
        for j, (name, columns, lw) in enumerate(parts):
            kw = node_style(3 * b + j)
            for i, ax in enumerate(axes):
                y = force[:, columns, i].sum(axis=1)
                label = f"{strip.name}: {name}" if i == 0 else "_nolegend_"
                ax.plot(t, y, lw=lw, label=label, **kw)
    axes[0].set_ylabel("summed friction force x (N)")
    axes[1].set_ylabel("summed normal force y (N)")
    span = relative_span([force], 1e-6)
    for ax in axes:
        ax.axhline(0.0, color="0.5", lw=0.6)
        min_span(ax, span)
    legend_above(axes[0], 3)


def legend_above(ax: Axes, columns: int, title: str | None = None) -> None:
    """The axes' legend in up to `columns` columns at its top, the y axis extended so that it
    covers no curve (figures.render leaves a placed legend alone)."""
    count = len(ax.get_legend_handles_labels()[1])
    if count == 0:
        return
    ncol = min(count, columns)
    rows = -(-count // ncol) + (title is not None)
    lo, hi = ax.get_ylim()
    room = 0.05 + 0.1 * rows  # of the axes' height
    ax.set_ylim(lo, lo + (hi - lo) / (1.0 - room))
    legend(
        ax, loc="upper center", ncol=ncol, fontsize="x-small", title=title, title_fontsize="x-small"
    )


def snapshot_rows(t: np.ndarray, count: int = SNAPSHOTS) -> np.ndarray:
    """Rows of `count` snapshots spread over the run: the first rows at or after
    t0 + (k / count) (t_end - t0), k = 1..count (so the last is the end), without repeats."""
    t = np.asarray(t, dtype=float)
    if t.size < 2:
        return np.arange(t.size)
    targets = t[0] + (t[-1] - t[0]) * np.arange(1, count + 1) / count
    rows = np.searchsorted(t, targets - 1e-9 * (t[-1] - t[0]))  # rounding: t[k] just below
    return np.unique(np.clip(rows, 0, t.size - 1))


def moving_frame(points: np.ndarray) -> np.ndarray:
    """Points (..., n, 2) less their mean over the n nodes."""
    return points - points.mean(axis=-2, keepdims=True)


def magnification(displacement: np.ndarray, height: float, fraction: float = FRACTION) -> float:
    """Factor that draws the largest nodal displacement |d| (Euclidean, over all snapshots and
    nodes) as `fraction` of the height; never below 1 (a deformation larger than that is drawn
    true to scale), 1 when nothing deforms."""
    peak = float(np.max(np.linalg.norm(displacement, axis=-1), initial=0.0))
    if not peak > 0:
        return 1.0
    return max(fraction * height / peak, 1.0)


def deformation(result: SimulationResult, strip: Strip) -> tuple[np.ndarray, np.ndarray, float]:
    """(snapshot rows, displacements (rows, n, 2) from the mean-translated reference in the
    moving frame, magnification)."""
    rows = snapshot_rows(result.t)
    shift = moving_frame(result.node_q[rows][:, strip.columns()]) - moving_frame(strip.reference)
    return rows, shift, magnification(shift, strip.height)


def deformed(axes: list[Axes], result: SimulationResult) -> None:
    """Per body a block of SNAPSHOTS panels (SNAPSHOT_COLUMNS per row): the magnified mesh in
    the moving frame over the reference mesh (dashed grey); equal limits within a block."""
    per_body = -(-SNAPSHOTS // SNAPSHOT_COLUMNS) * SNAPSHOT_COLUMNS
    for b, strip in enumerate(strips(result)):
        block = axes[b * per_body : (b + 1) * per_body]
        rows, shift, factor = deformation(result, strip)
        reference = moving_frame(strip.reference)
        drawn = reference + factor * shift
        quads = np.asarray(strip.info["quads"], dtype=int)
        reach = np.max(np.abs(np.concatenate([drawn, reference[None]])), axis=(0, 1))
        reach = reach + 0.1 * strip.height
        _fit_figure(block[0], len(axes) // SNAPSHOT_COLUMNS, float(reach[0] / reach[1]))
        for s, ax in enumerate(block):
            if s >= rows.size:
                ax.set_axis_off()
                continue
            _mesh(ax, reference, quads, color="0.55", ls="--", lw=0.8)
            _mesh(ax, drawn[s], quads, color=style(b)["color"], lw=1.3, marker=".", ms=4)
            ax.set_title(f"{literal(strip.name)}, t = {result.t[rows[s]]:.4g} s", fontsize="medium")
            ax.set_xlim(-reach[0], reach[0])
            ax.set_ylim(-reach[1], reach[1])
            ax.set_aspect("equal")
            if s >= per_body - SNAPSHOT_COLUMNS:
                ax.set_xlabel("x - mean x (m)")
            if s % SNAPSHOT_COLUMNS == 0:
                ax.set_ylabel("y - mean y (m)")


def _fit_figure(ax: Axes, rows: int, aspect: float) -> None:
    """Size the figure so that its panels (rows x SNAPSHOT_COLUMNS, PANEL_HEIGHT high) have
    the mesh's aspect (width / height, kept within 0.6 and 2.5)."""
    width = PANEL_HEIGHT * min(max(aspect, 0.6), 2.5)
    sides, column_gap, top_bottom, row_gap = MARGINS
    fig_width = sides + (SNAPSHOT_COLUMNS - 1) * column_gap + SNAPSHOT_COLUMNS * width
    fig = ax.get_figure(root=True)
    if fig is not None:
        fig.set_size_inches(fig_width, top_bottom + (rows - 1) * row_gap + rows * PANEL_HEIGHT)


def _mesh(ax: Axes, points: np.ndarray, quads: np.ndarray, **kw: Any) -> None:
    """The element edges as one line (each quad closed, quads apart by NaN breaks)."""
    loops = points[np.column_stack([quads, quads[:, :1]])]  # (elements, 5, 2)
    gaps = np.full((quads.shape[0], 1, 2), np.nan)
    path = np.concatenate([loops, gaps], axis=1).reshape(-1, 2)
    ax.plot(path[:, 0], path[:, 1], **kw)
