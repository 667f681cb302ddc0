"""One public name per option: the time-stepping scheme is `integrator` (flag --integrator, model
files, meta.json's options and its resolved value meta["integrator"]); --scheme, its former
flag, is kept as a validated alias (README examples, benchmark rows and saved commands use it)."""

from __future__ import annotations

import json

import pytest

from nlpmbd.apps.cli import main
from nlpmbd.apps.cli_parser import given_options, parser
from nlpmbd.run.option_groups import flat_fields


@pytest.mark.parametrize("flag", ["--integrator", "--scheme"])
def test_the_scheme_flag_and_its_former_name_set_integrator(flag):
    args = parser().parse_args(["run", "pendulum", flag, "euler"])
    assert given_options(args) == {"integrator": "euler"}


def test_a_bad_scheme_names_integrator_and_exits_2(capsys):
    assert main(["run", "pendulum", "--scheme", "rk4", "--no-plot"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nlpmbd: error: integrator must be one of")


def test_every_option_has_its_own_name_as_its_flag():
    """No option answers to another flag than its own name (aliases aside)."""
    for name, (_, f) in flat_fields().items():
        assert "cli" not in f.metadata, name
    assert flat_fields()["integrator"][1].metadata["aliases"] == ("scheme",)


def test_meta_records_the_resolved_integrator_under_its_name(tmp_path):
    out = tmp_path / "r"
    argv = ["run", "pendulum", "--t-end", "0.005", "--quiet", "--no-plot", "--out", str(out)]
    assert main(argv) == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["integrator"] == "verlet" and meta["options"]["scheme"]["integrator"] == "auto"
    assert "scheme" not in meta  # the group of options keeps its name; no second key
