"""A full disk while writing (issue 34): every writer exits 4 with one line saying what was
kept, leaves nothing partial in place and keeps what was there before. The disk is made "full"
by a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored, so a write fails with EFBIG as it fails
with ENOSPC on a full disk), or by a writer patched to fail with ENOSPC."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nlpmbd.apps.cli import main

SHORT = ["--t-end", "0.2", "--no-plot", "--quiet"]


def _limited(argv: list[str], limit: int, cwd: Path) -> subprocess.CompletedProcess:
    """`nlpmbd ARGV` with files limited to `limit` bytes (the rescue and temporary files in
    cwd/tmp)."""

    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    (cwd / "tmp").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "nlpmbd", *argv],
        cwd=cwd,
        env=dict(os.environ, TMPDIR=str(cwd / "tmp"), MPLBACKEND="Agg"),
        preexec_fn=limit_files,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _one_line_exit_4(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 4, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "File too large" in lines[0]
    return lines[0]


def _files(d: Path) -> dict[str, bytes]:
    """Every file under d (lock file apart) by relative path, with its bytes."""
    return {
        str(p.relative_to(d)): p.read_bytes()
        for p in sorted(d.rglob("*"))
        if p.is_file() and p.name != ".nlpmbd.lock"
    }


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("full") / "run"
    assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 0
    return out


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "hdf5", "vtk"])
def test_an_export_into_a_full_disk_keeps_the_earlier_export(tmp_path, result, fmt):
    pytest.importorskip({"csv": "csv", "hdf5": "h5py", "vtk": "meshio"}[fmt])
    out = tmp_path / "export"
    assert main(["export", str(result), "--format", fmt, "--out", str(out)]) == 0
    before = _files(out)
    assert before
    limit = 4000  # a few files fit, not the whole export
    proc = _limited(["export", str(result), "--format", fmt, "--out", str(out)], limit, tmp_path)
    line = _one_line_exit_4(proc)
    assert str(out) in line and "nothing" in line
    assert _files(out) == before  # nothing partial, nothing of the earlier export lost
    assert not list((tmp_path / "tmp").iterdir())


@pytest.mark.slow
def test_an_export_into_a_full_disk_leaves_no_file(tmp_path, result):
    pytest.importorskip("h5py")
    out = tmp_path / "export"
    proc = _limited(["export", str(result), "--format", "hdf5", "--out", str(out)], 4000, tmp_path)
    _one_line_exit_4(proc)
    assert _files(out) == {}


def test_new_into_a_full_disk_writes_no_part_of_the_file(tmp_path):
    proc = _limited(["new", "model.toml"], 1000, tmp_path)
    line = _one_line_exit_4(proc)
    assert "nothing was written" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]


@pytest.mark.slow
def test_plot_into_a_full_disk_says_what_was_kept(tmp_path, result):
    copy = tmp_path / "run"
    copy.mkdir()
    for name in ("result.npz", "meta.json"):
        (copy / name).write_bytes((result / name).read_bytes())
    proc = _limited(["plot", str(copy)], 20000, tmp_path)
    assert "result there is unchanged" in _one_line_exit_4(proc)
    assert not [p.name for p in copy.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_a_gif_that_cannot_be_written_leaves_no_part(tmp_path, result, monkeypatch, capsys):
    pytest.importorskip("meshcat")
    from PIL import Image

    def full_disk(self, fp, *args, **kwargs):
        with open(fp, "wb") as fh:
            fh.write(b"GIF89a, the first frames")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    copy = tmp_path / "run"
    copy.mkdir()
    for name in ("result.npz", "meta.json"):
        (copy / name).write_bytes((result / name).read_bytes())
    monkeypatch.setattr(Image.Image, "save", full_disk)
    assert main(["animate", str(copy), "--gif", "--fps", "5"]) == 4
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], lines
    assert (copy / "animation.html").is_file() and "animation.html" in lines[0]
    assert not (copy / "animation.gif").exists()
    assert not [p.name for p in copy.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_a_bench_report_into_a_full_disk_keeps_the_earlier_one(tmp_path):
    argv = ["bench", "--repeats", "1", "--cases", "pendulum", "--t-end", "0.002", "--out", "b"]
    assert _limited(argv, 2**30, tmp_path).returncode == 0
    before = _files(tmp_path / "b")
    assert set(before) == {"bench.json", "bench.md"}
    proc = _limited(argv, 200, tmp_path)  # its progress lines go to stderr first
    assert proc.returncode == 4 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("nlpmbd: could not write") and "report is printed above" in line
    assert _files(tmp_path / "b") == before  # both old files, not one new and one old
