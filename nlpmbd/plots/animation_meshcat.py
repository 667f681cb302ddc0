"""The scene as meshcat commands (meshcat.commands SetObject/SetTransform/SetProperty/
SetAnimation, lowered to msgpack as meshcat's own server does), for a page that replays them
with meshcat's viewer and no server. Everything of the mechanism hangs below VIEW, a node that
turns the run's "up" (against gravity) to the viewer's z and scales the mechanism to about
VIEW_SIZE viewer units, so that the viewer's default camera frames it."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from .animation_solids import Solid

#: Root of the drawn mechanism in meshcat's scene tree.
VIEW = ("nlpmbd",)
#: Drawn size of the mechanism (bounding-box diagonal), viewer units.
VIEW_SIZE = 1.6
#: three.js constants: repeat a clip, hold keyframes (no interpolation).
LOOP_REPEAT, INTERPOLATE_DISCRETE = 2201, 2300


def _path(*names: str) -> Any:
    from meshcat.path import Path

    return Path(tuple(n.replace("/", "_") for n in (*VIEW, *names)))


def matrix(rotation: np.ndarray, offset: np.ndarray, scale: float = 1.0) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = scale * np.asarray(rotation, float)
    out[:3, 3] = offset
    return out


def view_transform(gravity: np.ndarray, centre: np.ndarray, size: float) -> np.ndarray:
    """Simulation -> viewer: up (-gravity, or +y without gravity) to +z, x kept as far as
    possible, the centre to the origin, scaled to VIEW_SIZE."""
    g = np.asarray(gravity, float)
    up = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.array([0.0, 1.0, 0.0])
    x = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = x - np.dot(x, up) * up
    x /= np.linalg.norm(x)
    rot = np.array([x, np.cross(up, x), up])
    scale = VIEW_SIZE / max(size, 1e-300)
    return matrix(rot, -scale * rot @ centre, scale)


def solid_commands(solid: Solid, *names: str) -> list[dict]:
    """SetObject + SetTransform of one solid at VIEW/names."""
    from meshcat import commands, geometry

    if solid.kind == "box":
        geom: Any = geometry.Box(list(solid.dims))
    elif solid.kind == "cylinder":
        geom = geometry.Cylinder(solid.dims[0], solid.dims[1])
    elif solid.kind == "sphere":
        geom = geometry.Sphere(solid.dims[0])
    else:
        assert solid.mesh is not None
        geom = geometry.TriangularMeshGeometry(*solid.mesh)
    extra = {"depthWrite": False} if solid.opacity < 1 else {}
    material = geometry.MeshPhongMaterial(
        color=solid.color, opacity=solid.opacity, shininess=40, **extra
    )
    path = _path(*names)
    return [
        commands.SetObject(geom, material, path).lower(),
        commands.SetTransform(matrix(solid.rotation, solid.offset), path).lower(),
    ]


def lines_command(points: np.ndarray, color: int, *names: str) -> dict:
    """Line segments between consecutive pairs of points (2k, 3)."""
    from meshcat import commands, geometry

    geom = geometry.PointsGeometry(np.asarray(points, np.float32).T)
    line = geometry.LineSegments(geom, geometry.LineBasicMaterial(color=color))
    return commands.SetObject(line, path=_path(*names)).lower()


def static_commands(transform: np.ndarray, camera: np.ndarray) -> list[dict]:
    """The root transform, meshcat's own grid and axes hidden, a light background, and the
    default camera's position (viewer units, in its y-up frame)."""
    from meshcat import commands
    from meshcat.path import Path

    out = [commands.SetTransform(transform, Path(VIEW)).lower()]
    for name, key, value in (
        ("Grid", "visible", False),
        ("Axes", "visible", False),
        ("Background", "top_color", [0.97, 0.97, 0.98]),
        ("Background", "bottom_color", [0.80, 0.83, 0.88]),
        ("Cameras/default/rotated/<object>", "position", [float(c) for c in camera]),
    ):
        out.append(commands.SetProperty(key, value, Path(tuple(name.split("/")))).lower())
    return out


def animation_command(
    times: np.ndarray,
    tracks: dict[tuple[str, ...], dict[str, np.ndarray]],
    discrete: Collection[tuple[str, ...]] = (),
) -> dict:
    """One SetAnimation of every node's tracks: {names: {"position": (n, 3), "quaternion":
    (n, 4) x y z w, "scale": (n, 3)}}, keyframes at `times` in seconds from the first; looped."""
    from meshcat import animation, commands

    kinds = {"position": "vector3", "quaternion": "quaternion", "scale": "vector3"}
    keys = [float(x) for x in np.asarray(times) - times[0]]
    clips = {}
    for names, values in tracks.items():
        clip = animation.AnimationClip(fps=1)
        for prop, array in values.items():
            rows = np.asarray(array, float).tolist()
            clip.tracks[prop] = animation.AnimationTrack(prop, kinds[prop], list(keys), rows)
        clips[_path(*names)] = clip
    lowered = commands.SetAnimation(animation.Animation(clips), play=True).lower()
    lowered["options"].update(loopMode=LOOP_REPEAT, repetitions=10**9)
    for item, names in zip(lowered["animations"], tracks, strict=True):
        if names in discrete:
            for track in item["clip"]["tracks"]:
                track["interpolation"] = INTERPOLATE_DISCRETE
    return lowered


def pack(command: dict) -> bytes:
    """msgpack bytes of a lowered command (floats in single precision)."""
    import umsgpack

    return umsgpack.packb(command, force_float_precision="single")


def quaternions_from_y(direction: np.ndarray) -> np.ndarray:
    """(..., 4) x y z w quaternions turning +y to the unit vectors of `direction` (..., 3)."""
    d = direction / np.maximum(np.linalg.norm(direction, axis=-1, keepdims=True), 1e-300)
    y = np.array([0.0, 1.0, 0.0])
    q = np.concatenate([np.cross(y, d), 1.0 + d[..., 1:2]], axis=-1)
    flipped = q[..., 3] < 1e-9
    q[flipped] = np.array([1.0, 0.0, 0.0, 0.0])
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def xyzw(p: np.ndarray) -> np.ndarray:
    """Euler parameters e0 e1 e2 e3 as three.js quaternions x y z w."""
    return np.concatenate([p[..., 1:], p[..., :1]], axis=-1)
