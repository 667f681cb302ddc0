"""HDF5 export of a result (h5py): one dataset per array of io/schema.py, bit for bit, with
attributes `unit`, `description`, `per` ("point": one row per time point, "step": one per
step), `shape` (the schema's trailing shape, e.g. "M 3"), and `columns` / `column_units`, the
labels and units of the trailing elements flattened in C order (io/export_columns.py). The root
holds the metadata: `meta_json` (all of meta.json) and each top-level key as an attribute
(strings, numbers and booleans as they are, anything else as JSON text)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import atomic_write
from .export_columns import labelled, need, unit_text
from .files import json_default
from .result import SimulationResult
from .schema import SCHEMA


def write_hdf5(result: SimulationResult, path: Path) -> Path:
    """Write `path`. The file is built in memory and written by atomic_write: the HDF5 library
    never touches the disk, so a failed write (a full disk, which it does not survive) is an
    ordinary OSError with nothing partial left, and a reader never sees half a file."""
    h5py = need("h5py", "hdf5")
    image = io.BytesIO()
    with h5py.File(image, "w") as f:
        _write_meta(f, result.meta)
        arrays = result.arrays()
        for spec in SCHEMA:
            a = arrays[spec.name]
            compress = {"compression": "gzip"} if a.size and a.ndim else {}
            d = f.create_dataset(spec.name, data=a, **compress)
            cols = labelled(spec, a.shape, result.meta)
            d.attrs["unit"] = unit_text(spec)
            d.attrs["description"] = spec.description
            d.attrs["per"] = spec.per
            d.attrs["shape"] = " ".join(spec.shape)
            d.attrs["columns"] = _strings(h5py, [c for c, _ in cols])
            d.attrs["column_units"] = _strings(h5py, [u for _, u in cols])
    atomic_write(path, lambda fh: fh.write(image.getbuffer()))
    return path


def _strings(h5py: Any, items: list[str]) -> Any:
    return np.array(items, dtype=h5py.string_dtype())


def _write_meta(f: Any, meta: dict[str, Any]) -> None:
    f.attrs["meta_json"] = json.dumps(meta, sort_keys=True, default=json_default)
    for key, value in sorted(meta.items()):
        if isinstance(value, str | int | float | bool):
            f.attrs[key] = value
        else:
            f.attrs[key] = json.dumps(value, sort_keys=True, default=json_default)
