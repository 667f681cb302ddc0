"""Writing files whole and never through a link.

`atomic_write` (and `replacing`, for writers that open a path themselves) writes a file under a
temporary name made by tempfile beside it and renames it into place: readers see the old file
or the new one, never a part, and a failed write (a full disk) leaves the old one. Leftovers of
a killed process are hidden `.NAME.*.tmp` entries that readers ignore and the next write
removes. `create_file` writes a new file the same way but never replaces one; `staging` holds a
set of files until all are written.

Links: a link planted where a file is written is replaced by the new file, its target
untouched (a rename replaces a directory entry); a device, pipe or directory there is refused
(OSError), never replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

#: Prefix of the staging folders (`staging`).
STAGING = ".nlpmbd-staging."


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write `path` through `write(file)` under a temporary name, fsync, then rename it into
    place (readers see the old file or the new one, never a part; a link at `path` is replaced,
    not followed). The file gets the normal permissions (0666 less the umask), like any file the
    user creates. Stale temporaries of this file left by a killed process are removed first."""
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        _discard(tmp)
        raise


def create_file(path: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write a new file at `path` through `write(file)`, whole or not at all, never replacing a
    file or a link, even one made meanwhile (FileExistsError): written under a temporary name,
    then hard-linked to `path`, which fails if `path` exists."""
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path, follow_symlinks=False)
    finally:
        _discard(tmp)


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A path with `path`'s name in a new private directory (tempfile, beside `path`) to write
    the new file to, for writers that open a path themselves and read its suffix (Pillow):
    fsynced and renamed onto `path` when the block ends, removed if the block raises."""
    _replaceable(path)
    _remove_stale(path)
    folder = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
    tmp = folder / path.name
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            os.fchmod(fd, 0o666 & ~_umask())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _remove_stale(path: Path) -> None:
    """Remove the temporaries of `path` a killed process left (files or private folders)."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale)
            else:
                stale.unlink()


def _replaceable(path: Path) -> None:
    """OSError unless `path` is a regular file, a link or nothing: a rename must not replace a
    device, a pipe or a directory (as root it could replace /dev/null)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OSError(errno.EEXIST, "not a regular file, which nlpmbd does not replace", str(path))


def _temporary(path: Path) -> tuple[int, str]:
    """(fd, name) of a new file `.NAME.*.tmp` beside `path` with the normal permissions, after
    removing the stale ones of `path` (OSError if `path` is not a file nlpmbd may replace)."""
    _replaceable(path)
    _remove_stale(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
    except BaseException:
        os.close(fd)
        _discard(tmp)
        raise
    return fd, tmp


def _discard(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


@contextlib.contextmanager
def staging(out: Path) -> Iterator[Path]:
    """A new private folder in `out` (tempfile) for a set of files that must all be written
    before the first of them replaces an old one; removed, with whatever is left in it, when
    the block ends (a staging folder left by a killed process is removed first)."""
    for stale in out.glob(f"{STAGING}*.tmp"):
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(dir=out, prefix=STAGING, suffix=".tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_set(out: Path, files: Mapping[str, bytes]) -> None:
    """Write several files into `out` together: all into a staging folder first, then renamed
    into place, so a failed write (a full disk) replaces none of the old ones."""
    with staging(out) as stage:
        for name, data in files.items():
            write_bytes(stage / name, data)
        for name in files:
            os.replace(stage / name, out / name)


def write_bytes(path: Path, data: bytes) -> None:
    """atomic_write of `data`."""
    atomic_write(path, lambda fh: fh.write(data))
