"""`nlpmbd run CASE --compare KEY=VALUE`: the case run again with a parameter changed, drawn as
the overlay (the flagship's ideal-vs-clearance run in one command)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nlpmbd.apps.cli import main
from nlpmbd.io.result import SimulationResult

ARGS = ["--t-end", "0.05", "--h", "1e-3", "--quiet", "--no-plot"]


def test_compare_runs_the_changed_case_next_to_the_run(tmp_path):
    out = tmp_path / "loose"
    argv = ["run", "pendulum", "--set", "joint=clearance", "--set", "clearance=1e-3"]
    assert main([*argv, "--compare", "joint=ideal", "--out", str(out), *ARGS]) == 0
    loose, ideal = SimulationResult.load(out), SimulationResult.load(tmp_path / "loose-ideal")
    # the clearance only applies to the clearance joint: dropped from the compared run
    assert ideal.meta["parameters"]["joint"] == "ideal"
    assert loose.meta["parameters"]["clearance"] == 1e-3
    assert loose.gap.shape[1] > 0 and ideal.gap.shape[1] == 0
    # Released horizontally, the loose pendulum falls freely through its clearance c while the
    # ideal one's centre sinks at m L^2 / (J + m L^2) of g: on contact (t = sqrt(2 c / g) =
    # 14 ms) they are c J / (J + m L^2) = 0.254 c apart, and stay so (measured 0.2538 mm
    # against 0.2537 mm; m = 1 kg, L = 0.5 m, J = 0.085 kg m^2, the case's defaults).
    c, m, L, J = 1e-3, 1.0, 0.5, 0.085
    d = np.abs(loose.q[:, 1] - ideal.q[:, 1]).max()
    assert d == pytest.approx(c * J / (J + m * L**2), rel=5e-3)
    assert json.loads((tmp_path / "loose-ideal" / "meta.json").read_text())["completed"]


def test_compare_with_overlay_is_refused(tmp_path, capsys):
    argv = ["run", "pendulum", "--compare", "joint=clearance", "--overlay", str(tmp_path)]
    assert main([*argv, "--out", str(tmp_path / "x"), *ARGS]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--compare cannot be combined with --overlay" in err[0]
