"""`nlpmbd animate` of a model file's result (issue 33, item 0): the model is rebuilt from the
file meta.json records, so the page draws its joints and magnified clearances exactly as for the
built-in case the file describes (the page's own data is decoded and compared)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from nlpmbd.apps.cli import main

pytest.importorskip("meshcat", reason="nlpmbd animate needs meshcat: pip install meshcat")
umsgpack = pytest.importorskip("umsgpack")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "revolute.toml"
SHORT = ["--t-end", "0.01", "--h", "1e-3", "--quiet"]


def page_objects(page: Path) -> dict[str, dict]:
    """The page's meshcat objects by path, decoded from its replayed commands."""
    setup = re.search(r'\{"commands": \[.*?\]', page.read_text())
    assert setup is not None
    objects = {}
    for command in json.loads(setup.group(0) + "}")["commands"]:
        decoded = umsgpack.unpackb(base64.b64decode(command))
        if decoded.get("type") == "set_object":
            objects[decoded["path"]] = decoded["object"]
    return objects


def _geometry(objects: dict[str, dict], path: str) -> dict:
    """The solid's geometry (its vertices or sizes), without meshcat's random uuid."""
    return {k: v for k, v in objects[path]["geometries"][0].items() if k != "uuid"}


@pytest.mark.slow
def test_a_model_files_page_draws_its_joints_as_the_cases(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pin.toml").write_text(EXAMPLE.read_text())
    # --compare writes the page (the compared run its ghost), as `animate` would
    argv = ["run", "pin.toml", *SHORT, "--set", "clearance=1e-3", "--out", "file"]
    assert main([*argv, "--compare", "clearance=1e-4"]) == 0
    assert "clearances x" in capsys.readouterr().out
    argv = ["run", "revolute", *SHORT, "--set", "clearance=1e-3", "--out", "case", "--no-plot"]
    assert main(argv) == 0
    assert main(["animate", "case"]) == 0
    mine = page_objects(tmp_path / "file" / "animation.html")
    theirs = page_objects(tmp_path / "case" / "animation.html")
    joints = {"/nlpmbd/bodies/pendulum/pin0", "/nlpmbd/journals/pin/s0"}  # hole and pin
    assert joints <= set(mine) and "/nlpmbd/ghost/pendulum/s0" in mine
    assert set(theirs) <= set(mine)
    for path in joints:  # the same hole and journal, the hole drawn with magnified play
        assert _geometry(mine, path) == _geometry(theirs, path)
    text = (tmp_path / "file" / "animation.html").read_text()
    magnify = re.search(r"Clearance &times;([0-9.e+]+)", text)
    assert magnify is not None and float(magnify.group(1)) > 1
    assert magnify.group(0) in (tmp_path / "case" / "animation.html").read_text()
