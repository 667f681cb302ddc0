"""Long runs lose nothing: a killed run leaves a readable, flagged partial result, and resuming
it ends with the arrays of an uninterrupted run, bit for bit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import InputError, SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.io.schema import ARRAYS

#: Arrays that must match bit for bit (everything but the timings).
COMPARED = [name for name in ARRAYS if name != "solve_time"]


def assert_same_arrays(a: SimulationResult, b: SimulationResult) -> None:
    for name in COMPARED:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and np.array_equal(x, y), name


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "nlpmbd", *args]


def checkpoint_steps(out: Path) -> int:
    try:
        return int(json.loads((out / "meta.json").read_text())["summary"]["steps"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.slow
def test_killed_run_resumes_to_the_uninterrupted_arrays(tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, MPLBACKEND="Agg")
    argv = ["revolute", "--t-end", "4", "--no-plot", "--quiet", "--solver", "nlp"]  # slow enough
    proc = subprocess.Popen(
        cli("run", *argv, "--checkpoint-every", "0.2", "--out", str(out)), env=env
    )
    deadline = time.monotonic() + 120
    while checkpoint_steps(out) < 200 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)  # a crash: no handler runs
    proc.wait(timeout=30)

    partial = SimulationResult.load(out)
    assert not partial.completed and partial.meta["message"] == "checkpoint"
    assert 0.1 < partial.t[-1] < 4.0 and partial.n_steps >= 200

    done = subprocess.run(
        cli("run", "revolute", "--resume", str(out), "--no-plot", "--quiet"),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    resumed = SimulationResult.load(out)
    assert resumed.completed and resumed.meta["resumed"]
    system, _ = get_case("revolute").build({})
    case = get_case("revolute")
    options = SimulationOptions(t_end=4.0, h_min=case.h_min, h_max=case.h_max, solver="nlp")
    reference = simulate(system, options)
    assert_same_arrays(resumed, reference)


@pytest.mark.slow
def test_sigterm_writes_the_partial_result_and_says_how_to_resume(tmp_path):
    out = tmp_path / "run"
    argv = ["pendulum", "--t-end", "30", "--no-plot", "--quiet", "--checkpoint-every", "0.2"]
    argv += ["--solver", "nlp"]  # the Python loop: still stepping when the signal comes
    proc = subprocess.Popen(
        cli("run", *argv, "--out", str(out)),
        env=dict(os.environ, MPLBACKEND="Agg"),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while checkpoint_steps(out) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # wait until it is stepping
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and f"--resume {out}" in err
    partial = SimulationResult.load(out)
    assert not partial.completed and partial.meta["message"] == "interrupted"
    assert partial.n_steps > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("solver", "case", "params"),
    [
        ("nlp", "pendulum", {"joint": "clearance"}),
        ("qp", "pendulum", {"joint": "clearance"}),
        ("qp", "stick_slip", {}),  # friction: the chunks carry the normal forces across
        ("qp", "stick_slip", {"contact": "compliant"}),  # and the contacts' memory
    ],
)
def test_resume_in_process_matches_for_both_solvers(solver, case, params):
    """Stop after a checkpoint (in process), resume from it: same arrays as one run."""
    system, _ = get_case(case).build(params)
    h = (1e-3, 2e-3) if solver == "nlp" else (2e-3, 2e-3) if case == "stick_slip" else (1e-3,) * 2
    opts = SimulationOptions(t_end=0.6, h_min=h[0], h_max=h[1], solver=solver, codegen="off")
    saved: list[SimulationResult] = []

    class Stop(Exception):
        pass

    def keep(partial):
        saved.append(partial)
        if partial.t[-1] > 0.25:
            raise Stop

    with pytest.raises(Stop):
        simulate(system, opts, checkpoint=keep, checkpoint_every=1e-9)
    partial = saved[-1]
    resumed = simulate(system, opts, resume=partial)
    assert resumed.completed and resumed.meta["resumed"]
    whole = simulate(system, opts)
    assert_same_arrays(resumed, whole)  # DAQP, the friction QPs' solver, keeps no state


def test_resume_rejects_other_options_and_complete_results(tmp_path):
    system, _ = get_case("pendulum").build({})
    opts = SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3)
    done = simulate(system, opts)
    with pytest.raises(InputError, match="nothing to resume"):
        simulate(system, opts, resume=done)
    saved = []
    simulate(system, opts, checkpoint=saved.append, checkpoint_every=1e-9)
    other = SimulationOptions(t_end=0.06, h_min=1e-3, h_max=1e-3)
    with pytest.raises(InputError, match="options differ"):
        simulate(system, other, resume=saved[0])


def test_meta_json_older_than_the_arrays_is_replaced_by_the_embedded_copy(tmp_path):
    """Killed between the two atomic writes of a checkpoint: the npz is newer than meta.json;
    loading takes the metadata stored with the arrays. An edited meta.json is refused."""
    system, _ = get_case("pendulum").build({})
    # the NLP path: a checkpoint after every step (the QP path's chunks take 50 steps at once)
    opts = SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3, solver="nlp")
    saved = []
    simulate(system, opts, checkpoint=saved.append, checkpoint_every=1e-9, meta={"command": "x"})
    saved[3].save(tmp_path)
    older = (tmp_path / "meta.json").read_text()
    saved[10].save(tmp_path)
    (tmp_path / "meta.json").write_text(older)
    back = SimulationResult.load(tmp_path)
    assert back.n_steps == saved[10].n_steps and back.meta["resume"]["n_steps"] == back.n_steps
    edited = json.loads(older)
    edited["summary"]["steps"] = 99
    (tmp_path / "meta.json").write_text(json.dumps(edited))
    with pytest.raises(InputError, match="does not match the metadata stored in result.npz"):
        SimulationResult.load(tmp_path)
