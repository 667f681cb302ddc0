"""The Siconos slider-crank's C++ driver (benchmarks/siconos_cpp.py, siconos_slider_crank.cpp)
runs the same model as its Python loop: the same --physics landmarks; and the peer report's
Siconos C++ rows (benchmarks/peer_defaults.py: the second ratio, the physics check)."""

from __future__ import annotations

import pytest

from benchmarks.peer_default_report import physics_check
from benchmarks.peer_default_runs import Run
from benchmarks.peer_defaults import SICONOS_CPP_ROW, SICONOS_ROW, rows
from benchmarks.peer_runs import SICONOS_PYTHON, Spec, run_siconos, siconos_missing
from benchmarks.siconos_cpp import missing as siconos_cpp_missing

LANDMARKS = ("first_impact", "first_revolution", "max_penetration", "crank_speed_end")


@pytest.mark.slow
def test_cpp_loop_gives_the_python_loops_motion():
    why = siconos_missing(SICONOS_PYTHON) or siconos_cpp_missing()
    if why:
        pytest.skip(f"Siconos C++ driver: {why}")
    t_end = 0.07  # past the first crank revolution (68.3 ms) and its impacts
    py, cpp = (
        run_siconos(Spec(side, 1e-5), t_end, SICONOS_PYTHON, physics=True)
        for side in ("siconos", "siconos_cpp")
    )
    assert py["driver"] == "python" and cpp["driver"] == "cpp"
    assert py["steps"] == cpp["steps"] == 7000
    assert py["first_impact"] is not None and py["first_revolution"] is not None
    # the same model, solver and arithmetic: equal to round-off, not merely close
    for key in LANDMARKS:
        assert cpp[key] == pytest.approx(py[key], rel=1e-9, abs=1e-15), key
    assert cpp["loop_cpu_time"] > 0.0


def _sample(loop: float, steps: int = 100, physics: dict | None = None) -> dict:
    row = {"loop_time": loop, "steps": steps, "t_end": 0.001, "setup_time": 0.0}
    return row | ({"physics": physics} if physics else {})


def test_report_rows_carry_the_ratio_to_the_cpp_loop_round_by_round():
    ours = Run("nlpmbd default", "slider_crank", "nlpmbd", baseline=SICONOS_ROW)
    py = Run(SICONOS_ROW, "slider_crank", "siconos", h=1e-5)
    cpp = Run(SICONOS_CPP_ROW, "slider_crank", "siconos_cpp", h=1e-5, baseline=SICONOS_ROW)
    samples = {
        ours: [_sample(2.0), _sample(1.0), _sample(3.0)],
        py: [_sample(2.0), _sample(2.0), _sample(2.0)],
        cpp: [_sample(0.5), _sample(2.0), _sample(1.0)],
    }
    by = {r["run"]: r for r in rows(samples)}
    # to the C++ loop per round 4, 0.5, 3: median 3 (the ratio of the medians would be 2 / 1)
    assert by["nlpmbd default"]["x_cpp_per_step"] == pytest.approx(3.0)
    assert by["nlpmbd default"]["x_per_step"] == pytest.approx(1.0)
    assert by[SICONOS_ROW]["x_cpp_per_step"] == pytest.approx(2.0)
    assert by[SICONOS_CPP_ROW]["x_per_step"] == pytest.approx(0.5)
    assert "x_cpp_per_step" not in by[SICONOS_CPP_ROW]  # not against itself


def test_physics_check_says_whether_the_drivers_agree():
    land = {"first_impact": 2.7e-3, "first_revolution": 0.068, "two_revolutions": None,
            "max_penetration": 3.7e-6, "crank_speed_end": 106.1}  # fmt: skip
    table = [
        {"run": SICONOS_ROW, "first": {"physics": land}},
        {"run": SICONOS_CPP_ROW, "first": {"physics": dict(land)}},
    ]
    assert physics_check(table)[-1] == "The Siconos drivers give the same landmarks."
    table[1]["first"]["physics"]["first_revolution"] = 0.069
    assert physics_check(table)[-1] == "The Siconos drivers give DIFFERENT landmarks."
    assert physics_check([{"run": "nlpmbd default", "first": {}}]) == []
