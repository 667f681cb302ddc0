"""The benchmark's summary, table, targets, files and --quick plan on fabricated numbers (no
simulation)."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict

import pytest

from benchmarks.targets import TARGETS
from nlpmbd.apps import bench
from nlpmbd.apps.bench import MODES, skip_reason
from nlpmbd.apps.bench_report import (
    Measurement,
    empty_measurement,
    summarize,
    table,
    write_outputs,
)
from nlpmbd.apps.bench_summary import check_targets, report
from nlpmbd.apps.registry import load_cases

INFO = {
    "date": "2025-01-01T00:00:00+00:00",
    "cpu": "test cpu",
    "machine": "x86_64",
    "cpu_count": 2,
    "platform": "test",
    "python": "3.11",
    "casadi": "3.x",
    "numpy": "2.x",
    "blas_threads": {"libopenblas.so": 1},
}
OPTIONS = {"cases": ["revolute", "pendulum"], "repeats": 2, "t_end": 1.0, "fixed_h": 1e-3}


def fake(case: str, mode: str, repeat: int, median_us: float, **kw) -> Measurement:
    fixed = mode not in ("nlp variable h", "ipopt baseline")
    values = dict(
        case=case, mode=mode, repeat=repeat, h_min=1e-3, h_max=1e-3 if fixed else 2e-3,
        steps=1000, median_us=median_us, p95_us=2 * median_us, wall_per_step_us=3 * median_us,
        mean_iterations=1.0, failed_steps=0, wall_per_sim_s=3e-3 * median_us, setup_s=0.5,
        wall_s=1.0, codegen="cached" if mode == "qp compiled" else "off", predicted_steps=0,
        chunk_steps=0, chunk_steps_discarded=0, qp_fallback_steps=0,
        completed=True, position_diff_m=1e-9 if mode.startswith("qp") else None,
    )  # fmt: skip
    values.update(kw)
    return Measurement(**values)


def measurements() -> list[Measurement]:
    # revolute: the NLP medians are 200 and 100 us, qp compiled 10 and 20 us -> ratios 20 and 5;
    # qp compiled: 10 and 20 us (median 15 us), wall per simulated s 0.045 (MISS).
    out = []
    for repeat, (nlp, qp) in enumerate(((200.0, 10.0), (100.0, 20.0))):
        for mode in MODES:
            us = qp if mode.options.get("solver") == "qp" else nlp
            out.append(fake("revolute", mode.name, repeat, us))
            failed = 3 if mode.name == "nlp variable h" and repeat == 1 else 0
            out.append(fake("pendulum", mode.name, repeat, 5.0, failed_steps=failed))
    out.append(fake("pendulum", "qp vm", 2, math.nan, steps=0, error="RuntimeError: boom"))
    return out


def test_summary_takes_medians_and_ratios_within_each_repetition():
    rows = {(r.case, r.mode): r for r in summarize(measurements())}
    assert len(rows) == 2 * len(MODES)
    nlp = rows["revolute", "nlp fixed h"]
    assert nlp.median_us == 150.0
    assert nlp.ratio_to_reference == 12.5  # median of 200/10 and 100/20, not 150/15
    assert rows["revolute", "qp compiled"].ratio_to_reference == 1.0
    assert rows["pendulum", "nlp variable h"].failed_steps == 3  # the largest, not the median
    assert rows["pendulum", "qp vm"].errors == 1
    assert rows["pendulum", "qp vm"].median_us == 5.0  # NaN of the failed run left out


def test_targets_pass_miss_and_not_run():
    verdicts = check_targets(summarize(measurements()), TARGETS)
    result = {(v.case, v.mode, v.label): v.result for v in verdicts}
    assert result["revolute", "nlp variable h", "median solve time per step"] == "PASS"  # 0.15 ms
    assert result["revolute", "qp compiled", "median solve time per step"] == "PASS"  # 15 us
    assert result["revolute", "qp compiled", "wall time per simulated s"] == "MISS"  # 0.045 s
    assert result["pendulum", "qp compiled", "wall time per simulated s"] == "PASS"  # 0.015 s
    assert verdicts[0].figure.startswith("revolute, nlp variable h (h in [0.001, 0.002] s): ")
    only_pendulum = [m for m in measurements() if m.case == "pendulum"]
    missing = check_targets(summarize(only_pendulum), TARGETS)
    assert {v.result for v in missing if v.case == "revolute"} == {"n/a"}


def test_table_has_one_line_per_row_and_marks_missing_values():
    rows = summarize(measurements())
    lines = table(rows).splitlines()
    assert len(lines) == 2 + len(rows)
    assert all(line.count("|") == lines[0].count("|") for line in lines)
    assert "| revolute | nlp variable h | [0.001, 0.002] | 1000 | 150.0 |" in lines[2]
    qp_vm = next(line for line in lines if "| pendulum | qp vm |" in line)
    assert "(1 errors)" in qp_vm and "| 1.0e-09 |" in qp_vm  # dx to nlp fixed h


def test_files_are_strict_json_and_the_printed_markdown(tmp_path):
    ms = measurements()
    rows = summarize(ms)
    verdicts = check_targets(rows, TARGETS)
    text = report(rows, verdicts, INFO, OPTIONS, elapsed=12.0)
    assert "## Targets" in text and "MISS" in text and "test cpu" in text
    payload = {"machine": INFO, "repetitions": [asdict(m) for m in ms], "rows": []}
    out = tmp_path / "deep" / "bench"
    write_outputs(out, payload, text)
    write_outputs(out, payload, text)  # overwrites in place
    assert sorted(p.name for p in out.iterdir()) == ["bench.json", "bench.md"]
    assert (out / "bench.md").read_text() == text
    data = json.loads((out / "bench.json").read_text())  # NaN written as null
    assert data["repetitions"][-1]["median_us"] is None
    assert data["repetitions"][0]["median_us"] == 200.0


# --- --quick: a step cap per case and no run that repeats another (no simulation here) -------
def test_quick_skips_only_runs_that_repeat_another():
    cases = load_cases()
    fixed, ranged = cases["stick_slip"], cases["pendulum"]  # h_min = h_max; a range of h
    mode = {m.name: m for m in MODES}
    assert "h_min = h_max" in skip_reason(fixed, mode["nlp variable h"], {})
    assert skip_reason(ranged, mode["nlp variable h"], {}) is None
    unpredicted = {"nlp fixed h": fake("stick_slip", "nlp fixed h", 0, 5.0)}  # 0 predicted
    assert "every step" in skip_reason(fixed, mode["ipopt baseline"], unpredicted)
    predicted = {"nlp variable h": fake("pendulum", "nlp variable h", 0, 5.0, predicted_steps=9)}
    assert skip_reason(ranged, mode["ipopt baseline"], predicted) is None
    broken = {"nlp fixed h": fake("stick_slip", "nlp fixed h", 0, 5.0, error="SolverFailure: x")}
    assert skip_reason(fixed, mode["ipopt baseline"], broken) is None  # the baseline may work
    for name in ("nlp fixed h", "qp vm", "qp compiled"):
        assert skip_reason(fixed, mode[name], unpredicted) is None


def _bench(monkeypatch, tmp_path, *argv: str) -> dict:
    """Run `nlpmbd bench ARGV` with run_suite replaced: what it was given, and the report."""
    seen: dict = {}

    def suite(cases, repeats, t_ends, progress=None, quick=False):
        seen.update(t_ends=t_ends, quick=quick)
        skipped = dict(case="stick_slip", mode="nlp variable h", repeat=0, h_min=2e-3)
        return [
            fake("stick_slip", "nlp fixed h", 0, 5.0),
            empty_measurement(**skipped, h_max=2e-3, skipped="the run of nlp fixed h"),
        ]

    monkeypatch.setattr(bench, "run_suite", suite)
    monkeypatch.setattr(bench, "pin_blas_threads", lambda: None)
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args([*argv, "--out", str(tmp_path)])) == 0
    seen["md"] = (tmp_path / "bench.md").read_text()
    seen["options"] = json.loads((tmp_path / "bench.json").read_text())["options"]
    return seen


def test_quick_caps_small_steps_and_lists_the_skipped_runs(monkeypatch, tmp_path):
    seen = _bench(monkeypatch, tmp_path, "--quick", "--cases", "slider_crank,stick_slip")
    assert seen["quick"]
    assert seen["t_ends"] == {"slider_crank": pytest.approx(300 * 1e-5), "stick_slip": 0.2}
    assert "at most 300 fixed steps: slider_crank 0.003 s)" in seen["md"]
    assert "- stick_slip / nlp variable h: the run of nlp fixed h" in seen["md"]
    assert "| stick_slip | nlp variable h |" not in seen["md"]  # a skipped run has no row
    assert "| stick_slip | nlp fixed h |" in seen["md"]


def test_the_full_suite_runs_every_case_for_t_end(monkeypatch, tmp_path):
    seen = _bench(monkeypatch, tmp_path, "--cases", "slider_crank,stick_slip")
    assert not seen["quick"]
    assert seen["t_ends"] == {"slider_crank": 1.0, "stick_slip": 1.0}
    assert "skipped" not in seen["options"] and "fixed steps" not in seen["md"]
