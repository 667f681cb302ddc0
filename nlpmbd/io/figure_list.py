"""The figures nlpmbd wrote into a result directory, listed in the hidden file FIGURE_LIST so
that the next run or `plot` can remove them (figures of another result must not stay beside a
new one) without touching anything else.

The list is data in the user's directory, not trusted: a name is removed only if it is one
nlpmbd's figure writers make (FIGURE_NAME: a plain file name of a picture, no path, no hidden
file, no result file); any other entry, and a list that is not a JSON list of strings, is
ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

from .atomic import atomic_write

#: Hidden file in which a result directory lists the figures nlpmbd wrote into it.
FIGURE_LIST = ".nlpmbd-figures"
#: Names the figure writers make: a file stem of FILE_STEM's characters and a picture suffix.
FIGURE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}\.(png|svg|pdf|gif)")
#: Largest list read (bytes): a few hundred names.
MAX_LIST_BYTES = 1_000_000
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def figure_stem(name: str) -> str:
    """`name` (a joint's, say) as a file stem a figure writer may use: characters other than
    letters, digits, '_', '.' and '-' replaced by '_', never hidden."""
    stem = _UNSAFE.sub("_", name)[:100] or "_"
    return "_" + stem if stem[0] in ".-" else stem


def recorded_figures(directory: str | os.PathLike) -> list[str]:
    """The names FIGURE_LIST in DIR lists that nlpmbd may remove (see the module docstring);
    [] for a missing, unreadable or malformed list. The list itself is read only if it is a
    regular file (not through a link)."""
    listing = Path(directory) / FIGURE_LIST
    try:
        fd = os.open(listing, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_LIST_BYTES + 1)
        names = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    if len(data) > MAX_LIST_BYTES or not isinstance(names, list):
        return []
    return [n for n in names if isinstance(n, str) and FIGURE_NAME.fullmatch(n)]


def remove_recorded_figures(directory: str | os.PathLike) -> None:
    """Delete the figures an earlier run or `plot` recorded in DIR, and the list. A name is
    unlinked (a link itself, never its target); a directory or an unremovable file stays."""
    d = Path(directory)
    for name in recorded_figures(d):
        with contextlib.suppress(OSError):
            (d / name).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        (d / FIGURE_LIST).unlink(missing_ok=True)


def record_figures(directory: str | os.PathLike, paths: list[Path]) -> None:
    """List the figures just written into DIR (see remove_recorded_figures)."""
    names = sorted(p.name for p in paths if FIGURE_NAME.fullmatch(p.name))
    atomic_write(Path(directory) / FIGURE_LIST, lambda fh: fh.write(json.dumps(names).encode()))
