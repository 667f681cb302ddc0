"""`nlpmbd bench --scaling` (apps/scaling.py): bad options exit 2 with one line naming the flag and
its range; the growth fit recovers a known exponent; a tiny real run (N = 1, 2, one round)
prints and writes its tables, raw figures and exponent lines."""

from __future__ import annotations

import json
import math

import pytest

from nlpmbd.apps.cli import main
from nlpmbd.apps.scaling import JOINTS, PATHS
from nlpmbd.apps.scaling_report import growth

BAD_OPTIONS = [
    # (options after `bench --scaling`, text the one-line message must contain)
    (["--links", "0"], "--links must be a comma list of integers in 1..64"),
    (["--links", "65"], "--links must be a comma list of integers in 1..64"),
    (["--links", "x"], "--links must be a comma list of integers in 1..64"),
    (["--links", ","], "--links must be a comma list of integers in 1..64"),
    (["--rounds", "0"], "--rounds must be an integer >= 1"),
    (["--rounds", "x"], "--rounds must be an integer >= 1"),
    (["--h", "0"], "--h must be a finite number of seconds > 0"),
    (["--h", "-1e-3"], "--h must be a finite number of seconds > 0"),
    (["--h", "nan"], "--h must be a finite number of seconds > 0"),
    (["--t-end", "1e-4"], "--t-end must be a finite number of seconds >= h = 0.001"),
    (["--cases", "chain"], "--cases does not apply with --scaling"),
]


@pytest.mark.parametrize(
    ("options", "text"), BAD_OPTIONS, ids=[" ".join(o) for o, _ in BAD_OPTIONS]
)
def test_bad_options_exit_2_with_one_line(options, text, capsys, tmp_path):
    code = main(["bench", "--scaling", *options, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert err.startswith("nlpmbd: error: ") and text in err, err
    assert not (tmp_path / "out").exists()


def test_scaling_options_need_scaling(capsys):
    assert main(["bench", "--links", "1,2"]) == 2
    assert capsys.readouterr().err.strip() == "nlpmbd: error: --links applies only with --scaling"


def test_growth_recovers_a_known_exponent():
    points = {n: 3.0 * n**1.5 for n in (4, 8, 16, 32)}
    assert abs(growth(points) - 1.5) < 1e-12
    # N outside [4, 32] is not fitted; fewer than two N inside gives NaN
    assert abs(growth({1: 1e9, 2: 1e-9, **points, 64: 1.0}) - 1.5) < 1e-12
    assert math.isnan(growth({1: 1.0, 2: 4.0, 4: 9.0}))


@pytest.mark.slow
def test_a_tiny_scaling_run_writes_tables_and_exponent_lines(tmp_path, capsys):
    out = tmp_path / "bench"
    argv = ["--links", "1,2", "--rounds", "1", "--t-end", "0.003", "--out", str(out)]
    assert main(["bench", "--scaling", *argv]) == 0
    printed = capsys.readouterr().out
    md = (out / "scaling.md").read_text()
    assert md in printed
    assert md.count("| joints | path | N=1 | N=2 | growth N=4..32 |") == 3
    for joint in JOINTS:
        name = "clearance c = 0.1 mm" if joint == "clearance" else joint
        for path in PATHS:
            rows = [line for line in md.splitlines() if line.startswith(f"| {name} | {path} |")]
            assert len(rows) == 3 and all(row.endswith("| n/a |") for row in rows), rows
            assert not any("failed" in row or "skipped" in row for row in rows), rows
            line = f"growth exponent (N=4..32, loop time per step): {joint} / {path}: n/a"
            assert line in md.splitlines()
    assert "setup time at the largest N, compiled QP: ideal " in md
    raw = json.loads((out / "scaling.json").read_text())
    assert raw["case"] == "chain" and raw["options"]["links"] == [1, 2]
    runs = raw["runs"]
    assert len(runs) == 2 * len(JOINTS) * len(PATHS)
    assert all(r["figures"]["steps"] == 3 and r["figures"]["failed_steps"] == 0 for r in runs)
    assert all(g["exponent"] is None for g in raw["growth"])


def test_the_benchmarks_script_is_the_package_module():
    import benchmarks.scaling
    import nlpmbd.apps.scaling

    assert benchmarks.scaling.main is nlpmbd.apps.scaling.main
