"""Crafted result files and cache entries cannot make a reader allocate or read without limit
(issue "Nothing mixed, nothing overwritten", item 7): .npy headers inside result.npz are read
and checked before any array is allocated, a zip bomb is refused before it is inflated, and
files that are links to /dev/zero are refused instead of read."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy

from nlpmbd import InputError, SimulationResult
from nlpmbd.apps.cli import main

#: Memory a child process may use (bytes): enough for the reader, far below what /dev/zero or a
#: huge header would make it allocate.
CHILD_MEMORY = 2 << 30


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("good") / "run"
    argv = ["run", "revolute", "--t-end", "0.01", "--out", str(out), "--no-plot", "--quiet"]
    assert main(argv) == 0
    return out


def _copy(good: Path, tmp_path: Path) -> Path:
    d = tmp_path / "r"
    d.mkdir()
    for name in ("result.npz", "meta.json"):
        (d / name).write_bytes((good / name).read_bytes())
    return d


def _replace(d: Path, name: str, payload: bytes) -> None:
    """result.npz with member NAME.npy replaced by the raw bytes `payload` (deflated)."""
    path = d / "result.npz"
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    members[f"{name}.npy"] = payload
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for member, data in members.items():
            zf.writestr(member, data)


def _header(descr: str, shape: tuple[int, ...]) -> bytes:
    buffer = io.BytesIO()
    npy.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "descr", "shape", "fragment"),
    [
        ("q", "<f8", (10**12, 7), "q has shape (1000000000000, 7), expected"),
        ("h", "<f8", (2**60,), "has shape"),
        ("meta_json", "<U200000000", (), "meta_json declares shape () of <U200000000"),
        ("lam", "<f8", (10**9, 10**9), "lam has shape (1000000000, 1000000000)"),
    ],
)
def test_a_header_declaring_a_huge_array_is_refused_before_allocating(
    good, tmp_path, name, descr, shape, fragment
):
    """A ~200-byte member whose header declares terabytes: MemoryError in every reader."""
    d = _copy(good, tmp_path)
    _replace(d, name, _header(descr, shape))
    with pytest.raises(InputError) as err:
        SimulationResult.load(d)
    message = str(err.value)
    assert message.startswith(f"result.npz in {str(d)!r}: ") and fragment in message, message


def test_a_header_smaller_than_its_data_is_refused(good, tmp_path):
    d = _copy(good, tmp_path)
    with np.load(d / "result.npz") as data:
        q = data["q"]
    _replace(d, "q", _header("<f8", (q.shape[0] - 1, q.shape[1])) + q.tobytes())
    with pytest.raises(InputError, match=r"q has shape \(\d+, 7\), expected"):
        SimulationResult.load(d)


def test_a_zip_bomb_is_refused_before_it_is_inflated(good, tmp_path):
    """100 MB of zeros deflate to ~100 kB: the member list declares the expansion."""
    d = _copy(good, tmp_path)
    with np.load(d / "result.npz") as data:
        rows = data["q"].shape[0]
    width = 100_000_000 // (8 * rows)
    _replace(d, "q", _header("<f8", (rows, width)) + bytes(8 * rows * width))
    assert (d / "result.npz").stat().st_size < 1_000_000
    tic = time.perf_counter()
    with pytest.raises(InputError, match=r"would expand to 10\d\.\d MB, more than 200 times"):
        SimulationResult.load(d)
    assert time.perf_counter() - tic < 5.0


def _limited(code: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    """`code` in a child process whose memory is capped at CHILD_MEMORY."""
    prelude = (
        "import resource\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({CHILD_MEMORY}, {CHILD_MEMORY}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_a_meta_json_linked_to_dev_zero_is_refused(good, tmp_path):
    d = _copy(good, tmp_path)
    (d / "meta.json").unlink()
    (d / "meta.json").symlink_to("/dev/zero")
    for argv in (["plot", str(d)], ["run", "revolute", "--resume", str(d), "--quiet"]):
        proc = _limited(f"from nlpmbd.apps.cli import main; raise SystemExit(main({argv!r}))")
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr[-2000:]
        assert lines[0] == f"nlpmbd: error: meta.json in {str(d)!r} is not a regular file"


@pytest.mark.parametrize("what", ["library", "digest"])
def test_a_cache_entry_linked_to_dev_zero_is_not_read(tmp_path, what):
    """The compiled-chunk cache (run/codegen.py): an entry that is a link is rebuilt, never
    read (a link to /dev/zero was read without end)."""
    lib = tmp_path / "chunk_0123.so"
    digest = tmp_path / "chunk_0123.so.sha256"
    lib.write_bytes(b"\x7fELF not really")
    digest.write_text("0" * 64)
    target = lib if what == "library" else digest
    target.unlink()
    target.symlink_to("/dev/zero")
    proc = _limited(
        f"""
        from pathlib import Path
        from nlpmbd.run import codegen
        print(codegen._intact(Path({str(lib)!r})))
        """
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "False", proc.stderr[-2000:]


def test_an_intact_cache_entry_is_still_recognised(tmp_path):
    import hashlib

    from nlpmbd.run import codegen

    lib = tmp_path / "chunk_0123.so"
    lib.write_bytes(b"library bytes")
    (tmp_path / "chunk_0123.so.sha256").write_text(hashlib.sha256(b"library bytes").hexdigest())
    assert codegen._intact(lib)
    os.symlink(lib, tmp_path / "link.so")
    (tmp_path / "link.so.sha256").write_text(hashlib.sha256(b"library bytes").hexdigest())
    assert not codegen._intact(tmp_path / "link.so")
