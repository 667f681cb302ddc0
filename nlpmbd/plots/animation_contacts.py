"""Contact forces per animation frame: for each contact the largest normal force within the
frame's interval of the run (so a one-step impact between two frames is not lost), drawn as an
arrow at its contact point, moved with its journal (animation_frames.py).

Arrow length: FULL_ARROW of the mechanism's size for a force of at least the reference force
(the 90th percentile of the nonzero per-frame forces, so that one large impact does not hide
the others), proportional below; no arrow while the contact's force is zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .animation_flexible import Drawing
from .animation_frames import Motion
from .animation_scene import Scene

#: Arrow length at or above the reference force, as a fraction of the mechanism's size.
FULL_ARROW = 0.1


@dataclass
class Contacts:
    """The drawn contacts: `labels` (C,); per frame drawn point (n, C, 3), force (n, C, 3) and
    arrow length (n, C) (0 while there is no force); `reference` (N) and `full` (m)."""

    labels: list[str]
    point: np.ndarray
    force: np.ndarray
    length: np.ndarray
    reference: float
    full: float

    @property
    def active(self) -> np.ndarray:
        return self.length > 0


def _intervals(t: np.ndarray, times: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges [lo, hi) of the result in (times[k-1], times[k]] (row 0 for frame 0)."""
    hi = np.searchsorted(t, times, side="right")
    lo = np.concatenate([[0], hi[:-1]])
    return [
        (int(a) if b > a else max(int(b) - 1, 0), max(int(b), 1))
        for a, b in zip(lo, hi, strict=True)
    ]


def _shifts(scene: Scene, m: Motion, labels: list[str], flex: list[Drawing]) -> np.ndarray:
    """(n, C, 3) how far each contact point is drawn from its computed place."""
    out = np.zeros((len(m.times), len(labels), 3))
    drawn = {d.name: d for d in flex}
    for c, label in enumerate(labels):
        what, k = scene.joint_of(label)
        body, node = scene.nodes.joints.get(label.split(".", 1)[0], ("", -1))
        if body in drawn:  # a node of a flexible body
            out[:, c] = drawn[body].shift[:, node]
        elif what == "link":
            link = scene.links[k]
            out[:, c] = m.shift_of(link.parent) + (m.magnify - 1.0) * m.offset[:, k]
        elif what == "plane":
            out[:, c] = m.shift_of(scene.planes[k].body)
    return out


def contacts(
    result: Any, scene: Scene, m: Motion, size: float, flex: list[Drawing] | None = None
) -> Contacts:
    """The contacts that carry a force at some frame, with their arrows (at the drawn nodes
    of the flexible bodies `flex`)."""
    lam = np.asarray(result.lam)
    labels_all = list(result.meta.get("contact_labels", []))
    t = np.asarray(result.t)
    n = len(m.times)
    if lam.size == 0 or not np.any(lam > 0):
        empty = np.zeros((n, 0, 3))
        return Contacts([], empty, empty, np.zeros((n, 0)), 0.0, FULL_ARROW * size)
    tol = 1e-9 * float(np.max(lam))
    columns = [c for c in range(lam.shape[1]) if np.any(lam[:, c] > tol)]
    point_all = np.asarray(result.contact_point)
    force_all = np.asarray(result.contact_force)
    rows = np.zeros((n, len(columns)), dtype=int)
    for k, (lo, hi) in enumerate(_intervals(t, m.times)):
        rows[k] = lo + np.argmax(lam[lo:hi][:, columns], axis=0)
    cols = np.array(columns)
    magnitude = lam[rows, cols[None, :]]
    force = force_all[rows, cols[None, :]]
    point = point_all[rows, cols[None, :]]
    labels = [labels_all[c] if c < len(labels_all) else f"contact{c}" for c in columns]
    point = point + _shifts(scene, m, labels, flex or [])
    on = (magnitude > tol) & (np.linalg.norm(force, axis=2) > 0)
    reference = float(np.percentile(magnitude[on], 90)) if np.any(on) else 1.0
    full = FULL_ARROW * size
    length = np.where(on, full * np.minimum(1.0, magnitude / reference), 0.0)
    return Contacts(labels, point, force, length, reference, full)
