"""C code that writes to standard output (qpOASES prints a licence banner for every solver
instance and memory, whatever its printLevel says), silenced around the calls that do it."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def silent_stdout() -> Iterator[None]:
    """Discard what C code writes to file descriptor 1 (Python's own stdout is flushed first,
    and C's stdio buffer before the descriptor is restored, or the text would come out later)."""
    sys.stdout.flush()
    libc = ctypes.CDLL(None)
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


def quiet_for(plugin: str) -> contextlib.AbstractContextManager[None]:
    """silent_stdout() around the calls of a qpOASES solver (its banner comes with every memory
    it allocates: in the predictor, the velocity stage, the backup), nothing for the others."""
    return silent_stdout() if plugin == "qpoases" else contextlib.nullcontext()


class SilentStderr:
    """Discard what C code writes to file descriptor 2 during a call (`with quiet:`): a CasADi
    Function that fails inside a chunk prints its inputs there, hundreds of lines, although the
    run takes that step again and goes on. /dev/null is opened once; entering costs two dup2."""

    def __init__(self) -> None:
        self._null = os.open(os.devnull, os.O_WRONLY)
        self._saved = -1
        self._libc = ctypes.CDLL(None)

    def __enter__(self) -> None:
        sys.stderr.flush()
        self._saved = os.dup(2)
        os.dup2(self._null, 2)

    def __exit__(self, *exc: object) -> None:
        self._libc.fflush(None)
        os.dup2(self._saved, 2)
        os.close(self._saved)

    def __del__(self) -> None:
        os.close(self._null)
