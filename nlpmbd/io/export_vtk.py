"""VTK export of a result for ParaView (meshio): OUT/result.pvd, a collection that ParaView
opens as one time series, and per written time point k (every K-th, and the last) the files
OUT/frames/bodies_k.vtu and, with contacts, OUT/frames/contacts_k.vtu (k: the row of the
point in the result arrays, so that a frame matches that row of the CSV export).

bodies: one vertex per body at its centre of mass, in the order of meta "bodies", with point
data `body` (index), `velocity` (m/s, global), `angular_velocity` (rad/s, body axes) and
`orientation` (the Euler parameters e0 e1 e2 e3). contacts: one vertex per contact at its
contact point, in the order of meta "contact_labels", with `contact` (index), `lam` (normal
force, N), `gap` (m, > 0 is penetration), `contact_force` and `friction_force` (N, global).
The two are parts 0 and 1, named, of each time step of the .pvd (a multiblock in ParaView)."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import numpy as np

from .atomic import atomic_write, staging
from .export_columns import need
from .result import SimulationResult

#: Most frames written when `every` is not given.
MAX_FRAMES = 500
#: Names of the frame files this module writes (older ones are removed before a new export).
FRAME_NAME = re.compile(r"(bodies|contacts)_\d+\.vtu")


def frame_indices(n_points: int, every: int | None) -> list[int]:
    """Rows written: every K-th time point from the first, and always the last. Without
    `every`, K is the smallest that keeps the count at most MAX_FRAMES."""
    if n_points == 0:
        return []
    if every is None:
        every = max(1, math.ceil((n_points - 1) / (MAX_FRAMES - 1)))
    rows = list(range(0, n_points, every))
    if rows[-1] != n_points - 1:
        rows.append(n_points - 1)
    return rows


def write_vtk(result: SimulationResult, out: Path, every: int | None, files: list[Path]) -> int:
    """Write the .pvd and its frames into `out`; append the paths to `files` (the .pvd first);
    return the number of frames. The frames are written into a staging folder first: a failed
    write (a full disk) leaves `out` as it was."""
    meshio = need("meshio", "vtk")
    rows = frame_indices(result.t.shape[0], every)
    width = len(str(result.t.shape[0] - 1))
    has_contacts = result.contact_point.shape[1] > 0
    entries: list[tuple[float, int, str, str]] = []
    names: list[str] = []
    with staging(out) as stage:
        for k in rows:
            parts = [("bodies", _bodies(meshio, result, k))]
            if has_contacts:
                parts.append(("contacts", _contacts(meshio, result, k)))
            for part, (kind, mesh) in enumerate(parts):
                name = f"{kind}_{k:0{width}d}.vtu"
                meshio.write(stage / name, mesh, file_format="vtu")
                names.append(name)
                entries.append((float(result.t[k]), part, kind, f"frames/{name}"))
        text = _pvd(entries, result.body_names, list(result.meta.get("contact_labels", [])))
        atomic_write(stage / "result.pvd", lambda fh: fh.write(text.encode()))
        pvd = out / "result.pvd"
        pvd.unlink(missing_ok=True)  # it would list the frames replaced next
        frames = _frames_folder(out)
        for old in frames.iterdir():
            if FRAME_NAME.fullmatch(old.name):
                old.unlink()
        for name in names:
            os.replace(stage / name, frames / name)
        # moved last: the collection only ever lists complete frames
        os.replace(stage / "result.pvd", pvd)
    files.extend([pvd, *(frames / name for name in names)])
    return len(rows)


def _frames_folder(out: Path) -> Path:
    """OUT/frames as a directory of its own: a link there is replaced, not followed."""
    frames = out / "frames"
    if frames.is_symlink():
        frames.unlink()
    frames.mkdir(exist_ok=True)
    return frames


def _vertices(meshio: Any, points: np.ndarray, data: dict[str, np.ndarray]) -> Any:
    cells = [("vertex", np.arange(points.shape[0]).reshape(-1, 1))]
    return meshio.Mesh(np.ascontiguousarray(points), cells, point_data=data)


def _bodies(meshio: Any, result: SimulationResult, k: int) -> Any:
    q = result.q[k].reshape(-1, 7)
    v = result.v[k].reshape(-1, 6)
    data = {
        "body": np.arange(q.shape[0], dtype=np.int64),
        "velocity": v[:, :3].copy(),
        "angular_velocity": v[:, 3:].copy(),
        "orientation": q[:, 3:].copy(),
    }
    return _vertices(meshio, q[:, :3], data)


def _contacts(meshio: Any, result: SimulationResult, k: int) -> Any:
    points = result.contact_point[k]
    data = {
        "contact": np.arange(points.shape[0], dtype=np.int64),
        "lam": result.lam[k].copy(),
        "gap": result.gap[k].copy(),
        "contact_force": result.contact_force[k].copy(),
        "friction_force": result.friction_force[k].copy(),
    }
    return _vertices(meshio, points, data)


def _pvd(entries: list[tuple[float, int, str, str]], bodies: list[str], contacts: list[str]) -> str:
    parts = f"part 0: bodies {_comment(bodies)}"
    if contacts:
        parts += f"; part 1: contacts {_comment(contacts)}"
    lines = [
        '<?xml version="1.0"?>',
        f"<!-- nlpmbd result; {parts} -->",
        '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
        "  <Collection>",
    ]
    for time, part, kind, name in entries:
        lines.append(
            f'    <DataSet timestep="{time!r}" group="" part="{part}" name="{kind}" '
            f"file={quoteattr(name)}/>"
        )
    lines += ["  </Collection>", "</VTKFile>", ""]
    return "\n".join(lines)


def _comment(names: list[str]) -> str:
    # an XML comment may not hold "--" nor end in "-": a space after every "-" keeps the names
    # readable and the comment valid
    return "(" + ", ".join(names).replace("-", "- ") + ")"
