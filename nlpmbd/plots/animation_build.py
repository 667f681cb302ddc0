"""Everything an animation shows, computed from a result and its scene (no viewer): frames,
the magnified motion, the solids, the contact arrows, the ghost of an overlay run, and the
flexible bodies' drawn meshes (animation_flexible.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .animation_contacts import Contacts, contacts
from .animation_flexible import Drawing, drawings, frame_budget, node_frames
from .animation_frames import (
    MAX_FRAMES,
    Motion,
    default_magnify,
    frame_times,
    motion,
    resample_poses,
)
from .animation_joints import ground_solids, journal_solids, link_depths, parent_solids
from .animation_scene import PALETTE, Scene
from .animation_solids import (
    GROUND_COLOR,
    Layout,
    Solid,
    body_solids,
    inertia_box,
    layout,
    outline,
)


@dataclass
class Ghost:
    """The overlay run's bodies at the animation's frames: positions (n, N, 3), Euler
    parameters (n, N, 4), the overlay's body index per body of the scene (-1: absent)."""

    pos: np.ndarray
    quat: np.ndarray
    index: list[int]
    label: str


@dataclass
class AnimationData:
    scene: Scene
    motion: Motion
    layout: Layout
    contacts: Contacts
    bodies: list[list[Solid]]
    parents: list[list[Solid]]
    journals: list[list[Solid]]
    ground: list[Solid]
    ghost: Ghost | None
    centre: np.ndarray
    box: np.ndarray  # (2, 3) lowest and highest corner of all that is drawn
    view_size: float
    gravity: np.ndarray
    magnify_given: bool
    flexible: list[Drawing] = field(default_factory=list)
    deform_given: bool = False


def mechanism_size(scene: Scene, m: Motion, nodes: np.ndarray | None = None) -> float:
    """Diagonal of the box holding every centre of mass, joint point and node (n, K, 2) over
    the run, at least the longest side of a body's inertia box."""
    points = [m.pos.reshape(-1, 3), m.point_parent.reshape(-1, 3), m.point_child.reshape(-1, 3)]
    if nodes is not None and nodes.size:
        points.append(np.pad(nodes.reshape(-1, 2), ((0, 0), (0, 1))))
    cloud = np.concatenate(points)
    diagonal = float(np.linalg.norm(np.ptp(cloud, axis=0))) if cloud.size else 0.0
    boxes = [float(inertia_box(b, 1.0)[0].max()) for b in scene.bodies if b.inertia is not None]
    size = max(diagonal, *boxes, 0.0)
    return size if size > 0 else 1.0


def _ghost(overlay: Any, scene: Scene, times: np.ndarray, label: str) -> Ghost:
    names = list(overlay.body_names)
    t = np.asarray(overlay.t)
    pos, quat = resample_poses(t, overlay.q, np.clip(times, t[0], t[-1]))
    index = [names.index(b.name) if b.name in names else -1 for b in scene.bodies]
    return Ghost(pos, quat, index, label)


def _view(m: Motion, bodies: list[list[Solid]], extra: list[np.ndarray], size: float) -> tuple:
    """(lowest and highest corner, diagonal) of the box holding all that is drawn."""
    drawn = [m.journal.reshape(-1, 3), *extra]
    for b, solids in enumerate(bodies):
        if solids:
            local = np.concatenate([outline(s) for s in solids])
            drawn.append(
                (m.pos[:, b, None, :] + local @ np.swapaxes(m.rot[:, b], 1, 2)).reshape(-1, 3)
            )
    cloud = np.concatenate([m.pos.reshape(-1, 3), *drawn])
    low, high = cloud.min(axis=0), cloud.max(axis=0)
    return np.array([low, high]), max(float(np.linalg.norm(high - low)), 0.3 * size)


def _flexible(
    result: Any, scene: Scene, nodes: np.ndarray, k: float, lay: Layout, deform: float | None
) -> tuple[list[Drawing], list[Solid]]:
    """The flexible bodies as drawn (animation_flexible.py) and their guides' rails."""
    colors = [PALETTE[(len(scene.bodies) + i) % len(PALETTE)] for i in range(len(PALETTE))]
    flex = drawings(result.meta, nodes, scene.nodes.faces, k, colors, 0.3 * lay.width, deform)
    rails = [
        Solid("box", tuple(float(x) for x in sides), GROUND_COLOR, centre, rot)
        for d in flex
        for centre, sides, rot in d.rails
    ]
    return flex, rails


def build(
    result: Any,
    scene: Scene,
    *,
    magnify: float | None = None,
    fps: float = 30.0,
    overlay: Any = None,
    overlay_label: str = "ideal",
    max_frames: int = MAX_FRAMES,
    deform: float | None = None,
) -> AnimationData:
    """The animation of `result` (a SimulationResult) drawn with `scene`; K = `magnify` or
    the default of animation_frames.default_magnify; flexible bodies' deformations drawn
    `deform` times (default: animation_flexible.py)."""
    times = frame_times(np.asarray(result.t), fps, frame_budget(result.meta, max_frames))
    pos, quat = resample_poses(np.asarray(result.t), np.asarray(result.q), times)
    nodes = node_frames(np.asarray(result.t), np.asarray(result.node_q), times)
    size = mechanism_size(scene, motion(scene, times, pos, quat, 1.0), nodes)
    k = float(magnify) if magnify is not None else default_magnify(scene, size)
    m = motion(scene, times, pos, quat, k)
    lay = layout(scene, m, size)
    bodies = body_solids(scene, lay)
    lay.depth = link_depths(scene, bodies)
    flex, rails = _flexible(result, scene, nodes, k, lay, deform)
    arrows = contacts(result, scene, m, size, flex)
    ghost = _ghost(overlay, scene, times, overlay_label) if overlay is not None else None
    extra = [arrows.point.reshape(-1, 3)] + ([ghost.pos.reshape(-1, 3)] if ghost else [])
    extra += [d.nodes.reshape(-1, 3) for d in flex] + [outline(s) for s in rails]
    box, view_size = _view(m, bodies, extra, size)
    return AnimationData(
        scene,
        m,
        lay,
        arrows,
        bodies,
        parent_solids(scene, lay),
        journal_solids(scene, lay),
        ground_solids(scene, lay, m) + rails,
        ghost,
        box.mean(axis=0),
        box,
        view_size,
        np.asarray(result.meta.get("gravity", [0.0, -9.81, 0.0]), float),
        magnify is not None,
        flex,
        deform is not None,
    )
