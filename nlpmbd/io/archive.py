"""Reading result.npz (io/files.py) without trusting it: sizes are checked before anything is
allocated.

`numpy.load` allocates whatever a member's .npy header declares (a 200-byte header declaring a
huge shape gave a MemoryError) and inflates whatever a member holds (a zip bomb). Here the file
must be a regular file; the archive's members, as its directory declares them, may expand to at
most MAX_RATIO times the file's size; each member's header is read first (numpy's own header
readers) and its dtype and shape checked against io/schema.py and against the bytes the member
holds; only then is its data read, exactly that many bytes.
"""

from __future__ import annotations

import io
import math
import os
import stat
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
from numpy.lib import format as npy

from ..errors import InputError
from .schema import ArraySpec

#: Largest expansion of result.npz (uncompressed over stored bytes). The built-in cases' results
#: expand 2 to 4 times; an array of zeros alone up to ~1000 (deflate's limit), so a result is
#: far below this unless it is mostly zeros.
MAX_RATIO = 200
#: Archives expanding to less than this (bytes) are not held to MAX_RATIO (tiny results).
SLACK = 1 << 20
#: Largest embedded metadata (bytes of the UCS-4 string array) and largest meta.json read.
MAX_META = 64 << 20
#: Largest .npy header read (numpy's default limit).
MAX_HEADER = 10_000

#: A member open after its header: (stream, data bytes it holds, dtype, shape, Fortran order).
Member = tuple[zipfile.ZipExtFile, int, np.dtype, tuple[int, ...], bool]


def open_regular(path: Path, what: str) -> tuple[io.BufferedReader, int]:
    """`path` open for reading, and its size, if it is a regular file (a link to one is
    followed); InputError naming `what` otherwise (a device such as /dev/zero, a FIFO, a
    directory). Checked on the open file (opening does not block on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(f"{what} does not exist") from None
    except OSError as err:
        raise InputError(f"{what} cannot be read ({err.strerror or err})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputError(f"{what} is not a regular file")
    return os.fdopen(fd, "rb"), info.st_size


def read_capped(path: Path, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most `limit` bytes."""
    fh, size = open_regular(path, what)
    try:
        with fh:
            data = fh.read(limit + 1)
    except OSError as err:
        raise InputError(f"{what} cannot be read ({err.strerror or err})") from None
    if size > limit or len(data) > limit:
        raise InputError(f"{what} is larger than {limit} bytes")
    return data


class Archive:
    """An open result.npz whose member names and total expansion are checked."""

    def __init__(self, zf: zipfile.ZipFile, where: str) -> None:
        self._zf, self.where = zf, where

    def fail(self, what: str) -> InputError:
        return InputError(f"{self.where}: {what}")

    def check(self, names: Sequence[str], size: int) -> None:
        """Exactly the members `names` (.npy each), expanding to at most MAX_RATIO x size."""
        infos = self._zf.infolist()
        members = [i.filename.removesuffix(".npy") for i in infos]
        missing = [n for n in names if n not in members]
        if missing:
            raise self.fail(f"lacks array {missing[0]!r}")
        unknown = sorted(set(members) - set(names))
        if unknown:
            raise self.fail(f"holds unknown array {unknown[0]!r}")
        if len(members) != len(set(members)) or any(not i.filename.endswith(".npy") for i in infos):
            raise self.fail("holds an array twice or a member that is not .npy")
        stored = sum(i.compress_size for i in infos)
        total = sum(i.file_size for i in infos)
        if stored > size:
            raise self.fail(f"its members declare {stored} bytes, more than the file's {size}")
        if total > SLACK and total > MAX_RATIO * size:
            raise self.fail(
                f"its arrays would expand to {total / 1e6:.1f} MB, more than {MAX_RATIO} "
                f"times the {size / 1e6:.2f} MB stored (a zip bomb?)"
            )

    @contextmanager
    def _member(self, name: str) -> Iterator[Member]:
        info = self._zf.getinfo(name + ".npy")
        with cast(zipfile.ZipExtFile, self._zf.open(info)) as fh:
            version = npy.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = npy.read_array_header_1_0(fh, max_header_size=MAX_HEADER)
            elif version == (2, 0):
                shape, fortran, dtype = npy.read_array_header_2_0(fh, max_header_size=MAX_HEADER)
            else:
                raise self.fail(f"{name} has .npy format {version}, expected (1, 0) or (2, 0)")
            yield fh, info.file_size - fh.tell(), dtype, tuple(shape), fortran

    def header(self, name: str) -> tuple[np.dtype, tuple[int, ...]]:
        with self._member(name) as (_, _, dtype, shape, _):
            return dtype, shape

    def array(self, name: str, limit: int | None = None) -> np.ndarray:
        """The member's array, its declared bytes checked against what the member holds (and
        `limit`) before they are read."""
        with self._member(name) as (fh, held, dtype, shape, fortran):
            if dtype.hasobject:
                raise self.fail(f"{name} holds Python objects (not allowed)")
            nbytes = math.prod(shape) * dtype.itemsize
            if nbytes != held:
                raise self.fail(
                    f"{name} declares shape {shape} of {dtype} ({nbytes} bytes) but holds "
                    f"{held} bytes"
                )
            if limit is not None and nbytes > limit:
                raise self.fail(f"{name} is larger than {limit} bytes")
            buffer = bytearray(nbytes)
            if fh.readinto(buffer) != nbytes or fh.read(1):
                raise self.fail(f"{name} does not hold the bytes its archive entry declares")
        order: Literal["C", "F"] = "F" if fortran else "C"
        return np.frombuffer(buffer, dtype=dtype).reshape(shape, order=order)


def expected_shapes(
    archive: Archive, schema: Sequence[ArraySpec], meta: Mapping[str, Any]
) -> dict[str, tuple[int, ...]]:
    """Each array's shape from the number of steps (h's header) and the system's sizes in the
    metadata (io/schema.py SIZE_KEYS); a size the metadata does not give as a list is left to
    the checks after loading (only the number of dimensions is checked then)."""
    from .schema import SIZE_KEYS

    sizes = {k: len(v) for k, key in SIZE_KEYS.items() if isinstance(v := meta.get(key), list)}
    _, h_shape = archive.header("h")
    n = h_shape[0] if len(h_shape) == 1 else -1
    out = {}
    for spec in schema:
        needed = {d[-1] for d in spec.shape if not d.isdigit()}
        if n >= 0 and needed <= set(sizes):
            out[spec.name] = (spec.rows(n), *spec.trailing(sizes))
    return out


def read_arrays(
    archive: Archive, schema: Sequence[ArraySpec], meta: Mapping[str, Any]
) -> dict[str, np.ndarray]:
    """Every array of `schema`, each header checked (dtype, shape) before its data is read."""
    shapes = expected_shapes(archive, schema, meta)
    for spec in schema:
        dtype, shape = archive.header(spec.name)
        if dtype != np.dtype(spec.dtype):
            raise archive.fail(f"{spec.name} must be {spec.dtype}, got {dtype}")
        want = shapes.get(spec.name)
        if (want is not None and shape != want) or len(shape) != 1 + len(spec.shape):
            expected = want if want is not None else f"{1 + len(spec.shape)} dimensions"
            raise archive.fail(f"{spec.name} has shape {shape}, expected {expected}")
    return {spec.name: archive.array(spec.name) for spec in schema}


@contextmanager
def open_archive(path: Path, where: str) -> Iterator[tuple[Archive, int]]:
    """result.npz open as an Archive, with its size; InputError if it is no regular file or
    no zip archive."""
    fh, size = open_regular(path, where)
    with fh:
        if not zipfile.is_zipfile(fh):
            raise InputError(f"{where} is not an .npz archive")
        fh.seek(0, os.SEEK_SET)
        with zipfile.ZipFile(fh) as zf:
            yield Archive(zf, where), size
