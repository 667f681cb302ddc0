"""Determinism (issue 7): the same run twice gives bit-identical result arrays, timings aside.

Checked on a short clearance run with contact (the `pendulum` case with joint=clearance, h an
NLP variable in [1e-3, 2e-3] s, 0.2 s): twice through the Python API in one process, and twice
through the command line in two fresh processes with different hash seeds, comparing every
array of result.npz.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import get_case

CASE, OVERRIDES, T_END = "pendulum", {"joint": "clearance"}, 0.2
ARRAY_NAMES = [f.name for f in fields(SimulationResult) if f.name != "meta"]


def is_timing(name: str) -> bool:
    """Wall-clock measurements, which legitimately differ between runs."""
    return name == "solve_time" or name.endswith("_time") or name.endswith("_ms")


def assert_bit_identical(first: dict[str, np.ndarray], second: dict[str, np.ndarray]) -> None:
    assert first.keys() == second.keys() and {"t", "h", "q", "v", "lam"} <= first.keys()
    for name in sorted(first):
        if is_timing(name):
            continue
        a, b = np.asarray(first[name]), np.asarray(second[name])
        if a.dtype.kind in "US" and a.ndim == 0:  # e.g. a copy of meta.json: timings aside
            assert without_timings(json.loads(str(a))) == without_timings(json.loads(str(b)))
            continue
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert np.array_equal(a, b), f"{name} differs between the two runs"
        assert a.tobytes() == b.tobytes(), f"{name} differs in its bits (signed zero or NaN)"


def without_timings(meta: dict) -> dict:
    # the checksum covers the timings too
    out = {k: v for k, v in meta.items() if not is_timing(k) and k not in ("command", "digest")}
    if isinstance(out.get("summary"), dict):
        out["summary"] = {k: v for k, v in out["summary"].items() if not is_timing(k)}
    return out


def api_run() -> SimulationResult:
    case = get_case(CASE)
    system, params = case.build(OVERRIDES)
    options = SimulationOptions(t_end=T_END, h_min=case.h_min, h_max=case.h_max)
    return simulate(system, options, meta={"case": CASE, "parameters": params})


def test_api_run_twice_gives_bit_identical_arrays():
    first, second = api_run(), api_run()
    assert first.completed and second.completed
    assert first.n_steps > 100 and first.lam.max() > 0  # many steps, and contact happened
    assert len(np.unique(first.h)) > 1  # the NLP chose h (not a fixed step)
    assert_bit_identical(
        {n: getattr(first, n) for n in ARRAY_NAMES}, {n: getattr(second, n) for n in ARRAY_NAMES}
    )
    assert without_timings(first.meta) == without_timings(second.meta)


def cli_run(out: Path, hash_seed: str) -> None:
    argv = [sys.executable, "-m", "nlpmbd", "run", CASE, "--t-end", str(T_END)]
    argv += [a for key, value in OVERRIDES.items() for a in ("--set", f"{key}={value}")]
    argv += ["--out", str(out), "--quiet", "--no-plot"]
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_cli_run_twice_gives_bit_identical_result_files(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    cli_run(first, hash_seed="0")
    cli_run(second, hash_seed="4242")
    arrays = []
    for d in (first, second):
        with np.load(d / "result.npz", allow_pickle=False) as data:
            arrays.append({name: data[name] for name in data.files})
    assert set(ARRAY_NAMES) <= arrays[0].keys()
    assert_bit_identical(*arrays)
    metas = [json.loads((d / "meta.json").read_text()) for d in (first, second)]
    assert metas[0]["completed"] is True
    assert without_timings(metas[0]) == without_timings(metas[1])
