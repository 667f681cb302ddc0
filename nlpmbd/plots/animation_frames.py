"""The motion an animation shows, frame by frame: poses resampled to evenly spaced times, each
joint's offset, and the clearance magnification.

Magnification by K (`magnify`): bodies keep their computed orientations. Every loose joint
(pin in a hole, ball in a socket, slider in a guide) has an offset e: the journal's centre
minus the hole's, its radial (for a slider: lateral) part. Its journal (pin, ball, slider
section) is drawn at the hole's drawn centre plus the computed axial part plus K e, in a hole
drawn K times wider (radius r + K c). When the joints of a group of bodies form a tree from
the ground (no closed loop), each body is moreover translated so that every joint shows K e:
a child is shifted by its parent's shift plus (K - 1) e. In a closed loop (four-bar,
slider-crank) rigid links cannot all show K e, so there the bodies stay at their computed
poses and only the journals are drawn magnified.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from .animation_flexible import DRAWN_GAP
from .animation_scene import Link, Scene

#: Most frames an animation holds, and the fewest (unless the run has fewer time points).
MAX_FRAMES, MIN_FRAMES = 1000, 200
#: Largest drawn clearance by default, as a fraction of the mechanism's size.
DRAWN_CLEARANCE = 0.05


def frame_times(t: np.ndarray, fps: float, max_frames: int = MAX_FRAMES) -> np.ndarray:
    """Evenly spaced times over the run: `fps` per simulated second, at least MIN_FRAMES (or
    the run's number of time points if fewer; slowed playback stays smooth), at most
    max_frames."""
    t0, t1 = float(t[0]), float(t[-1])
    if not t1 > t0:
        return np.array([t0])
    fewest = min(MIN_FRAMES, len(t))
    n = int(min(max_frames, max(2, fewest, math.ceil((t1 - t0) * fps) + 1)))
    return np.linspace(t0, t1, n)


def resample_poses(t: np.ndarray, q: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, ...]:
    """(positions (n, N, 3), Euler parameters (n, N, 4)) at `times`, linear in time (unit
    Euler parameters, the sign of consecutive samples kept continuous)."""
    n_bodies = q.shape[1] // 7
    if n_bodies == 0:  # flexible bodies only
        return np.zeros((len(times), 0, 3)), np.zeros((len(times), 0, 4))
    qb = q.reshape(len(t), n_bodies, 7)
    pos = np.stack([[np.interp(times, t, qb[:, b, i]) for i in range(3)] for b in range(n_bodies)])
    p = qb[:, :, 3:].copy()
    flips = np.sum(p[1:] * p[:-1], axis=2) < 0
    sign = np.concatenate([np.ones((1, n_bodies)), np.cumprod(np.where(flips, -1.0, 1.0), axis=0)])
    p *= sign[:, :, None]
    quat = np.stack([[np.interp(times, t, p[:, b, i]) for i in range(4)] for b in range(n_bodies)])
    quat /= np.maximum(np.linalg.norm(quat, axis=1, keepdims=True), 1e-300)
    return pos.transpose(2, 0, 1), quat.transpose(2, 0, 1)


def rotations(p: np.ndarray) -> np.ndarray:
    """Rotation matrices A(p) (..., 3, 3) of Euler parameters p (..., 4), body -> global."""
    e0, e = p[..., 0], p[..., 1:]
    skew = np.zeros(p.shape[:-1] + (3, 3))
    skew[..., 0, 1], skew[..., 0, 2], skew[..., 1, 2] = -e[..., 2], e[..., 1], -e[..., 0]
    skew = skew - np.swapaxes(skew, -1, -2)
    outer = e[..., :, None] * e[..., None, :]
    eye = np.eye(3) * (2 * e0**2 - 1)[..., None, None]
    return eye + 2 * (outer + e0[..., None, None] * skew)


@dataclass
class Motion:
    """Drawn poses per frame: times (n,); bodies (n, N, 3) positions and (n, N, 3, 3) rotations;
    per link: true joint points on parent and child (n, L, 3), offset e (n, L, 3), journal
    position (n, L, 3); `shift` (n, N, 3) the bodies' translations; `magnify` K."""

    times: np.ndarray
    pos: np.ndarray
    rot: np.ndarray
    quat: np.ndarray
    point_parent: np.ndarray
    point_child: np.ndarray
    offset: np.ndarray
    journal: np.ndarray
    shift: np.ndarray
    magnify: float
    tree: list[bool]  # per body: its group of bodies is a tree (bodies shifted)

    def body_pose(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(position (n, 3), rotation (n, 3, 3)) of body k; the ground for k = -1."""
        if k < 0:
            n = len(self.times)
            return np.zeros((n, 3)), np.broadcast_to(np.eye(3), (n, 3, 3))
        return self.pos[:, k], self.rot[:, k]

    def shift_of(self, k: int) -> np.ndarray:
        return self.shift[:, k] if k >= 0 else np.zeros((len(self.times), 3))


def _points(
    motion_pos: np.ndarray, motion_rot: np.ndarray, link: Link
) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for body, s in ((link.parent, link.s_parent), (link.child, link.s_child)):
        if body < 0:
            out.append(np.broadcast_to(s, (motion_pos.shape[0], 3)).copy())
        else:
            out.append(motion_pos[:, body] + motion_rot[:, body] @ s)
    return out[0], out[1]


def link_offset(link: Link, parent_rot: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The magnified part e of d = child point - parent point (n, 3): radial for a pin or a
    prismatic slider, along the slot's in-plane normal for a planar slider, all of it for a
    ball, none for an ideal joint."""
    if link.kind == "ball":
        return d
    if link.kind in ("pin", "prism") and link.axis is not None:
        u = parent_rot @ link.axis
        return d - np.sum(d * u, axis=1, keepdims=True) * u
    if link.kind == "slot" and link.lateral is not None:
        w = parent_rot @ link.lateral
        return np.sum(d * w, axis=1, keepdims=True) * w
    return np.zeros_like(d)


def _groups(scene: Scene) -> tuple[list[list[tuple[int, int, int]]], list[bool]]:
    """Breadth-first trees from the ground (then from any body left): per body, the path of
    (link, from, to) steps that reached it; per body, whether its group has no closed loop."""
    n = len(scene.bodies)
    adjacent: dict[int, list[tuple[int, int]]] = {k: [] for k in range(-1, n)}
    for k, link in enumerate(scene.links):
        adjacent[link.parent].append((k, link.child))
        adjacent[link.child].append((k, link.parent))
    step: dict[int, tuple[int, int, int] | None] = {}
    group: dict[int, int] = {}
    looped: set[int] = set()
    for root in range(-1, n):
        if root in step:
            continue
        step[root], group[root] = None, root
        queue, used = deque([root]), set()
        while queue:
            a = queue.popleft()
            for k, b in adjacent[a]:
                if k in used:
                    continue
                used.add(k)
                if b in step:
                    looped.add(root)
                    continue
                step[b], group[b] = (k, a, b), root
                queue.append(b)
    return [_path(step, b) for b in range(n)], [group[b] not in looped for b in range(n)]


def _path(step: dict, b: int) -> list[tuple[int, int, int]]:
    out = []
    while step[b] is not None:
        out.append(step[b])
        b = step[b][1]
    return out[::-1]


def default_magnify(scene: Scene, size: float) -> float:
    """K that draws the largest clearance as DRAWN_CLEARANCE of the mechanism's size, rounded
    down to 1, 2 or 5 times a power of ten, at least 1 (1 without a loose joint). The guides
    of flexible bodies count with their clearances, each drawn as at most DRAWN_GAP of the
    body's extent across it (animation_flexible.py), so that the body stays recognisable."""
    faces = [face for face in scene.nodes.faces if face.clearance > 0]
    c = max((link.clearance for link in scene.links if link.loose), default=0.0)
    c = max([c, *(face.clearance for face in faces)])
    if c <= 0 or size <= 0:
        return 1.0
    k = min([DRAWN_CLEARANCE * size / c, *(DRAWN_GAP * f.span / f.clearance for f in faces)])
    if k <= 1:
        return 1.0
    power = 10.0 ** math.floor(math.log10(k))
    return max(m * power for m in (1, 2, 5) if m * power <= k * (1 + 1e-9))


def motion(
    scene: Scene, times: np.ndarray, pos: np.ndarray, quat: np.ndarray, magnify: float
) -> Motion:
    """The drawn motion with clearance magnification K = magnify (module docstring)."""
    rot = rotations(quat)
    n, n_links = len(times), len(scene.links)
    pp, pc, off = (np.zeros((n, n_links, 3)) for _ in range(3))
    for k, link in enumerate(scene.links):
        pp[:, k], pc[:, k] = _points(pos, rot, link)
        parent_rot = rot[:, link.parent] if link.parent >= 0 else np.eye(3)
        off[:, k] = link_offset(link, parent_rot, pc[:, k] - pp[:, k])
    paths, tree = _groups(scene)
    shift = np.zeros_like(pos)
    for b, path in enumerate(paths):
        if not tree[b]:
            continue
        for k, _a, c in path:
            sign = 1.0 if c == scene.links[k].child else -1.0
            shift[:, b] += sign * (magnify - 1.0) * off[:, k]
    journal = np.zeros_like(pp)
    for k, link in enumerate(scene.links):
        base = shift[:, link.parent] if link.parent >= 0 else 0.0
        journal[:, k] = pc[:, k] + base + (magnify - 1.0) * off[:, k]
    return Motion(times, pos + shift, rot, quat, pp, pc, off, journal, shift, magnify, tree)
