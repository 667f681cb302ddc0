"""Flexible bodies in an animation (issue 18, model/flexible.py), as plain numbers: each Q4
strip is drawn as its deformed mesh, every element edge a thin box from node to node (its
position, rotation and length tracked per frame, animation.py) and a small sphere at each node;
the faces of its guide (NodeContact joints on the ground) as rails. The mesh is read from the
result's meta["flexible"] and node_q, the guide faces and the pins of nodes to rigid bodies from
the rebuilt System (duck typing, like animation_scene.py: `s_face`/`n_face` of a node contact,
`s_body` of a node pin).

Magnification. Deformations are small (mm on a 0.6 m slider), so a node is drawn at
    x' = x + (K_def - 1) d,   d = (x - X) - mean over the body's nodes of (x - X),
X the reference positions: the mean motion as computed, the deformation (small rotations
included) K_def times. K_def (default) draws the largest |d| of the run as DRAWN_DEFORMATION of
the body's height, rounded down to 1, 2 or 5 times a power of ten, at least 1. A body whose
node contacts are all against parallel faces fixed to the ground (a slider in its guide; unit
normal n, direction t along the guide) shows its gaps magnified by the clearance K, like the
rigid joints' (animation_frames.py): across the guide its offset and deformation are drawn K
times, along it the deformation K_def times (K_def then measures d . t only),
    x' = x + (K - 1) ((x - X + Xbar - c) . n) n + (K_def - 1) (d . t) t,
c the centroid's place (along n) when centred in the guide, and each face is drawn at
f' = K f - (K - 1) (c + eta) (eta: its nodes' reference offset from the centroid along n), so
that every node's drawn gap is K times its computed one: contacts are drawn as contacts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Most keyframes of the flexible bodies' edges and nodes in a page (about 100 bytes each): a
#: fine mesh gets fewer frames (`frame_budget`), at least MIN_FLEX_FRAMES.
KEY_BUDGET, MIN_FLEX_FRAMES = 150_000, 60
#: Largest drawn deformation by default, and most drawn clearance of a guide of a flexible body
#: (animation_frames.default_magnify), as fractions of the body's height.
DRAWN_DEFORMATION = DRAWN_GAP = 0.1


@dataclass
class GuideFace:
    """Node contacts of one flexible body against one plane face: the face's point and unit
    normal (toward the nodes' side) in the guide's frame, the guide (-1: the ground), the
    clearance and the body's reference extent along the normal (`span`, m)."""

    body: str
    guide: int
    point: np.ndarray
    normal: np.ndarray
    clearance: float
    span: float
    nodes: list[int] = field(default_factory=list)


@dataclass
class NodeJoints:
    """What a System's node joints add to a scene: guide faces, contact joint name -> (body,
    node), and node pins' points on rigid bodies (body index, point in its frame)."""

    faces: list[GuideFace] = field(default_factory=list)
    joints: dict[str, tuple[str, int]] = field(default_factory=dict)
    anchors: list[tuple[int, np.ndarray]] = field(default_factory=list)


def node_joints(system: Any, index: dict[str, int]) -> NodeJoints:
    """The node contacts (grouped by face) and node pins of a System."""
    out, faces = NodeJoints(), dict[str, GuideFace]()
    for joint in system.joints:
        node = joint.child
        if not (hasattr(node, "body") and hasattr(node, "index")):
            continue
        if hasattr(joint, "s_face") and hasattr(joint, "n_face"):
            point, normal = np.asarray(joint.s_face, float), np.asarray(joint.n_face, float)
            guide = index.get(joint.parent.name, -1)
            key = f"{node.body.name} {guide} {np.round(np.r_[point, normal], 12).tolist()}"
            if key not in faces:
                span = float(np.ptp(np.asarray(node.body.reference) @ normal[:2]))
                faces[key] = GuideFace(node.body.name, guide, point, normal, joint.clearance, span)
                out.faces.append(faces[key])
            faces[key].nodes.append(int(node.index))
            out.joints[joint.name] = (node.body.name, int(node.index))
        elif hasattr(joint, "s_body") and joint.parent.name in index:
            out.anchors.append((index[joint.parent.name], np.asarray(joint.s_body, float)))
    return out


def node_frames(t: np.ndarray, node_q: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Node positions (n, K, 2) at `times`, linear in time."""
    if len(t) < 2:
        return np.repeat(node_q[:1], len(times), axis=0)
    i = np.clip(np.searchsorted(t, times, side="right") - 1, 0, len(t) - 2)
    w = np.clip((times - t[i]) / np.maximum(t[i + 1] - t[i], 1e-300), 0.0, 1.0)[:, None, None]
    return (1.0 - w) * node_q[i] + w * node_q[i + 1]


def frame_budget(meta: dict, max_frames: int) -> int:
    """The most frames of an animation whose flexible bodies (meta["flexible"]) have tracks for
    every node and edge: max_frames, fewer for a fine mesh (KEY_BUDGET)."""
    tracked = sum(int(b["nodes"]) + len(edges(b["quads"])) for b in meta.get("flexible") or [])
    if tracked == 0:
        return max_frames
    return min(max_frames, max(MIN_FLEX_FRAMES, KEY_BUDGET // tracked))


def nice_factor(target: float, largest: float) -> float:
    """target / largest rounded down to 1, 2 or 5 times a power of ten, at least 1."""
    if not (largest > 0 and target > 0) or target <= largest:
        return 1.0
    k = target / largest
    power = 10.0 ** math.floor(math.log10(k))
    return max(m * power for m in (1, 2, 5) if m * power <= k * (1 + 1e-9))


def edges(quads: Any) -> np.ndarray:
    """Element edges (E, 2), each once, lower node number first."""
    q = np.asarray(quads, int)
    pairs = np.concatenate([q[:, [0, 1]], q[:, [1, 2]], q[:, [2, 3]], q[:, [3, 0]]])
    return np.unique(np.sort(pairs, axis=1), axis=0)


def reference(body: dict) -> np.ndarray:
    """Reference global node positions (nodes, 2) of a meta["flexible"] entry."""
    (nx, ny), (width, height) = body["elements"], body["size"][:2]
    xx, yy = np.meshgrid(np.linspace(0.0, width, nx + 1), np.linspace(0.0, height, ny + 1))
    return np.column_stack([xx.ravel(), yy.ravel()]) + np.asarray(body["position"][:2], float)


@dataclass
class Drawing:
    """One flexible body as drawn: per frame its drawn nodes (n, nodes, 3) and their shift from
    the computed ones; its edges (E, 2) and their reference lengths; K_def, the largest
    deformation it was chosen from (m), whether the gaps across a guide show K (`across`); the
    guide faces as rails: (centre, sides along (t, n, z), axes as columns)."""

    name: str
    color: int
    nodes: np.ndarray
    shift: np.ndarray
    edges: np.ndarray
    length: np.ndarray
    deform: float
    largest: float
    across: bool
    rails: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)


def _normal(faces: list[GuideFace]) -> np.ndarray | None:
    """The in-plane unit normal (2,) shared (up to sign) by faces all fixed to the ground."""
    if not faces or any(f.guide >= 0 for f in faces):
        return None
    n = faces[0].normal[:2] / np.linalg.norm(faces[0].normal[:2])
    same = all(abs(abs(float(np.dot(f.normal[:2], n))) - 1.0) < 1e-9 for f in faces)
    return n if same else None


def _face_shifts(faces: list[GuideFace], x0: np.ndarray, n: np.ndarray, k: float) -> tuple:
    """(c, per face its drawn shift along n): module docstring."""
    xbar = x0.mean(axis=0)
    eta = [float(np.mean((x0[f.nodes] - xbar) @ n)) for f in faces]
    f = [float(face.point[:2] @ n) for face in faces]
    c_each = [a - b for a, b in zip(f, eta, strict=True)]
    c = 0.5 * (min(c_each) + max(c_each))
    return c, [(k - 1.0) * (a - c - b) for a, b in zip(f, eta, strict=True)]


def draw_body(
    body: dict, x: np.ndarray, faces: list[GuideFace], k: float, deform: float | None
) -> tuple[np.ndarray, float, float, list[float] | None]:
    """(drawn nodes (n, nodes, 2), K_def, largest deformation, faces' shifts along n or None)
    of one body whose computed nodes are x (n, nodes, 2)."""
    x0 = reference(body)
    u = x - x0
    d = u - u.mean(axis=1, keepdims=True)
    target = DRAWN_DEFORMATION * float(body["size"][1])
    n = _normal(faces)
    if n is None:
        largest = float(np.max(np.linalg.norm(d, axis=2), initial=0.0))
        kd = float(deform) if deform is not None else nice_factor(target, largest)
        return x + (kd - 1.0) * d, kd, largest, None
    t = np.array([-n[1], n[0]])
    along = d @ t
    largest = float(np.max(np.abs(along), initial=0.0))
    kd = float(deform) if deform is not None else nice_factor(target, largest)
    c, shifts = _face_shifts(faces, x0, n, k)
    lateral = (u + x0.mean(axis=0)) @ n - c
    drawn = x + (k - 1.0) * lateral[..., None] * n + (kd - 1.0) * along[..., None] * t
    return drawn, kd, largest, shifts


def _rails(
    body: dict, faces: list[GuideFace], shifts: list[float] | None, drawn: np.ndarray, thick: float
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The ground faces as boxes on their far side, along the nodes' drawn travel."""
    out = []
    common = _first(faces) if shifts is not None else np.zeros(3)
    for j, face in enumerate(faces):
        if face.guide >= 0:
            continue
        n = face.normal / np.linalg.norm(face.normal)
        t = np.array([n[1], -n[0], 0.0])  # (t, n, z) right-handed
        s = drawn @ t[:2]
        lo, hi = float(s.min()), float(s.max())
        margin = 0.1 * float(body["size"][0])
        base = face.point + (shifts[j] if shifts is not None else 0.0) * common
        centre = base + (0.5 * (lo + hi) - base[:2] @ t[:2]) * t - 0.5 * thick * n
        centre[2] = float(body["position"][2])
        sides = np.array([hi - lo + 2 * margin, thick, 2.5 * thick])
        out.append((centre, sides, np.column_stack([t, n, [0.0, 0.0, 1.0]])))
    return out


def _first(faces: list[GuideFace]) -> np.ndarray:
    n = faces[0].normal / np.linalg.norm(faces[0].normal)
    return np.array([n[0], n[1], 0.0])


def drawings(
    meta: dict,
    frames: np.ndarray,
    faces: list[GuideFace],
    k: float,
    colors: list[int],
    thick: float,
    deform: float | None = None,
) -> list[Drawing]:
    """Every flexible body of a result (meta["flexible"]) with computed nodes `frames`
    (n, K, 2); K = the clearance magnification; colours per body; rails `thick`."""
    out, first = [], 0
    for b, body in enumerate(meta.get("flexible") or []):
        count = int(body["nodes"])
        x = frames[:, first : first + count]
        first += count
        own = [f for f in faces if f.body == body["name"]]
        drawn, kd, largest, shifts = draw_body(body, x, own, k, deform)
        z = np.full(drawn.shape[:2] + (1,), float(body["position"][2]))
        pairs = edges(body["quads"])
        x0 = reference(body)
        out.append(
            Drawing(
                body["name"],
                colors[b % len(colors)],
                np.concatenate([drawn, z], axis=2),
                np.concatenate([drawn - x, 0.0 * z], axis=2),
                pairs,
                np.linalg.norm(x0[pairs[:, 1]] - x0[pairs[:, 0]], axis=1),
                kd,
                largest,
                shifts is not None,
                _rails(body, own, shifts, drawn, thick),
            )
        )
    return out


def edge_tracks(drawing: Drawing) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per frame and edge: midpoint (n, E, 3), x y z w quaternion turning +x to the edge
    (n, E, 4), and scale (n, E, 3) stretching the reference length to the drawn one."""
    p = drawing.nodes[:, drawing.edges[:, 0]]
    q = drawing.nodes[:, drawing.edges[:, 1]]
    d = q - p
    length = np.linalg.norm(d, axis=2)
    u = d / np.maximum(length, 1e-300)[..., None]
    quat = np.stack([np.zeros_like(length), -u[..., 2], u[..., 1], 1.0 + u[..., 0]], axis=-1)
    quat[quat[..., 3] < 1e-9] = np.array([0.0, 0.0, 1.0, 0.0])
    quat /= np.linalg.norm(quat, axis=-1, keepdims=True)
    ones = np.ones_like(length)
    scale = np.stack([length / np.maximum(drawing.length, 1e-300), ones, ones], axis=-1)
    return 0.5 * (p + q), quat, scale
