"""The frame of a planar guide (PlanarPrismaticClearance) and of its slider, from a result: the
guide may sit on a moving body (the slot of crank_rocker turns with its rocker), so positions,
velocities and forces are measured in the guide's own frame: along its axis u and across it
(w, towards the "upper" surface), both fixed in the guide body.

`GuideFrame.from_geometry` reads PlanarPrismaticClearance.describe(); the default frame is a
guide fixed to the ground along global X with its mid-line at y = center_y and a slider whose
body axes are the guide's (the convention of the figures' fixed-guide arguments).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from nlpmbd.io.result import SimulationResult
from nlpmbd.plots.kinematics import GROUND_NAME, body_pose

Vector = tuple[float, float, float]


@dataclass(frozen=True)
class GuideFrame:
    """Guide body (name; "ground" for the fixed frame) with the guide's origin, unit axis u and
    unit across direction w in its body axes; the slider's centre, axis and across direction in
    the slider's body axes."""

    guide: str = GROUND_NAME
    origin: Vector = (0.0, 0.0, 0.0)
    axis: Vector = (1.0, 0.0, 0.0)
    across: Vector = (0.0, 1.0, 0.0)
    slider_center: Vector = (0.0, 0.0, 0.0)
    slider_axis: Vector = (1.0, 0.0, 0.0)
    slider_across: Vector = (0.0, 1.0, 0.0)

    @classmethod
    def fixed(cls, center_y: float = 0.0, axis: Any = (1.0, 0.0, 0.0)) -> GuideFrame:
        """A guide fixed to the ground along the global unit `axis`, mid-line through
        (0, center_y, 0), across direction Z x axis."""
        u = np.asarray(axis, dtype=float)
        u = u / np.linalg.norm(u)
        w = np.cross((0.0, 0.0, 1.0), u)
        w = w / np.linalg.norm(w) if np.linalg.norm(w) > 0 else np.array([0.0, 1.0, 0.0])
        return cls(origin=(0.0, float(center_y), 0.0), axis=_vec3(u), across=_vec3(w))

    @classmethod
    def from_geometry(cls, geometry: Mapping[str, Any]) -> GuideFrame:
        """From a PlanarPrismaticClearance description; keys it lacks (results written before
        they were recorded) fall back to `fixed(center_y)`."""

        def vec(stem: str) -> Vector | None:
            keys = [f"{stem}_{c}" for c in "xyz"]
            return (
                _vec3([float(geometry[k]) for k in keys])
                if all(k in geometry for k in keys)
                else None
            )

        fields = ("origin", "axis", "across", "slider_center", "slider_axis", "slider_across")
        found = {name: vec(name) for name in fields}
        if "guide" not in geometry or any(v is None for v in found.values()):
            return cls.fixed(float(geometry.get("center_y", 0.0)))
        return cls(guide=str(geometry["guide"]), **found)  # type: ignore[arg-type]

    # --- positions -------------------------------------------------------------------------
    def slider_points(self, result: SimulationResult, slider: str, local: np.ndarray) -> np.ndarray:
        """(n+1, k, 3) global positions of slider points given as (k, 2) (along, across)
        offsets from the slider's centre in its own axes."""
        r, A = body_pose(result, slider)
        s = np.asarray(self.slider_center) + local[:, :1] * np.asarray(self.slider_axis)
        s = s + local[:, 1:2] * np.asarray(self.slider_across)
        return r[:, None, :] + np.einsum("nij,kj->nki", A, s)

    def coordinates(self, result: SimulationResult, points: np.ndarray) -> tuple[np.ndarray, ...]:
        """(along, across) of global points (n+1, ..., 3) in the guide frame."""
        r, A = body_pose(result, self.guide)
        o = r + A @ np.asarray(self.origin)
        u, w = A @ np.asarray(self.axis), A @ np.asarray(self.across)
        extra = (None,) * (points.ndim - 2)
        rel = points - o[(slice(None), *extra)]
        along = np.sum(rel * u[(slice(None), *extra)], axis=-1)
        return along, np.sum(rel * w[(slice(None), *extra)], axis=-1)

    def axis_global(self, result: SimulationResult) -> np.ndarray:
        """(n+1, 3) the guide's unit axis u, global."""
        return body_pose(result, self.guide)[1] @ np.asarray(self.axis)

    # --- velocities ------------------------------------------------------------------------
    def slider_velocity(self, result: SimulationResult, slider: str) -> tuple[np.ndarray, ...]:
        """(along, across) rates of the slider's centre relative to the guide, in its frame:
        A_g^T (v_S - v_g) - w'_g x A_g^T (r_S - r_g), projected on u and w (guide axes)."""
        r_s, A_s = body_pose(result, slider)
        v_s = result.body_v(slider)
        s = np.asarray(self.slider_center)
        r_point = r_s + A_s @ s
        v_point = v_s[:, :3] + np.einsum("nij,nj->ni", A_s, np.cross(v_s[:, 3:], s))
        r_g, A_g = body_pose(result, self.guide)
        if self.guide == GROUND_NAME:
            v_g = np.zeros_like(v_s)
        else:
            v_g = result.body_v(self.guide)
        rel = np.einsum("nji,nj->ni", A_g, r_point - r_g)
        vel = np.einsum("nji,nj->ni", A_g, v_point - v_g[:, :3]) - np.cross(v_g[:, 3:], rel)
        return vel @ np.asarray(self.axis), vel @ np.asarray(self.across)


def _vec3(values: Any) -> Vector:
    x, y, z = (float(v) for v in values)
    return (x, y, z)
