"""The Siconos peer benchmark's skip path: without an interpreter that imports siconos it says
so in one line and succeeds (benchmarks/peer_siconos.py; nothing of Siconos is needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_skips_with_one_line_and_exit_0_without_siconos(tmp_path):
    missing = tmp_path / "no_such_python"
    out = tmp_path / "peer.json"
    r = subprocess.run(
        [sys.executable, "-m", "benchmarks.peer_siconos", "--siconos-python", str(missing),
         "--json", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("peer_siconos: skipped"), r.stdout
    assert str(missing) in lines[0]
    assert not out.exists()


def test_skips_when_the_interpreter_lacks_siconos(tmp_path, capsys):
    from benchmarks.peer_siconos import main

    fake = tmp_path / "python3"  # runs, but any import fails
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    assert main(["--siconos-python", str(fake)]) == 0
    line = capsys.readouterr().out.strip()
    expected = f"{fake} cannot import siconos (apt-get install python3-siconos)"
    assert line == f"peer_siconos: skipped, {expected}"
