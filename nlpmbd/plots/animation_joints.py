"""The joints' solids: per link the part fixed to its parent (hole, socket, guide, or the glyph
of an ideal joint) and the journal (pin, ball, slider section) that moves with the child's
orientation, its clearance magnified (animation_frames.py); the ground's floor planes and axes.
"""

from __future__ import annotations

import numpy as np

from .animation_frames import Motion
from .animation_scene import Link, Scene
from .animation_solids import (
    GROUND_COLOR,
    JOINT_COLOR,
    Layout,
    Solid,
    along,
    extent,
    offset_polygon,
    prism_mesh,
    ring_mesh,
)


def link_depths(scene: Scene, bodies: list[list[Solid]]) -> list[float]:
    """Per pin: the thickness of its two bodies along its axis, so that the hole and the
    journal can be drawn longer and stay visible (0 for the other links)."""
    out = []
    for link in scene.links:
        depth = 0.0
        if link.kind == "pin" and link.axis is not None:
            for b, u in ((link.parent, link.axis), (link.child, link.size["axis_child"])):
                if b >= 0:
                    depth = max(depth, extent(bodies[b], u / np.linalg.norm(u)))
        out.append(depth)
    return out


def _color(scene: Scene, body: int) -> int:
    return scene.bodies[body].color if body >= 0 else GROUND_COLOR


def _span(lay: Layout, k: int) -> tuple[float, float]:
    """(middle, length) of the axial travel of link k's child relative to its parent."""
    lo, hi = lay.travel[k]
    return 0.5 * (lo + hi), hi - lo


def parent_solids(scene: Scene, lay: Layout) -> list[list[Solid]]:
    """Per link, its solids in the parent's frame."""
    out = []
    for k, link in enumerate(scene.links):
        color, w = _color(scene, link.parent), lay.width
        middle, travel = _span(lay, k)
        u = link.axis if link.axis is not None else np.array([0.0, 0.0, 1.0])
        at = link.s_parent
        r, kc = link.size.get("radius", 0.0), lay.magnify * link.clearance
        if link.kind == "pin":
            hole, long = r + kc, max(link.size["length"], 0.5 * w, 1.15 * lay.depth[k])
            outer = hole + max(0.3 * hole, 0.25 * w)
            mesh = ring_mesh(hole, outer, long)
            solids = [Solid("mesh", (), color, at, along(u), mesh=mesh, hollow=(hole, outer))]
        elif link.kind == "ball":
            solids = [Solid("sphere", (r + kc,), color, at, opacity=0.3)]
        elif link.kind == "slot":
            solids = _rails(link, lay, color, middle, travel)
        elif link.kind == "prism":
            section = offset_polygon(link.size["section_parent"], u, kc)
            mesh = prism_mesh(section, u, travel + 1.5 * link.size["length"])
            solids = [Solid("mesh", (), color, at + middle * u, opacity=0.3, mesh=mesh)]
        elif link.kind == "rail":
            dims = (0.4 * w, travel + 4 * w, 0.4 * w)
            solids = [Solid("box", dims, JOINT_COLOR, at + middle * u, along(u))]
        elif link.kind == "revolute":
            solids = [Solid("cylinder", (1.4 * w, 0.3 * w), JOINT_COLOR, at, along(u))]
        else:
            solids = [Solid("sphere", (0.45 * w,), JOINT_COLOR, at)]
        out.append(solids)
    return out


def _rails(link: Link, lay: Layout, color: int, middle: float, travel: float) -> list[Solid]:
    """The two faces of a slot, 2 (b + K c) apart, along the slider's travel."""
    a, b = link.size["half_length"], link.size["half_width"]
    assert link.axis is not None and link.lateral is not None
    u, w, n = link.axis, link.lateral, link.size["normal"]
    thick = max(0.3 * b, 0.3 * lay.width)
    rot = np.column_stack([u, w, n])
    dims = (travel + 2.6 * a, thick, b)
    solids = []
    for side in (-1.0, 1.0):
        centre = (
            link.s_parent + middle * u + side * (b + lay.magnify * link.clearance + thick / 2) * w
        )
        solids.append(Solid("box", dims, color, centre, rot))
    return solids


def journal_solids(scene: Scene, lay: Layout) -> list[list[Solid]]:
    """Per link, the journal's solids in a frame at the journal's centre with the child's
    orientation (none for ideal joints)."""
    out: list[list[Solid]] = []
    for k, link in enumerate(scene.links):
        color, size = _color(scene, link.child), link.size
        middle, travel = _span(lay, k)
        if link.kind == "pin":
            u = size["axis_child"]
            long = max(size["length"], 0.5 * lay.width, 1.15 * lay.depth[k])
            dims: tuple[float, ...] = (travel + 1.3 * long, size["radius"])
            out.append([Solid("cylinder", dims, color, -middle * u, along(u))])
        elif link.kind == "ball":
            out.append([Solid("sphere", (size["radius"],), color)])
        elif link.kind == "slot":
            rot = np.column_stack([size["axis_child"], size["lateral_child"], size["normal_child"]])
            dims = (2 * size["half_length"], 2 * size["half_width"], 0.9 * size["half_width"])
            out.append([Solid("box", dims, color, np.zeros(3), rot)])
        elif link.kind == "prism":
            mesh = prism_mesh(size["section_child"], size["axis_child"], size["length"])
            out.append([Solid("mesh", (), color, mesh=mesh)])
        else:
            out.append([])
    return out


def ground_solids(scene: Scene, lay: Layout, m: Motion) -> list[Solid]:
    """The global axes (x red, y green, z blue) at the origin and the contact planes."""
    length, radius = 0.12 * lay.size, 0.006 * lay.size
    solids = [
        Solid("cylinder", (length, radius), color, 0.5 * length * e, along(e))
        for e, color in zip(np.eye(3), (0xE41A1C, 0x4DAF4A, 0x377EB8), strict=True)
    ]
    centre = m.pos.reshape(-1, 3).mean(axis=0) if m.pos.size else np.zeros(3)
    for plane in scene.planes:
        n = plane.normal / np.linalg.norm(plane.normal)
        foot = centre - np.dot(centre - plane.point, n) * n
        dims = (1.5 * lay.size, 0.004 * lay.size, 1.5 * lay.size)
        solids.append(Solid("box", dims, 0xC8C8C8, foot - 0.002 * lay.size * n, along(n), 0.6))
    return solids
