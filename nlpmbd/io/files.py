"""A result on disk: DIR/result.npz (the arrays, NumPy, no pickles) and DIR/meta.json.

Both files are written atomically (io/outdir.py), result.npz first. result.npz also holds the
metadata (the string array `meta_json`) with a SHA-256 checksum of the metadata and the arrays,
so it is the authority: a process killed between the two writes leaves a result.npz beside an
earlier meta.json of the same run (or none: a meta.json of another run is removed before
result.npz is replaced), and loading takes the embedded copy. A meta.json that differs from it
in any other way (edited) is refused; so is a file whose contents no longer match their
checksum, or whose values no run could produce (io/validate.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..validation import error_reason
from .archive import MAX_META, open_archive, read_arrays, read_capped
from .outdir import atomic_write
from .schema import FORMAT_VERSION, SCHEMA
from .validate import check_arrays, check_meta

#: Name of the copy of meta.json stored inside result.npz (a 0-d string array).
EMBEDDED_META = "meta_json"
#: meta keys that define a run: a meta.json that agrees on them (and is not complete) may be an
#: earlier checkpoint of the run whose arrays result.npz holds.
RUN_KEYS = ("case", "parameters", "bodies", "contact_labels", "eq_labels", "joints")


def json_default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    return str(obj)


def checksum(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the metadata (without its checksum, as canonical JSON) and of every array
    (name, dtype, shape and bytes, in schema order)."""
    plain = {k: v for k, v in meta.items() if k != "digest"}
    text = json.dumps(plain, sort_keys=True, separators=(",", ":"), default=json_default)
    h = hashlib.sha256(text.encode())
    for spec in SCHEMA:
        a = np.ascontiguousarray(arrays[spec.name])
        h.update(f"{spec.name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def write_result(
    directory: str | os.PathLike, arrays: dict[str, np.ndarray], meta: dict[str, Any]
) -> Path:
    """Write DIR/result.npz, then DIR/meta.json (see the module docstring)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    meta = dict(meta, format_version=FORMAT_VERSION)
    # the checksum is taken over the metadata as it reads back from JSON
    meta = json.loads(json.dumps(meta, default=json_default))
    meta.pop("digest", None)
    meta["digest"] = checksum(meta, arrays)
    text = json.dumps(meta, indent=2, sort_keys=True)
    stored = {**arrays, EMBEDDED_META: np.array(text)}
    _drop_foreign_meta_json(d / "meta.json", meta)
    # uncompressed: 1e5 pendulum steps (42 MB of arrays) write in 0.06 s CPU against 1.05 s
    # compressed (0.73 s at zlib's fastest level: float data barely compress), for a file 1.6x
    # larger; the compiled stepping of those steps takes about 1 s
    atomic_write(d / "result.npz", lambda fh: np.savez(fh, **stored))  # type: ignore[arg-type]
    atomic_write(d / "meta.json", lambda fh: fh.write(text.encode()))
    return d


def read_result(directory: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, meta) of the result in DIR; InputError (one line naming the file and key) if it
    is not one a run could have written."""
    d = Path(directory)
    if not d.is_dir():
        what = "does not exist" if not d.exists() else "is not a directory"
        raise InputError(f"result directory {str(d)!r} {what}")
    arrays, meta = _read_npz(d)
    _reconcile_meta_json(meta, d)
    if meta.get("format_version") != FORMAT_VERSION:
        raise InputError(
            f"result.npz in {str(d)!r}: format_version must be {FORMAT_VERSION}, got "
            f"{meta.get('format_version')!r} (written by another nlpmbd version; run it again)"
        )
    if meta.get("digest") != checksum(meta, arrays):
        raise InputError(
            f"result.npz in {str(d)!r}: its contents do not match their checksum (edited?)"
        )
    check_meta(meta, d)
    check_arrays(arrays, meta, d)
    return arrays, meta


def _read_npz(d: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and the embedded metadata, every size checked before it is allocated
    (io/archive.py)."""
    path = d / "result.npz"
    if not path.exists():
        raise InputError(f"result directory {str(d)!r} has no result.npz")
    where = f"result.npz in {str(d)!r}"
    try:
        with open_archive(path, where) as (archive, size):
            archive.check([*(s.name for s in SCHEMA), EMBEDDED_META], size)
            dtype, shape = archive.header(EMBEDDED_META)
            if dtype.kind != "U" or shape != ():
                raise InputError(f"{where}: meta_json must be one string")
            meta = _embedded_meta(str(archive.array(EMBEDDED_META, MAX_META)[()]), d)
            return read_arrays(archive, SCHEMA, meta), meta
    except InputError:
        raise
    except (OSError, ValueError, TypeError, zipfile.BadZipFile, EOFError, zlib.error) as err:
        raise InputError(f"{where} is unreadable ({error_reason(err)})") from None


def _embedded_meta(text: str, d: Path) -> dict[str, Any]:
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise InputError(
            f"result.npz in {str(d)!r}: meta_json is not valid JSON ({error_reason(err)})"
        ) from None
    if not isinstance(meta, dict):
        raise InputError(f"result.npz in {str(d)!r}: meta_json must hold a JSON object")
    return meta


def _drop_foreign_meta_json(path: Path, meta: dict[str, Any]) -> None:
    """Remove a meta.json that could not stand beside the new result.npz (another run's, or a
    later state): a kill between the two writes would otherwise leave a directory that loading
    refuses. An earlier state of this run stays, so that meta.json is there at every moment of
    a run."""
    try:
        outside = json.loads(path.read_text())
    except FileNotFoundError:
        return
    except (OSError, ValueError, RecursionError, UnicodeDecodeError):
        outside = None
    if not _same_run_so_far(outside, meta):
        path.unlink(missing_ok=True)


def _reconcile_meta_json(meta: dict[str, Any], d: Path) -> None:
    """A meta.json beside the arrays must be their metadata (compared as parsed JSON), or an
    earlier state of the same run (a kill between the two writes); it may be missing."""
    path = d / "meta.json"
    if not path.exists():
        return
    text = read_capped(path, MAX_META, f"meta.json in {str(d)!r}")
    try:
        outside = json.loads(text)
    except (OSError, ValueError, RecursionError, UnicodeDecodeError) as err:
        raise InputError(
            f"meta.json in {str(d)!r} is not valid JSON ({error_reason(err)})"
        ) from None
    if not _same_run_so_far(outside, meta):
        raise InputError(
            f"meta.json in {str(d)!r} does not match the metadata stored in result.npz "
            "(edited, or from another run)"
        )


def _steps(meta: Any) -> int:
    summary = meta.get("summary") if isinstance(meta, dict) else None
    value = summary.get("steps", -1) if isinstance(summary, dict) else -1
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _run_options(meta: Any) -> Any:
    """The options that define a run: all but `output` (a resumed run may change those)."""
    options = meta.get("options") if isinstance(meta, dict) else None
    if isinstance(options, dict):
        return {k: v for k, v in options.items() if k != "output"}
    return options


def _same_run_so_far(outside: Any, meta: dict[str, Any]) -> bool:
    """`outside` (a parsed meta.json) is `meta`, or a checkpoint of the same run (same case,
    parameters, system and options; `command` differs for a resumed run) taken no later: the
    last checkpoint and the final save may hold the same steps."""
    if outside == meta:
        return True
    return (
        isinstance(outside, dict)
        and outside.get("completed") is False
        and all(outside.get(k) == meta.get(k) for k in RUN_KEYS)
        and _run_options(outside) == _run_options(meta)
        and 0 <= _steps(outside) <= _steps(meta)
    )
