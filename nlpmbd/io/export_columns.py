"""Names and units of the columns of every result array (io/schema.py), for the exports
(io/export.py): an array's trailing dimensions flattened in C order, each element named by its
body / contact / equality / joint label and component, e.g. `crank.x` [m] or `guide.front.y` [N].
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

from ..errors import InputError
from .schema import SIZE_KEYS, ArraySpec

#: Components of the arrays whose per-entity blocks are not x, y, z, with the unit of each.
COMPONENTS: dict[str, tuple[tuple[str, str], ...]] = {
    "q": (("x", "m"), ("y", "m"), ("z", "m"), ("e0", "1"), ("e1", "1"), ("e2", "1"), ("e3", "1")),
    "v": (
        ("vx", "m/s"),
        ("vy", "m/s"),
        ("vz", "m/s"),
        ("wx'", "rad/s"),
        ("wy'", "rad/s"),
        ("wz'", "rad/s"),
    ),
    "energy": (("kinetic", "J"), ("potential", "J"), ("total", "J")),
}
_XYZ = ("x", "y", "z")


def unit_text(spec: ArraySpec) -> str:
    """The schema's unit as one header token: "N, N m" (mixed rows) becomes "N or N m"."""
    return spec.unit.replace(", ", " or ")


def entity_names(meta: Mapping[str, Any], size: str, count: int) -> list[str]:
    """Labels of the entities of size letter `size` (bodies for N, contact labels for M, ...);
    numbered names when meta lacks them."""
    names = [str(x) for x in meta.get(SIZE_KEYS.get(size, ""), [])]
    if len(names) != count:
        names = [f"{size}{k}" for k in range(count)]
    return names


def _dim_labels(
    spec: ArraySpec, dim: str, count: int, meta: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(label, unit) of the positions along one trailing dimension."""
    unit = unit_text(spec)
    if dim.isdigit():
        comps = COMPONENTS.get(spec.name)
        if comps is not None and len(comps) == count:
            return list(comps)
        if count in (2, 3):
            return [(c, unit) for c in _XYZ[:count]]
        return [(str(k), unit) for k in range(count)]
    factor = int(dim[:-1]) if len(dim) > 1 else 1
    names = entity_names(meta, dim[-1], count // factor)
    if factor == 1:
        return [(n, unit) for n in names]
    comps = COMPONENTS.get(spec.name)
    if comps is None or len(comps) != factor:
        comps = tuple((str(k), unit) for k in range(factor))
    return [(f"{n}.{c}", u) for n in names for c, u in comps]


def columns(spec: ArraySpec, shape: tuple[int, ...], meta: Mapping[str, Any]) -> list[str]:
    """Labels of the flattened trailing elements of an array of `shape` (rows first)."""
    return [label for label, _ in labelled(spec, shape, meta)]


def labelled(
    spec: ArraySpec, shape: tuple[int, ...], meta: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(label, unit) of the flattened trailing elements; a scalar per row is named by the array."""
    trailing = shape[1:]
    if not trailing:
        return [(spec.name, unit_text(spec))]
    out: list[tuple[str, str]] = [("", "")]
    for dim, count in zip(spec.shape, trailing, strict=True):
        parts = _dim_labels(spec, dim, count, meta)
        out = [(f"{a}.{b}" if a else b, u2 or u1) for a, u1 in out for b, u2 in parts]
    return out


def header(label: str, unit: str) -> str:
    """A column header: `crank.x [m]`."""
    return f"{label} [{unit}]" if unit else label


def step_times(t: np.ndarray) -> np.ndarray:
    """The time at the end of each step (a step array's row k holds the step t[k] -> t[k+1])."""
    return np.asarray(t)[1:]


def need(module: str, fmt: str) -> ModuleType:
    """Import an optional package of an export format; InputError naming the pip command."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f"--format {fmt} needs the package {module}: pip install {module} "
            "(or pip install 'nlpmbd[export]')"
        ) from None
