"""The runs of benchmarks/peer_defaults.py: one subprocess per run, BLAS on one thread.

nlpmbd by its CLI with the options a user would type (its defaults unless a spec adds some);
Siconos by the system interpreter, its time loop in Python or in C++ (benchmarks/peer_runs.py);
MuJoCo and Exudyn by the peers' interpreter (benchmarks/mujoco_pendulum.py, exudyn_pendulum.py).
Every run returns its loop time (nlpmbd: meta.json wall_time - setup_time; a peer: its own timer
around its stepping), steps and simulated time; with `accuracy`, a pendulum run also returns its
max |theta error| over the run against the minimal-coordinate scipy ODE (tests/fixtures.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from .peer_runs import BLAS_ENV, SICONOS_DRIVERS, Spec, run_siconos, siconos_missing
from .siconos_cpp import missing as siconos_cpp_missing

ROOT = Path(__file__).resolve().parent.parent
PEERS_PYTHON = os.environ.get("NLPMBD_PEERS_PYTHON", "/work/venv-peers/bin/python")
SCRIPTS = {
    "mujoco": ROOT / "benchmarks/mujoco_pendulum.py",
    "exudyn": ROOT / "benchmarks/exudyn_pendulum.py",
}
PENDULUM_T_END = 10.0  # s: the case's own t_end, and the peers'
#: A warm-up run on the NLP path simulates this many times the row's time (see warm_up).
WARM_UP_LONGER = 30


@dataclass(frozen=True)
class Run:
    """One row: `side` nlpmbd, siconos (loop in Python), siconos_cpp (loop in C++), mujoco or
    exudyn; `args` the extra arguments."""

    label: str
    problem: str  # "slider_crank" or "pendulum"
    side: str
    args: tuple[str, ...] = ()
    h: float | None = None  # the peers' fixed step
    baseline: str | None = None  # label of the peer row its ratio is taken against


def _env() -> dict:
    return {**os.environ, **BLAS_ENV}


@cache
def pendulum_reference(t_end: float) -> Callable[[np.ndarray], np.ndarray]:
    sys.path.insert(0, str(ROOT))
    from tests.fixtures import pendulum_theta_reference  # the scipy minimal-coordinate ODE

    return pendulum_theta_reference(t_end)


def theta_error(t: np.ndarray, theta: np.ndarray) -> float:
    """Max |theta - theta_ref| over the run (theta unwrapped, from +X towards +Y)."""
    ref = pendulum_reference(PENDULUM_T_END)
    return float(np.max(np.abs(np.unwrap(theta) - ref(t))))


def nlpmbd_command(run: Run, t_end: float | None, out: Path) -> list[str]:
    cmd = [sys.executable, "-m", "nlpmbd", "run", run.problem]
    if t_end is not None:
        cmd += ["--t-end", repr(t_end)]
    return [*cmd, "--no-plot", "--force", "--out", str(out), *run.args]


def run_nlpmbd(run: Run, t_end: float | None, accuracy: bool = False, extra=()) -> dict:
    """The command, as a user types it (plus `extra`); the numbers from its meta.json."""
    with tempfile.TemporaryDirectory(prefix="peer_defaults_") as tmp:
        out = Path(tmp) / "run"
        cmd = [*nlpmbd_command(run, t_end, out), *extra]
        r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=ROOT)
        if r.returncode != 0:
            tail = (r.stderr.strip().splitlines() or ["?"])[-1]
            return {"failed": f"exit {r.returncode}: {tail}"}
        meta = json.loads((out / "meta.json").read_text())
        row = {
            "setup_time": meta["setup_time"],
            "loop_time": meta["wall_time"] - meta["setup_time"],
            "steps": meta["summary"]["steps"],
            "t_end": meta["summary"]["t_end"],
            "codegen": meta.get("codegen"),
            "solver_path": meta.get("solver_path"),
            "chunk_steps": meta.get("chunk_steps"),
            "options": meta["options"],
            "versions": meta.get("versions", {}),
        }
        if accuracy and run.problem == "pendulum":
            from nlpmbd.io.result import SimulationResult

            res = SimulationResult.load(out)
            row["theta_error"] = theta_error(res.t, np.arctan2(res.q[:, 1], res.q[:, 0]))
        return row


def warm_up(run: Run, t_end: float | None) -> str:
    """One untimed run that leaves the run's compiled chunk in the cache: with --codegen on
    where it is accepted (the QP path), else (the NLP path, whose chunks are predicted and
    refuse codegen=on) a run WARM_UP_LONGER times longer, long enough for codegen auto to
    compile in the background, as a user's long run would."""
    row = run_nlpmbd(run, t_end, extra=("--codegen", "on", "--quiet"))
    if "failed" in row:
        longer = WARM_UP_LONGER * (t_end or PENDULUM_T_END)
        row = run_nlpmbd(run, t_end, extra=("--quiet", "--t-end", repr(longer)))
    return row.get("codegen") or row.get("failed", "?")


def run_peer(run: Run, t_end: float, accuracy: bool, siconos_python: str, peers_python: str):
    if run.side in SICONOS_DRIVERS:
        return run_siconos(Spec(run.side, run.h or 1e-5), t_end, siconos_python)
    cmd = [peers_python, str(SCRIPTS[run.side]), "--h", repr(run.h), "--t-end", repr(t_end)]
    cmd += list(run.args)
    with tempfile.TemporaryDirectory(prefix="peer_defaults_") as tmp:
        theta_file = Path(tmp) / "theta.npy"
        if accuracy:
            cmd += ["--theta", str(theta_file)]
        r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=ROOT)
        if r.returncode != 0:
            tail = (r.stderr.strip().splitlines() or ["?"])[-1]
            return {"failed": f"exit {r.returncode}: {tail}"}
        row = json.loads(r.stdout.strip().splitlines()[-1])
        if accuracy:
            t, theta = np.load(theta_file)
            row["theta_error"] = theta_error(t, theta)
        return row


def siconos_physics(run: Run, t_end: float, python: str) -> dict:
    """An untimed --physics run of a Siconos row (first impact, revolutions, penetration): the
    check that its two drivers give the same motion; it also compiles what the row needs."""
    return run_siconos(Spec(run.side, run.h or 1e-5), t_end, python, physics=True)


def peer_missing(side: str, python: str) -> str | None:
    """Why a peer cannot run here, or None when it can."""
    if side in SICONOS_DRIVERS:
        why = siconos_missing(python)
        return why or (siconos_cpp_missing() if side == "siconos_cpp" else None)
    module = side
    try:
        r = subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{python} cannot be run ({exc.__class__.__name__})"
    return None if r.returncode == 0 else f"{python} cannot import {module}"
