"""Where a study's runs on a cluster are written (apps/study_dask.py): in the directory the
client asked for, whatever a worker's working directory or machine.

The client makes the directory absolute and puts a marker file in it (which also checks, at
start, that it can write there). A worker that sees the marker shares the client's storage and
writes the run in place; any other worker writes it into a private temporary directory and
returns its files, which the client writes into the study's directory. Either way a run's files
are what a serial run writes; returning them costs the transfer, never a lost run.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from ..errors import InputError
from ..io.atomic import write_set
from ..validation import short_repr
from .study import RunOutcome, RunSpec, run_directory

Work = Callable[..., RunOutcome]
#: How the marker file of a study's directory begins.
MARKER = ".nlpmbd-shared."


@dataclass(frozen=True)
class Returned:
    """A run done by a worker that cannot see the study's directory: its outcome (directory:
    where the client writes it) and its files by name."""

    outcome: RunOutcome
    files: dict[str, bytes]


@contextlib.contextmanager
def shared_marker(root: str) -> Iterator[str]:
    """The name of a new marker file in `root`, removed when the block ends (InputError if it
    cannot be written: the study could not keep its runs)."""
    try:
        fd, path = tempfile.mkstemp(dir=root, prefix=MARKER, suffix=".tmp")
        os.close(fd)
    except OSError as err:
        raise InputError(
            f"the study's directory {short_repr(root)} is not writable ({err.strerror or err})"
        ) from None
    try:
        yield os.path.basename(path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def run_on_worker(work: Work, spec: RunSpec, root: str, marker: str) -> RunOutcome | Returned:
    """`work(spec, root=root)` where this worker sees the study's directory, else the run in a
    temporary directory, returned with its files."""
    if os.path.isfile(os.path.join(root, marker)):
        return work(spec, root=root)
    with tempfile.TemporaryDirectory(prefix="nlpmbd-run.") as tmp:
        outcome = work(spec, root=tmp)
        out = run_directory(tmp, spec)
        names = sorted(p.name for p in out.iterdir() if p.is_file()) if out.is_dir() else []
        files = {name: (out / name).read_bytes() for name in names}
    return Returned(replace(outcome, directory=str(run_directory(root, spec))), files)


def keep_returned(sent: Returned, spec: RunSpec, root: str) -> RunOutcome:
    """On the client: the returned run's files written into the study's directory (all or none
    replace an earlier attempt's), or a failed outcome saying why they could not be."""
    if not sent.files:
        return sent.outcome
    out = run_directory(root, spec)
    # meta.json last, as io/files.py writes a result: result.npz is the authority
    files = {name: sent.files[name] for name in sorted(sent.files, key=lambda n: n == "meta.json")}
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_set(out, files)
    except OSError as err:
        message = f"its result could not be written into {short_repr(str(out))} ({err})"
        return replace(sent.outcome, status="failed", message=message)
    return sent.outcome
