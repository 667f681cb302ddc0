"""Output directories: checked before any work, locked while a process writes into them, and
files written atomically with the normal permissions.

`prepare_output(path, flag)` makes sure `path` is (or can become) a writable directory and
raises InputError naming the flag otherwise, before anything is simulated. `OutputLock` holds
an advisory lock (fcntl.flock on DIR/.nlpmbd.lock) for the life of a run: a second process that
writes into the same directory is refused with the holder's pid and command. The kernel drops
the lock when its holder dies, so a lock left by a killed process is recognised as stale
without any clean-up. `atomic_write` writes a file under a temporary name and renames it into
place; its leftovers from a killed process are hidden files `.NAME.*.tmp` that readers ignore
and the next write removes.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ..errors import InputError

#: Name of the lock file inside a locked directory.
LOCK_NAME = ".nlpmbd.lock"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _reason(err: OSError) -> str:
    return os.strerror(err.errno) if err.errno else str(err)


def prepare_output(path: str | os.PathLike, flag: str = "--out") -> Path:
    """Create `path` if needed and check that files can be written into it (InputError if not:
    an existing file, a path under a file, a read-only or full directory)."""
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise InputError(f"{flag} {str(d)!r} is a file; it must be a directory")
    for parent in d.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{flag} {str(d)!r} lies under the file {str(parent)!r}")
            break
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=d, prefix=".nlpmbd-probe.", suffix=".tmp")
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as err:
        raise InputError(f"{flag} {str(d)!r} is not writable ({_reason(err)})") from None
    return d


def check_readable_dir(path: str | os.PathLike, flag: str) -> Path:
    """`path` must be an existing directory (InputError naming `flag` otherwise)."""
    d = Path(path)
    if not d.is_dir():
        what = "does not exist" if not d.exists() else "is not a directory"
        raise InputError(f"{flag} {str(d)!r} {what}")
    return d


class OutputLock:
    """Exclusive advisory lock on a directory for one run (a context manager).

    The lock file records the holder (pid, host, command) so that a refused process can name it.
    """

    def __init__(self, directory: str | os.PathLike, flag: str = "--out") -> None:
        self.directory, self.flag = Path(directory), flag
        self._fd: int | None = None

    def __enter__(self) -> OutputLock:
        path = self.directory / LOCK_NAME
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as err:
            raise InputError(
                f"{self.flag} {str(self.directory)!r} cannot be locked ({_reason(err)})"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            if err.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise InputError(
                    f"{self.flag} {str(self.directory)!r} cannot be locked ({_reason(err)})"
                ) from None
            raise InputError(
                f"{self.flag} {str(self.directory)!r} is in use by {_holder(path)}; "
                "wait for it to finish or choose another directory"
            ) from None
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "command": " ".join(sys.argv)}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(holder).encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text())
        command = str(info.get("command", ""))
        if len(command) > 80:
            command = command[:77] + "..."
        return f"process {info['pid']} on {info['host']} ({command})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def atomic_write(path: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write `path` through `write(file)` under a temporary name, fsync, then rename it into
    place (readers see the old file or the new one, never a part). The file gets the normal
    permissions (0666 less the umask), like any file the user creates. Stale temporaries of
    this file left by a killed process are removed first."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            stale.unlink()
        except OSError:
            pass
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


#: Hidden file in which a result directory lists the figures nlpmbd wrote into it.
FIGURE_LIST = ".nlpmbd-figures"


def remove_recorded_figures(directory: str | os.PathLike) -> None:
    """Delete the figures an earlier run or `plot` recorded in DIR (FIGURE_LIST), and the list:
    figures of another result must not stay beside a new one. Only names recorded by nlpmbd are
    touched, never other files."""
    d = Path(directory)
    listing = d / FIGURE_LIST
    try:
        names = json.loads(listing.read_text())
    except (OSError, ValueError):
        return
    for name in names if isinstance(names, list) else []:
        if isinstance(name, str) and "/" not in name and name not in ("", ".", ".."):
            (d / name).unlink(missing_ok=True)
    listing.unlink(missing_ok=True)


def record_figures(directory: str | os.PathLike, paths: list[Path]) -> None:
    """List the figures just written into DIR (see remove_recorded_figures)."""
    names = sorted(p.name for p in paths)
    atomic_write(Path(directory) / FIGURE_LIST, lambda fh: fh.write(json.dumps(names).encode()))
