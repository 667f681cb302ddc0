"""Nothing overwritten through a link: links planted in an output folder (the lock file, a
figure, an export's files or temporaries) are refused (the lock) or replaced, never followed;
`plot` removes only the figures its list may name (issue 34)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nlpmbd.apps.cli import main

SHORT = ["--t-end", "0.005", "--no-plot", "--quiet"]
SECRET = b"a file of the user's that nlpmbd must not touch\n"


@pytest.fixture()
def result(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 0
    return out


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.write_bytes(SECRET)
    return victim


def _one_error_line(capsys: pytest.CaptureFixture) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlpmbd: error:"), lines
    return lines[0]


@pytest.mark.parametrize("command", ["run", "plot", "export"])
def test_a_lock_file_link_is_refused_and_its_target_untouched(tmp_path, result, capsys, command):
    victim = _victim(tmp_path)
    lock = result / ".nlpmbd.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    argv = {
        "run": ["run", "revolute", *SHORT, "--out", str(result)],
        "plot": ["plot", str(result)],
        "export": ["export", str(result), "--format", "csv", "--out", str(result)],
    }[command]
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert ".nlpmbd.lock" in line and "symbolic link" in line
    assert victim.read_bytes() == SECRET and lock.is_symlink()


def test_a_hard_linked_lock_file_is_refused(tmp_path, result, capsys):
    victim = _victim(tmp_path)
    lock = result / ".nlpmbd.lock"
    lock.unlink(missing_ok=True)
    os.link(victim, lock)
    assert main(["run", "revolute", *SHORT, "--out", str(result)]) == 2
    assert "hard link" in _one_error_line(capsys)
    assert victim.read_bytes() == SECRET


@pytest.mark.slow
def test_figure_links_are_replaced_not_followed(tmp_path, result):
    victim = _victim(tmp_path)
    for name in ("energy.png", "positions.png"):
        (result / name).symlink_to(victim)
    assert main(["plot", str(result)]) == 0
    assert victim.read_bytes() == SECRET
    for name in ("energy.png", "positions.png"):
        figure = result / name
        assert not figure.is_symlink() and figure.read_bytes().startswith(b"\x89PNG")


def test_hdf5_export_follows_no_link(tmp_path, result):
    pytest.importorskip("h5py")
    victim = _victim(tmp_path)
    out = tmp_path / "h5"
    out.mkdir()
    (out / "result.h5").symlink_to(victim)
    # the temporary name the export used to write through: .result.h5.<pid>.tmp
    (out / f".result.h5.{os.getpid()}.tmp").symlink_to(tmp_path / "victim")
    assert main(["export", str(result), "--format", "hdf5", "--out", str(out)]) == 0
    assert victim.read_bytes() == SECRET
    written = out / "result.h5"
    assert not written.is_symlink() and written.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"


@pytest.mark.slow
def test_csv_and_vtk_exports_follow_no_link(tmp_path, result):
    pytest.importorskip("meshio")
    victim = _victim(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "bodies_0.vtu").write_bytes(SECRET)
    csv, vtk = tmp_path / "csv", tmp_path / "vtk"
    csv.mkdir()
    vtk.mkdir()
    (csv / "q.csv").symlink_to(victim)
    (vtk / "result.pvd").symlink_to(victim)
    (vtk / "frames").symlink_to(elsewhere)
    assert main(["export", str(result), "--format", "csv", "--out", str(csv)]) == 0
    assert main(["export", str(result), "--format", "vtk", "--out", str(vtk)]) == 0
    assert victim.read_bytes() == SECRET
    assert [p.name for p in elsewhere.iterdir()] == ["bodies_0.vtu"]
    assert (elsewhere / "bodies_0.vtu").read_bytes() == SECRET
    assert not (csv / "q.csv").is_symlink() and (csv / "q.csv").read_text().startswith("t [s]")
    assert not (vtk / "frames").is_symlink() and any((vtk / "frames").iterdir())


def _listing(directory: Path, content: bytes) -> None:
    (directory / ".nlpmbd-figures").write_bytes(content)


@pytest.mark.slow
@pytest.mark.parametrize(
    "names",
    [
        ["result.npz", "meta.json"],
        ["../victim"],
        ["../victim.png"],
        ["/absolute/victim.png"],
        [".nlpmbd.lock", "notes.txt"],
    ],
)
def test_plot_removes_only_figure_names(tmp_path, result, capsys, names):
    (tmp_path / "victim").write_bytes(SECRET)
    (tmp_path / "victim.png").write_bytes(SECRET)
    (result / "notes.txt").write_bytes(SECRET)
    _listing(result, json.dumps(names).encode())
    assert main(["plot", str(result)]) == 0
    for name in ("result.npz", "meta.json", "notes.txt"):
        assert (result / name).exists(), name
    assert (tmp_path / "victim").read_bytes() == SECRET
    assert (tmp_path / "victim.png").read_bytes() == SECRET
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(
    "content",
    [
        b'["energy.png\\u0000x", "a\\u0000.png"]',
        b'["energy.png"]\x00\x00',
        b"\x00\x01\x02 not JSON",
        b'{"energy.png": 1}',
        b'[["nested"], 3, null]',
    ],
)
def test_a_garbage_figure_list_is_ignored_without_traceback(result, capsys, content):
    _listing(result, content)
    assert main(["plot", str(result)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip() == ""
    assert (result / "energy.png").is_file()  # the figures are drawn again all the same


@pytest.mark.slow
def test_plot_still_removes_the_figures_it_recorded(result):
    assert main(["plot", str(result)]) == 0
    listed = json.loads((result / ".nlpmbd-figures").read_text())
    assert "energy.png" in listed
    stale = result / "clearance_gone.png"  # a figure of an earlier result, since not drawn
    stale.write_bytes(b"old")
    _listing(result, json.dumps([*listed, stale.name]).encode())
    assert main(["plot", str(result)]) == 0
    assert not stale.exists() and (result / "energy.png").is_file()
