"""Independent references (references/) computed once and kept by content.

`cached(func, *args, **kwargs)` returns `func(*args, **kwargs)`, computed on the first call
only: the result is pickled under a key that hashes the source of `func`'s module (references
are self-contained: numpy and scipy only), the call's arguments and the numpy/scipy versions.
Editing the reference, calling it with other arguments or upgrading scipy computes it again;
nothing else does. The files live in pytest's cache (`.pytest_cache/d/references`, set by
conftest.py; `pytest --cache-clear` empties it), or a temporary directory without pytest.
Parallel workers (pytest-xdist) that want the same reference wait on a lock file for the first
to write it, so an 80 s reference is computed once, not once per worker.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import scipy

T = TypeVar("T")

#: Where the pickles go; conftest.py points it into pytest's cache directory.
DIRECTORY = Path(tempfile.gettempdir()) / "nlpmbd-references"


def key(func: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """sha256 of the function's module source, its name, the arguments and the versions."""
    source = Path(inspect.getfile(func)).read_bytes()
    call = repr((func.__qualname__, args, sorted(kwargs.items())))
    versions = repr((np.__version__, scipy.__version__, sys.version_info[:2]))
    digest = hashlib.sha256(source)
    for part in (call, versions):
        digest.update(part.encode())
    return f"{func.__module__.rpartition('.')[2]}-{digest.hexdigest()[:20]}"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` where the platform has fcntl (elsewhere: none)."""
    try:
        import fcntl
    except ImportError:  # Windows: two workers may both compute it; the result is the same
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def cached(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`func(*args, **kwargs)` from the cache, computed and stored on a miss."""
    DIRECTORY.mkdir(parents=True, exist_ok=True)
    name = key(func, *args, **kwargs)
    path = DIRECTORY / f"{name}.pickle"
    with _locked(DIRECTORY / f"{name}.lock"):
        if path.is_file():
            with open(path, "rb") as fh:
                return pickle.load(fh)
        value = func(*args, **kwargs)
        partial = path.with_suffix(f".{os.getpid()}.part")
        with open(partial, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)  # complete or absent: an interrupted run leaves no stub
    return value
