"""`nlpmbd animate DIR`: a saved result as ONE self-contained HTML page with the mechanism in
3-D, made with meshcat (pip `meshcat`): its commands are lowered to msgpack without a server
and replayed by its viewer bundle (meshcat/viewer/dist/main.min.js, three.js inside), inlined
in the page like meshcat's own static-HTML export. The viewer's control panel (top right,
"Animations") has play, pause, reset, a time scrubber and timeScale (the playback speed).

What is drawn (animation_solids.py, animation_joints.py): the bodies in their colours, the
joints, the ground's axes and a grid below the mechanism; contact forces as arrows at the
contact points in the frames where they act (animation_contacts.py); an overlay run as a
translucent ghost. Clearances are magnified by K (animation_frames.py): every journal is drawn
K times farther from its hole's centre than computed, in a hole of radius r + K c; in an open
chain the bodies are translated to match, in a closed loop they stay at their computed poses.
Flexible bodies (animation_flexible.py): every element edge a thin box whose position,
quaternion and scale tracks follow its end nodes, a small sphere per node, deformations drawn
K_def times, the gaps to a guide's faces K times. The page states the rules, K and K_def in its
caption.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import numpy as np

from .animation_build import AnimationData, build
from .animation_flexible import edge_tracks
from .animation_meshcat import (
    animation_command,
    lines_command,
    pack,
    quaternions_from_y,
    solid_commands,
    static_commands,
    view_transform,
    xyzw,
)
from .animation_page import page, write_page
from .animation_scene import Scene
from .animation_solids import Solid

#: The default camera, viewer units in its y-up frame: in front (+z of the run), a little
#: right and above.
CAMERA = np.array([0.25, 0.2, 1.3])
ARROW_COLOR, DOT_COLOR = 0xC0002A, 0x202020
TINY = 1e-6  # scale of a hidden arrow


def _ghost_solids(data: AnimationData, b: int) -> list[Solid]:
    """A body's solids and its journals', translucent, in its own frame."""
    out = [
        Solid(s.kind, s.dims, s.color, s.offset, s.rotation, 0.25, s.mesh) for s in data.bodies[b]
    ]
    for link, solids in zip(data.scene.links, data.journals, strict=True):
        if link.child == b:
            for s in solids:
                out.append(
                    Solid(
                        s.kind, s.dims, s.color, s.offset + link.s_child, s.rotation, 0.25, s.mesh
                    )
                )
    return out


def _grid(data: AnimationData) -> np.ndarray:
    """Grid lines (2k, 3) in the plane normal to "up", below everything drawn."""
    g = data.gravity
    up = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.array([0.0, 1.0, 0.0])
    h1 = np.cross(up, [0.0, 0.0, 1.0]) if abs(up[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    h1 /= np.linalg.norm(h1)
    h2 = np.cross(h1, up)
    half = 0.6 * data.view_size
    step = 10.0 ** np.floor(np.log10(half / 4))
    step *= 5 if half / step > 20 else 2 if half / step > 8 else 1
    corners = np.array(
        [data.box[list(ijk), [0, 1, 2]] for ijk in itertools.product((0, 1), repeat=3)]
    )
    low = float((corners @ up).min()) - 0.05 * data.view_size
    base = data.centre - np.dot(data.centre, up) * up + low * up
    ticks = np.arange(-np.floor(half / step), np.floor(half / step) + 1) * step
    lines = []
    for a, b in ((h1, h2), (h2, h1)):
        for x in ticks:
            lines += [base + x * a - ticks[-1] * b, base + x * a + ticks[-1] * b]
    return np.array(lines)


def scene_commands(data: AnimationData) -> list[dict]:
    """The static part: view, ground, bodies' and joints' solids, ghost, contact glyphs."""
    transform = view_transform(data.gravity, data.centre, data.view_size)
    out = static_commands(transform, CAMERA)
    out.append(lines_command(_grid(data), 0xA0A4AA, "grid"))
    for i, solid in enumerate(data.ground):
        out += solid_commands(solid, "ground", f"s{i}")
    names = [b.name for b in data.scene.bodies]
    for b, solids in enumerate(data.bodies):
        out += [
            c for i, s in enumerate(solids) for c in solid_commands(s, "bodies", names[b], f"s{i}")
        ]
    for link, solids in zip(data.scene.links, data.parents, strict=True):
        where = ("bodies", names[link.parent]) if link.parent >= 0 else ("ground",)
        out += [
            c for i, s in enumerate(solids) for c in solid_commands(s, *where, f"{link.name}{i}")
        ]
    for link, solids in zip(data.scene.links, data.journals, strict=True):
        out += [
            c
            for i, s in enumerate(solids)
            for c in solid_commands(s, "journals", link.name, f"s{i}")
        ]
    if data.ghost is not None:
        for b, name in enumerate(names):
            if data.ghost.index[b] >= 0:
                for i, s in enumerate(_ghost_solids(data, b)):
                    out += solid_commands(s, "ghost", name, f"s{i}")
    out += _flexible_commands(data)
    r = 0.006 * data.layout.size
    for c in range(len(data.contacts.labels)):
        out += solid_commands(
            Solid("cylinder", (0.75, r), ARROW_COLOR, np.array([0, 0.375, 0])),
            "contacts",
            f"c{c}",
            "arrow",
            "shaft",
        )
        out += solid_commands(_head(2.4 * r), "contacts", f"c{c}", "arrow", "head")
        out += solid_commands(
            Solid("sphere", (2.0 * r,), DOT_COLOR), "contacts", f"c{c}", "dot", "s"
        )
    return out


def _flexible_commands(data: AnimationData) -> list[dict]:
    """Per flexible body: an edge box of its reference length along x per element edge, and a
    sphere per node, each below its own moving node of the scene tree."""
    w = 0.25 * data.layout.width
    out = []
    for d in data.flexible:
        for e, length in enumerate(d.length):
            edge = Solid("box", (float(length), w, w), d.color)
            out += solid_commands(edge, "flexible", d.name, f"e{e}", "s")
        for k in range(d.nodes.shape[1]):
            out += solid_commands(
                Solid("sphere", (0.8 * w,), d.color), "flexible", d.name, f"n{k}", "s"
            )
    return out


def _flexible_tracks(data: AnimationData) -> dict[tuple[str, ...], dict[str, np.ndarray]]:
    """The edges' position, quaternion and scale tracks, the nodes' position tracks."""
    tracks: dict[tuple[str, ...], dict[str, np.ndarray]] = {}
    for d in data.flexible:
        mid, quat, scale = edge_tracks(d)
        for e in range(len(d.edges)):
            tracks[("flexible", d.name, f"e{e}")] = {
                "position": mid[:, e],
                "quaternion": quat[:, e],
                "scale": scale[:, e],
            }
        for k in range(d.nodes.shape[1]):
            tracks[("flexible", d.name, f"n{k}")] = {"position": d.nodes[:, k]}
    return tracks


def _head(radius: float) -> Solid:
    """An arrow's head: a cone of height 0.25 at the tip of a unit arrow along y."""
    n = 24
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    base = np.column_stack([radius * np.cos(a), np.full(n, 0.75), radius * np.sin(a)])
    vertices = np.vstack([base, [[0, 1.0, 0], [0, 0.75, 0]]])
    i = np.arange(n)
    faces = np.vstack(
        [
            np.column_stack([i, np.full(n, n), (i + 1) % n]),
            np.column_stack([(i + 1) % n, np.full(n, n + 1), i]),
        ]
    )
    return Solid("mesh", (), ARROW_COLOR, mesh=(vertices, faces))


def motion_tracks(data: AnimationData) -> tuple[dict, set]:
    """Keyframe tracks per animated node, and the nodes whose keys hold (contacts)."""
    m = data.motion
    tracks: dict[tuple[str, ...], dict[str, np.ndarray]] = {}
    names = [b.name for b in data.scene.bodies]
    for b, name in enumerate(names):
        tracks[("bodies", name)] = {"position": m.pos[:, b], "quaternion": xyzw(m.quat[:, b])}
    for k, link in enumerate(data.scene.links):
        if data.journals[k]:
            quat = (
                xyzw(m.quat[:, link.child])
                if link.child >= 0
                else np.tile([0.0, 0, 0, 1], (len(m.times), 1))
            )
            tracks[("journals", link.name)] = {"position": m.journal[:, k], "quaternion": quat}
    if data.ghost is not None:
        for b, name in enumerate(names):
            j = data.ghost.index[b]
            if j >= 0:
                tracks[("ghost", name)] = {
                    "position": data.ghost.pos[:, j],
                    "quaternion": xyzw(data.ghost.quat[:, j]),
                }
    tracks.update(_flexible_tracks(data))
    discrete = set()
    cs = data.contacts
    for c in range(len(cs.labels)):
        on = cs.length[:, c] > 0
        grow = np.where(on, 1.0, TINY)[:, None]
        scale = np.column_stack([grow[:, 0], np.where(on, cs.length[:, c], TINY), grow[:, 0]])
        tracks[("contacts", f"c{c}", "arrow")] = {
            "position": cs.point[:, c],
            "quaternion": quaternions_from_y(cs.force[:, c]),
            "scale": scale,
        }
        tracks[("contacts", f"c{c}", "dot")] = {
            "position": cs.point[:, c],
            "scale": np.repeat(grow, 3, axis=1),
        }
        discrete |= {("contacts", f"c{c}", "arrow"), ("contacts", f"c{c}", "dot")}
    return tracks, discrete


def commands(data: AnimationData) -> list[bytes]:
    """Every command of the page, packed; one frame: the first frame's poses, no animation."""
    tracks, discrete = motion_tracks(data)
    times = data.motion.times
    if len(times) == 1:
        times = np.array([times[0], times[0] + 1.0])
        tracks = {k: {p: np.repeat(v, 2, axis=0) for p, v in t.items()} for k, t in tracks.items()}
    return [pack(c) for c in scene_commands(data)] + [
        pack(animation_command(times, tracks, discrete))
    ]


def write_animation(
    result: Any,
    scene: Scene,
    out: str | os.PathLike,
    *,
    title: str,
    magnify: float | None = None,
    fps: float = 30.0,
    speed: float = 1.0,
    overlay: Any = None,
    overlay_label: str = "ideal run",
) -> tuple[Path, AnimationData]:
    """Write the page of `result` (a SimulationResult) to `out`; (path, what was drawn)."""
    data = build(
        result, scene, magnify=magnify, fps=fps, overlay=overlay, overlay_label=overlay_label
    )
    return write_page(out, page(data, commands(data), title, speed)), data
