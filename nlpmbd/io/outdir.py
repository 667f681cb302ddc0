"""Output directories: checked before any work and locked while a process writes into them.

`prepare_output(path, flag)` makes sure `path` is (or can become) a writable directory and
raises InputError naming the flag otherwise, before anything is simulated. `OutputLock` holds
an advisory lock (fcntl.flock on DIR/.nlpmbd.lock) for the life of a run: a second process that
writes into the same directory is refused with the holder's pid and command. The kernel drops
the lock when its holder dies, so a lock left by a killed process is recognised as stale
without any clean-up. The lock file is opened in place, never through a link: a planted lock
file (a symbolic link, or a file with other hard links) is refused. Files are written by
io/atomic.py (re-exported here: `atomic_write`). `write_failure` tells a write that failed for
the path the user gave (exit 2) from one the disk refused (full, quota, I/O error: exit 4).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import stat
import sys
import tempfile
from pathlib import Path

from ..errors import InputError, OutputFailure
from ..validation import short_repr
from .atomic import atomic_write as atomic_write  # the writers' old import path

#: Name of the lock file inside a locked directory.
LOCK_NAME = ".nlpmbd.lock"


#: errno values of a failed write that come from the path the user gave (bad input, exit 2)
#: rather than from the disk (ENOSPC, EDQUOT, EIO, EFBIG: OutputFailure, exit 4).
PATH_ERRORS = frozenset(
    {
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.EISDIR,
        errno.ENOTDIR,
        errno.ENOENT,
        errno.ENAMETOOLONG,
        errno.ELOOP,
        errno.EEXIST,
    }
)


def write_failure(err: OSError, flag: str, path: Path, kept: str) -> InputError | OutputFailure:
    """The exception for `err`, raised while writing into `path` (named by `flag`): InputError
    naming the file for a PATH_ERRORS one, else OutputFailure saying what was `kept`."""
    if err.errno in PATH_ERRORS:
        name = err.filename2 or err.filename
        where = f"{flag} {short_repr(str(path))}"
        return InputError(f"{where}: cannot write {short_repr(str(name))} ({_reason(err)})")
    return OutputFailure(f"could not write to {path} ({_reason(err)}); {kept}")


def _reason(err: OSError) -> str:
    return err.strerror or (os.strerror(err.errno) if err.errno else str(err))


def prepare_output(path: str | os.PathLike, flag: str = "--out") -> Path:
    """Create `path` if needed and check that files can be written into it (InputError if not:
    an empty path, an existing file, a path under a file, a read-only or full directory)."""
    if not str(path).strip():
        raise InputError(f"{flag} must name a directory, got {str(path)!r}")
    d = Path(path)
    try:
        if d.exists() and not d.is_dir():
            raise InputError(f"{flag} {short_repr(str(d))} is a file; it must be a directory")
        for parent in d.parents:
            if parent.exists():
                if not parent.is_dir():
                    raise InputError(
                        f"{flag} {short_repr(str(d))} lies under the file {short_repr(str(parent))}"
                    )
                break
        d.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=d, prefix=".nlpmbd-probe.", suffix=".tmp")
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as err:
        raise InputError(f"{flag} {short_repr(str(d))} is not writable ({_reason(err)})") from None
    return d


def check_file_target(path: Path, flag: str) -> Path:
    """`path` can name a file nlpmbd writes: its directory exists, and it is a regular file, a
    link (replaced, not followed) or nothing yet (InputError naming `flag` otherwise)."""
    what = f"{flag} {short_repr(str(path))}"
    try:
        if not path.parent.is_dir():
            raise InputError(f"{what}: directory {short_repr(str(path.parent))} does not exist")
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as err:
        raise InputError(f"{what}: {_reason(err)}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{what} is a directory; it must name a file")
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise InputError(f"{what} is not a regular file (a device, pipe or socket)")
    return path


def check_readable_dir(path: str | os.PathLike, flag: str) -> Path:
    """`path` must be an existing directory (InputError naming `flag` otherwise)."""
    if not str(path).strip():
        raise InputError(f"{flag} must name a directory, got {str(path)!r}")
    d = Path(path)
    if not d.is_dir():
        what = "does not exist" if not d.exists() else "is not a directory"
        raise InputError(f"{flag} {short_repr(str(d))} {what}")
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
        what = f"{self.flag} {short_repr(str(self.directory))}"
        fd = _open_lock(path, what)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            if err.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise InputError(f"{what} cannot be locked ({_reason(err)})") from None
            raise InputError(
                f"{what} is in use by {_holder(path)}; "
                "wait for it to finish or choose another directory"
            ) from None
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "command": " ".join(sys.argv)}
        with contextlib.suppress(OSError):  # the holder's name is a courtesy (a full disk)
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(holder).encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def _open_lock(path: Path, what: str) -> int:
    """The lock file opened for writing in place: never through a link (O_NOFOLLOW), and only
    a regular file with no other name (a hard link would truncate the file it shares)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise InputError(
                f"{what}: its {path.name} is a symbolic link; nlpmbd writes through no link: "
                "remove it"
            ) from None
        raise InputError(f"{what} cannot be locked ({_reason(err)})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        what_it_is = "not a regular file" if not stat.S_ISREG(info.st_mode) else "a hard link"
        raise InputError(
            f"{what}: its {path.name} is {what_it_is}; nlpmbd writes its lock only into a file "
            "of its own: remove it"
        )
    return fd


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text())
        command = str(info.get("command", ""))
        if len(command) > 80:
            command = command[:77] + "..."
        return f"process {info['pid']} on {info['host']} ({command})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"
