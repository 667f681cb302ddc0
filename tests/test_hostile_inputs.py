"""Inputs an adversarial user tried (issue 34): an ipopt.opt in the working directory, body names
that are spreadsheet formulas or break XML comments, empty paths, paths that are bad input but
used to exit 4, and a QP solver that printed its banner into a quiet run."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from benchmarks.abuse_output import NAMED
from nlpmbd.apps.cli import main

SHORT = ["--t-end", "0.005", "--no-plot", "--quiet"]


def _cli(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nlpmbd", *argv],
        cwd=cwd,
        env=dict(os.environ, MPLBACKEND="Agg"),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _named_run(tmp_path: Path, first: str, second: str) -> Path:
    model = tmp_path / "named.toml"
    model.write_text(NAMED.format(first, second))
    out = tmp_path / "run"
    assert main(["run", str(model), *SHORT, "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_an_ipopt_opt_in_the_working_directory_is_not_read(tmp_path):
    log = tmp_path / "ipopt-log.txt"
    (tmp_path / "ipopt.opt").write_text(f"output_file {log}\nprint_level 12\n")
    argv = ["run", "pendulum", "--set", "joint=clearance", "--no-predictor", *SHORT]
    proc = _cli([*argv, "--ipopt", "max_iter=100", "--out", "run"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not log.exists() and proc.stdout == ""


@pytest.mark.parametrize("name", ["=HYPERLINK(1)", "+1", "-crank", "@SUM(A1)"])
def test_csv_headers_are_not_spreadsheet_formulas(tmp_path, name):
    out = _named_run(tmp_path, name, "plain")
    assert main(["export", str(out), "--format", "csv", "--out", str(tmp_path / "csv")]) == 0
    with open(tmp_path / "csv" / "q.csv", newline="") as fh:
        header = next(csv.reader(fh))
    assert f"'{name}.x [m]" in header and "plain.x [m]" in header
    assert not any(cell[:1] in "=+-@" for cell in header)


@pytest.mark.parametrize(("first", "second"), [("---", "a-"), ("x--y", "-->")])
def test_vtk_collection_is_valid_xml_whatever_the_body_names(tmp_path, first, second):
    pytest.importorskip("meshio")
    out = _named_run(tmp_path, first, second)
    assert main(["export", str(out), "--format", "vtk", "--out", str(tmp_path / "vtk")]) == 0
    root = ET.parse(tmp_path / "vtk" / "result.pvd").getroot()
    assert root.tag == "VTKFile" and len(root.find("Collection")) > 0


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "pendulum", *SHORT, "--out", ""],
        ["export", "GOOD", "--format", "csv", "--out", ""],
        ["export", "", "--format", "csv"],
        ["plot", ""],
        ["plot", "GOOD", "--overlay", ""],
        ["animate", "GOOD", "--out", ""],
        ["run", "pendulum", "--resume", ""],
        ["study", "step-ranges", "--out", ""],
    ],
)
def test_an_empty_path_is_refused(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "revolute", *SHORT, "--out", "GOOD"]) == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlpmbd: error:") and "''" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_paths_that_cannot_be_written_are_bad_input(tmp_path, monkeypatch, capsys):
    """Each of these exited 4 (results could not be written) though the path given is at
    fault: exit 2, one line naming the path."""
    monkeypatch.chdir(tmp_path)
    assert main(["run", "revolute", *SHORT, "--out", "GOOD"]) == 0
    Path("FILE").write_text("a file")
    Path("dir.html").mkdir()
    Path("GOOD/animation.gif").mkdir()
    os.mkfifo("pipe.html")
    cases = [
        (["new", "missing/model.toml"], "missing"),
        (["new", "FILE/model.toml"], "FILE"),
        (["animate", "GOOD", "--out", "dir.html"], "dir.html"),
        (["animate", "GOOD", "--out", "pipe.html"], "pipe.html"),
        (["animate", "GOOD", "--gif"], "animation.gif"),
        (["export", "GOOD", "--format", "csv", "--out", "x" * 300], "xxx"),
    ]
    for argv, named in cases:
        assert main(argv) == 2, argv
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("nlpmbd: error:"), (argv, lines)
        assert named in lines[0] and len(lines[0]) < 500, (argv, lines)
    assert Path("pipe.html").exists() and not Path("pipe.html").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["euler", "verlet"])
def test_qpoases_prints_nothing_into_a_quiet_run(tmp_path, scheme):
    """qpOASES prints an 11-line licence banner for every memory it allocates: in the QP
    predictor of the NLP path and in the velocity stage of the Verlet scheme too."""
    argv = ["run", "spatial_slider_crank", "--t-end", "0.01", "--qp-solver", "qpoases"]
    argv += ["--set", "clearance_at=all", "--integrator", scheme]
    proc = _cli([*argv, "--no-plot", "--quiet", "--out", "run"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and proc.stderr == ""
