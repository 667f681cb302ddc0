"""One public name per option: the time-stepping scheme is `integrator` (flag --integrator, model
files, meta.json's options and its resolved value meta["integrator"]). Its former flag --scheme
is gone: no model file or saved result holds it (results written before record the resolved
value as meta["scheme"], which run/validity.py still reads)."""

from __future__ import annotations

import json

import pytest

from nlpmbd.apps.cli import main
from nlpmbd.apps.cli_parser import flag_name, given_options, parser
from nlpmbd.run.option_groups import flat_fields


def test_the_scheme_flag_is_the_options_own_name():
    args = parser().parse_args(["run", "pendulum", "--integrator", "euler"])
    assert given_options(args) == {"integrator": "euler"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--integrator", "rk4"], "nlpmbd: error: integrator must be one of"),
        (["--scheme", "euler"], "nlpmbd: error: unrecognized arguments: --scheme"),
    ],
)
def test_a_bad_scheme_exits_2_with_one_line(capsys, argv, message):
    assert main(["run", "pendulum", *argv, "--no-plot"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message)


def test_every_option_has_its_own_name_as_its_flag(capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(["run", "--help"])
    shown = capsys.readouterr().out
    for name, (_, f) in flat_fields().items():
        assert flag_name(name) in shown or not f.metadata["flag"], name
    assert "--scheme" not in shown


def test_meta_records_the_resolved_integrator_under_its_name(tmp_path):
    out = tmp_path / "r"
    argv = ["run", "pendulum", "--t-end", "0.005", "--quiet", "--no-plot", "--out", str(out)]
    assert main(argv) == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["integrator"] == "verlet" and meta["options"]["scheme"]["integrator"] == "auto"
    assert "scheme" not in meta  # the group of options keeps its name; no second key
