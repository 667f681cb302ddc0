"""A GIF of an animation (`nlpmbd animate DIR --gif`): left, the page's mechanism projected
onto the viewer's front plane (the same solids, magnification and arrows, no perspective);
right, the orbit of the loosest journal, its offset e / c inside the clearance circle |e| = c
(the pin's or ball's offset in the hole's cross-section; a planar slider's lateral offset over
time). Drawn with matplotlib (Agg, no pyplot) and written by its PillowWriter (Pillow ships the
GIF encoder)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..io.atomic import replacing
from .animation_build import AnimationData
from .animation_meshcat import view_transform
from .animation_solids import Solid, bar, circle, outline
from .scales import literal

#: Most frames of a GIF, and its frame rate.
GIF_FRAMES, GIF_FPS = 120, 15


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull of 2-D points, counter-clockwise (fewer than 3 points if degenerate)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return points[ConvexHull(points).vertices]
    except (QhullError, ValueError):
        return points[:0]


def _groups(data: AnimationData, k: int) -> list[tuple[list[Solid], np.ndarray, np.ndarray]]:
    """(solids, position, rotation) of every moving frame at frame k, the ground first."""
    m = data.motion
    ground = (np.zeros(3), np.eye(3))
    out = [(data.ground, *ground)]
    out += [(solids, m.pos[k, b], m.rot[k, b]) for b, solids in enumerate(data.bodies)]
    for link, solids in zip(data.scene.links, data.parents, strict=True):
        pose = (m.pos[k, link.parent], m.rot[k, link.parent]) if link.parent >= 0 else ground
        out.append((solids, *pose))
    for j, (link, solids) in enumerate(zip(data.scene.links, data.journals, strict=True)):
        rot = m.rot[k, link.child] if link.child >= 0 else np.eye(3)
        out.append((solids, m.journal[k, j], rot))
    for d in data.flexible:  # the element edges as bars
        bars = [
            bar(d.nodes[k, a], d.nodes[k, b], 0.25 * data.layout.width, d.color) for a, b in d.edges
        ]
        out.append((bars, *ground))
    return out


def _paths(data: AnimationData, k: int, view: np.ndarray) -> tuple[list[Any], list[tuple]]:
    """Paths and RGBA colours of every solid and contact arrow at frame k, far to near, in view
    coordinates (x right, z up); rings with their hole cut out."""
    from matplotlib.colors import to_rgba
    from matplotlib.path import Path as MplPath

    items = []
    for solids, pos, rot in _groups(data, k):
        for s in solids:
            v = (pos + outline(s) @ rot.T) @ view[:3, :3].T + view[:3, 3]
            loops = [_hull(v[:, [0, 2]])]
            if s.hollow[0] > 0:
                inner = (pos + (s.offset + circle(s.hollow[0]) @ s.rotation.T) @ rot.T) @ view[
                    :3, :3
                ].T
                loops.append(_hull((inner + view[:3, 3])[:, [0, 2]])[::-1])
            if len(loops[0]) >= 3:
                path = MplPath.make_compound_path(
                    *(MplPath(p, closed=True) for p in loops if len(p) >= 3)
                )
                items.append(
                    (float(v[:, 1].mean()), path, to_rgba(f"#{s.color:06x}", min(s.opacity, 0.95)))
                )
    items.sort(key=lambda item: -item[0])
    arrows = [(0.0, path, to_rgba("#c0002a")) for path in _arrows(data, k, view)]
    return [i[1] for i in items + arrows], [i[2] for i in items + arrows]


def _arrows(data: AnimationData, k: int, view: np.ndarray) -> list[Any]:
    """The contact arrows at frame k as closed 2-D outlines."""
    from matplotlib.path import Path as MplPath

    cs, out = data.contacts, []
    width = 0.012 * 1.6
    for c in range(len(cs.labels)):
        if cs.length[k, c] <= 0:
            continue
        p = (view[:3, :3] @ cs.point[k, c] + view[:3, 3])[[0, 2]]
        f = (view[:3, :3] @ (cs.force[k, c] / np.linalg.norm(cs.force[k, c])))[[0, 2]]
        length = float(np.linalg.norm(f)) * cs.length[k, c] * view_scale(view)
        if length <= 1e-9:
            continue
        d = f / np.linalg.norm(f)
        n = np.array([-d[1], d[0]])
        head = min(0.3 * length, 4 * width)
        body = length - head
        pts = [p - 0.5 * width * n, p + d * body - 0.5 * width * n, p + d * body - 1.5 * width * n,
               p + d * length, p + d * body + 1.5 * width * n, p + d * body + 0.5 * width * n,
               p + 0.5 * width * n]  # fmt: skip
        out.append(MplPath(np.array(pts), closed=True))
    return out


def view_scale(view: np.ndarray) -> float:
    return float(np.linalg.norm(view[:3, 0]))


def _orbit_link(data: AnimationData) -> int:
    """The loose link whose offset comes closest to (or beyond) its clearance, or -1."""
    best, which = 0.0, -1
    for k, link in enumerate(data.scene.links):
        if link.loose and link.clearance > 0:
            ratio = float(np.max(np.linalg.norm(data.motion.offset[:, k], axis=1))) / link.clearance
            if ratio > best:
                best, which = ratio, k
    return which


def _orbit_xy(data: AnimationData, k: int) -> tuple[np.ndarray, str]:
    """The link's offset / c as 2-D points (n, 2) and the axes' label."""
    link, m = data.scene.links[k], data.motion
    e = m.offset[:, k] / link.clearance
    rot = (
        m.rot[:, link.parent]
        if link.parent >= 0
        else np.broadcast_to(np.eye(3), (len(m.times), 3, 3))
    )
    if link.kind == "slot" and link.lateral is not None:
        w = rot @ link.lateral
        return np.column_stack([m.times, np.sum(e * w, axis=1)]), "time (s) / lateral offset e / c"
    if link.axis is not None:
        from .animation_solids import along

        frame = along(link.axis)
        a1, a2 = rot @ frame[:, 0], rot @ frame[:, 2]
        return np.column_stack(
            [np.sum(e * a1, axis=1), np.sum(e * a2, axis=1)]
        ), "e / c in the hole's cross-section"
    return e[:, :2], "e / c (x, y)"


def write_gif(
    data: AnimationData, path: str | os.PathLike, fps: int = GIF_FPS, max_frames: int = GIF_FRAMES
) -> Path:
    """Write the GIF (at most max_frames frames, evenly spread over the run)."""
    from matplotlib.animation import PillowWriter
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import PathCollection
    from matplotlib.figure import Figure

    view = view_transform(data.gravity, data.centre, data.view_size)
    k_orbit = _orbit_link(data)
    fig = Figure(figsize=(9.6, 4.8) if k_orbit >= 0 else (4.8, 4.8), dpi=80)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2 if k_orbit >= 0 else 1, squeeze=False)[0]
    fig.subplots_adjust(left=0.04, right=0.97, bottom=0.1, top=0.92, wspace=0.15)
    solids = PathCollection([], edgecolors="k", linewidths=0.4)
    axes[0].add_collection(solids)
    _frame_axes(axes[0])
    title = axes[0].set_title("", fontsize=10)
    orbit = _orbit_axes(axes[1], data, k_orbit) if k_orbit >= 0 else None
    n = len(data.motion.times)
    frames = np.unique(np.linspace(0, n - 1, min(n, max_frames)).round().astype(int))
    out = Path(path)
    writer = PillowWriter(fps=fps)
    with replacing(out) as tmp, writer.saving(fig, str(tmp), dpi=80):
        for k in frames:
            paths, colors = _paths(data, int(k), view)
            solids.set_paths(paths)
            solids.set_facecolor(colors)
            title.set_text(f"t = {data.motion.times[k]:.3f} s, clearances x{data.motion.magnify:g}")
            if orbit is not None:
                xy, trace, dot = orbit
                trace.set_data(xy[: k + 1, 0], xy[: k + 1, 1])
                dot.set_data(xy[k : k + 1, 0], xy[k : k + 1, 1])
            writer.grab_frame()
    return out


def _frame_axes(ax: Any) -> None:
    half = 0.55 * 1.6
    ax.set_xlim(-half, half)
    ax.set_ylim(-half, half)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def _orbit_axes(ax: Any, data: AnimationData, link: int) -> tuple[np.ndarray, Any, Any]:
    """The orbit panel's static part; (points, trace line, current-point marker)."""
    xy, label = _orbit_xy(data, link)
    if data.scene.links[link].kind == "slot":
        for y in (-1.0, 1.0):
            ax.axhline(y, color="0.5", lw=0.8)
        ax.set_xlim(xy[0, 0], xy[-1, 0])
    else:
        a = np.linspace(0, 2 * np.pi, 200)
        ax.plot(np.cos(a), np.sin(a), color="0.5", lw=0.8)
        ax.set_xlim(-1.3, 1.3)
        ax.set_aspect("equal")
    ax.set_ylim(-1.3, 1.3)
    ax.set_xlabel(label, fontsize=9)
    ax.tick_params(labelsize=8)
    name = literal(data.scene.links[link].name)
    ax.set_title(f"joint {name}: journal offset / clearance", fontsize=10)
    (trace,) = ax.plot([], [], color="#1f77b4", lw=0.8)
    (dot,) = ax.plot([], [], "o", color="#c0002a", ms=5)
    return xy, trace, dot
