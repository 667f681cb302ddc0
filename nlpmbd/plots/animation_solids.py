"""The solids an animation draws, in the frame they move with (a body, a journal, the ground):
boxes, cylinders (along their local y), spheres and triangle meshes, as plain NumPy.

Bodies: a body with two or more joint points is drawn as bars between them (a bar from the
centre of mass to each when there are three or more); a body with fewer as the uniform box of
its principal inertia, a^2 = 6 (J2 + J3 - J1) / m and so on, each side at least 15% of the
longest (a cube of 6% of the mechanism's size when the inertia is unknown or zero). Loose
joints: the hole (a ring of radius r + K c), the socket (a translucent sphere) or the guide
(rails or a translucent prism) on the parent; the journal (pin, ball, slider section) on its
own moving frame. Ideal joints: a small pin, ball or rail on the parent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .animation_frames import Motion
from .animation_scene import BodyInfo, Scene

#: A triangle mesh: vertices (n, 3), faces (m, 3).
Mesh = tuple[np.ndarray, np.ndarray]

GROUND_COLOR = 0x9A9A9A
JOINT_COLOR = 0x404040


@dataclass
class Solid:
    kind: str  # "box" (dims a, b, c), "cylinder" (length, radius), "sphere" (radius,), "mesh"
    dims: tuple[float, ...]
    color: int
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))  # columns: the solid's axes
    opacity: float = 1.0
    mesh: Mesh | None = None
    hollow: tuple[float, float] = (0.0, 0.0)  # a ring mesh: (inner, outer) radius about y


def along(u: np.ndarray) -> np.ndarray:
    """A rotation whose y column is the unit vector of u."""
    y = np.asarray(u, float) / max(float(np.linalg.norm(u)), 1e-300)
    helper = np.array([1.0, 0.0, 0.0]) if abs(y[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = np.cross(y, helper)
    x /= np.linalg.norm(x)
    return np.column_stack([x, y, np.cross(x, y)])


def bar(p: np.ndarray, q: np.ndarray, width: float, color: int) -> Solid:
    """A square bar from p to q, its ends rounded off by `width` / 2 beyond them."""
    length = float(np.linalg.norm(q - p)) + width
    return Solid("box", (width, length, 0.6 * width), color, 0.5 * (p + q), along(q - p))


def ring_mesh(inner: float, outer: float, length: float, n: int = 48) -> Mesh:
    """A hollow cylinder along y (walls and end faces, each with its own vertices)."""
    a = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    circle = np.column_stack([np.cos(a), np.zeros(n), np.sin(a)])
    y = np.array([0.0, 0.5 * length, 0.0])
    parts = [
        (outer * circle - y, outer * circle + y),
        (inner * circle + y, inner * circle - y),
        (inner * circle + y, outer * circle + y),
        (outer * circle - y, inner * circle - y),
    ]
    vertices, faces = [], []
    for k, (lo, hi) in enumerate(parts):
        vertices += [lo, hi]
        base = 2 * n * k
        i = np.arange(n)
        j = (i + 1) % n
        faces += [np.column_stack([base + i, base + n + i, base + j]),
                  np.column_stack([base + j, base + n + i, base + n + j])]  # fmt: skip
    return np.concatenate(vertices), np.concatenate(faces)


def prism_mesh(section: np.ndarray, axis: np.ndarray, length: float) -> Mesh:
    """A convex polygon (k, 3) extruded along axis by length (centred), with end caps."""
    k = len(section)
    half = 0.5 * length * np.asarray(axis, float)
    vertices = np.concatenate([section - half, section + half])
    i = np.arange(k)
    j = (i + 1) % k
    sides = np.concatenate([np.column_stack([i, j, k + i]), np.column_stack([j, k + j, k + i])])
    caps = [np.column_stack([np.zeros(k - 2, int), i[1:-1], i[2:]])]
    caps.append(caps[0][:, ::-1] + k)
    return vertices, np.concatenate([sides, *caps])


def offset_polygon(section: np.ndarray, axis: np.ndarray, distance: float) -> np.ndarray:
    """The convex polygon (k, 3) pushed outward by `distance` (its edges' offset lines meet)."""
    centre = section.mean(axis=0)
    edges = np.roll(section, -1, axis=0) - section
    m = np.cross(edges, axis)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    m *= np.sign(np.sum(m * (section + 0.5 * edges - centre), axis=1))[:, None]
    prev = np.roll(m, 1, axis=0)
    return section + distance * (prev + m) / (1.0 + np.sum(prev * m, axis=1))[:, None]


def inertia_box(body: BodyInfo, size: float) -> tuple[np.ndarray, np.ndarray]:
    """(sides (3,), axes (3, 3)) of the uniform box with the body's principal inertia."""
    if body.inertia is None or body.mass <= 0:
        return np.full(3, 0.06 * size), np.eye(3)
    moments, axes = np.linalg.eigh(body.inertia)
    total = moments.sum()
    sides = np.sqrt(np.maximum(6.0 * (total - 2 * moments) / body.mass, 0.0))
    if sides.max() <= 1e-9 * size:
        return np.full(3, 0.06 * size), np.eye(3)
    return np.maximum(sides, 0.15 * sides.max()), axes


@dataclass
class Layout:
    """Numbers the solids are sized from: mechanism size, bar width, magnification, the
    axial range of each link's child point relative to its parent point."""

    size: float
    width: float
    magnify: float
    travel: list[tuple[float, float]]
    depth: list[float] = field(default_factory=list)  # per link: bodies' thickness along it


def layout(scene: Scene, m: Motion, size: float) -> Layout:
    travel = []
    for k, link in enumerate(scene.links):
        u = link.axis if link.axis is not None else np.array([0.0, 1.0, 0.0])
        _, parent_rot = m.body_pose(link.parent)
        d = m.point_child[:, k] - m.point_parent[:, k]
        if link.kind == "rail":  # the joint's point is anywhere on the axis: follow the body
            d = m.body_pose(link.child)[0] - m.shift_of(link.child) - m.point_parent[:, k]
        s = np.einsum("nij,j,ni->n", parent_rot, u, d)
        travel.append((float(s.min()), float(s.max())))
    return Layout(size, 0.035 * size, m.magnify, travel)


def body_solids(scene: Scene, lay: Layout) -> list[list[Solid]]:
    """Per body, its solids in its own frame."""
    out = []
    for b, body in enumerate(scene.bodies):
        links = [lk for lk in scene.links if lk.kind != "rail"]
        points = [lk.s_parent for lk in links if lk.parent == b]
        points += [lk.s_child for lk in links if lk.child == b]
        points += [p for a, p in scene.nodes.anchors if a == b]  # pins of flexible nodes
        distinct: list[np.ndarray] = []
        for p in points:
            if all(np.linalg.norm(p - d) > 1e-6 * lay.size for d in distinct):
                distinct.append(p)
        slid = any(lk.child == b and lk.kind in ("slot", "prism") for lk in scene.links)
        if len(distinct) == 2:
            solids = [bar(distinct[0], distinct[1], lay.width, body.color)]
        elif len(distinct) > 2:
            solids = [bar(np.zeros(3), p, lay.width, body.color) for p in distinct]
        elif slid:
            solids = []
        else:
            solids = _box_with_arm(body, distinct, lay, _reach(scene, b, lay))
        out.append(solids)
    return out


def _reach(scene: Scene, b: int, lay: Layout) -> float:
    """How far from its joint point body b must keep clear: the drawn hole's outer radius of
    a pin or ball, half a bar width at an ideal joint."""
    out = 0.0
    for link in scene.links:
        if b in (link.parent, link.child) and link.kind != "rail":
            hole = link.size.get("radius", 0.0) + lay.magnify * link.clearance
            ring = hole + max(0.3 * hole, 0.25 * lay.width)
            out = max(out, ring if link.kind in ("pin", "ball") else 0.5 * lay.width)
    return out


def _box_with_arm(
    body: BodyInfo, points: list[np.ndarray], lay: Layout, reach: float
) -> list[Solid]:
    """The inertia box, cut back where it would hide the joint (within `reach` of its point),
    and an arm to the joint if the point lies beyond the box."""
    sides, axes = inertia_box(body, lay.size)
    centre = np.zeros(3)
    arms = []
    for p in points:
        local = axes.T @ p
        i = int(np.argmax(np.abs(local)))
        near = min(0.5 * sides[i], abs(local[i]) - reach)
        if near + 0.5 * sides[i] > 0.2 * sides[i]:
            centre[i] = np.sign(local[i]) * 0.5 * (near - 0.5 * sides[i])
            sides[i] = near + 0.5 * sides[i]
        distance = float(np.linalg.norm(p))
        if distance - reach > 0.5 * sides.max():
            arms.append(bar(np.zeros(3), p * (1 - reach / distance), 0.6 * lay.width, body.color))
    box = Solid("box", tuple(float(x) for x in sides), body.color, axes @ centre, axes)
    return [box, *arms]


def extent(solids: list[Solid], u: np.ndarray) -> float:
    """The largest length of the solids along the unit vector u (their frame's axes)."""
    best = 0.0
    for solid in solids:
        a = solid.rotation.T @ u
        if solid.kind == "box":
            e = float(np.abs(a) @ np.asarray(solid.dims))
        elif solid.kind == "cylinder":
            e = abs(a[1]) * solid.dims[0] + 2 * solid.dims[1] * np.sqrt(max(1 - a[1] ** 2, 0.0))
        elif solid.kind == "sphere":
            e = 2 * solid.dims[0]
        else:
            e = float(np.ptp(solid.mesh[0] @ a)) if solid.mesh is not None else 0.0
        best = max(best, e)
    return best


def circle(radius: float, n: int = 32) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return radius * np.column_stack([np.cos(a), np.zeros(n), np.sin(a)])


def outline(solid: Solid) -> np.ndarray:
    """Points (k, 3) whose hull is the solid's silhouette, in the solid's frame."""
    if solid.kind == "box":
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        local = 0.5 * corners * np.asarray(solid.dims)
    elif solid.kind == "cylinder":
        a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        ring = np.column_stack([np.cos(a), np.zeros(16), np.sin(a)]) * solid.dims[1]
        y = np.array([0.0, 0.5 * solid.dims[0], 0.0])
        local = np.vstack([ring - y, ring + y])
    elif solid.kind == "sphere":
        a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        c, s, z = np.cos(a), np.sin(a), np.zeros(24)
        circles = [np.column_stack(v) for v in ((c, s, z), (z, c, s), (s, z, c))]
        local = solid.dims[0] * np.vstack(circles)
    elif solid.hollow[1] > 0 and solid.mesh is not None:  # a ring: its outer rims
        y = np.array([0.0, 0.5 * float(np.ptp(solid.mesh[0][:, 1])), 0.0])
        local = np.vstack([circle(solid.hollow[1]) - y, circle(solid.hollow[1]) + y])
    else:
        local = solid.mesh[0] if solid.mesh is not None else np.zeros((1, 3))
    return solid.offset + local @ solid.rotation.T
