"""Issue 12, item 8: result files that no run could produce are refused (exit 2, one line naming
the file and the key or array), whether the edit left the checksum stale or a careful editor
recomputed it (fixtures.reseal)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest
from fixtures import reseal

from nlpmbd import SimulationResult
from nlpmbd.apps.cli import main


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    """A checkpoint (partial result) of the revolute case, with its resume block."""
    out = tmp_path_factory.mktemp("partial") / "run"
    args = ["run", "revolute", "--t-end", "0.02", "--checkpoint-every", "1e-9", "--out", str(out)]
    args += ["--chunk-steps", "2"]  # the QP path stops between chunks: stop after two steps
    import nlpmbd.run.chunks as chunks
    import nlpmbd.run.simulate as module

    real, chained = module._advance, chunks.CHAIN_MAX

    def two_steps(run, state, bar, on_step, checkpoint, every, stop, wall0):
        real(run, state, bar, on_step, checkpoint, every, lambda: state.step >= 2, wall0)

    module._advance, chunks.CHAIN_MAX = two_steps, 1  # chunks read one at a time
    try:
        assert main([*args, "--no-plot", "--quiet"]) == 130
    finally:
        module._advance, chunks.CHAIN_MAX = real, chained
    assert not SimulationResult.load(out).completed
    return out


def _arrays(change):
    def edit(d):
        with np.load(d / "result.npz") as data:
            arrays = {k: data[k] for k in data.files}
        change(arrays)
        np.savez_compressed(d / "result.npz", **arrays)
        reseal(d)

    return edit


def _meta(change):
    return lambda d: reseal(d, change)


def _set(*path, value):
    def change(meta):
        target = meta
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


DAMAGE = [
    ("nan-lam", _arrays(lambda a: a["lam"].__setitem__((1, 0), np.nan)), "lam must be finite"),
    ("inf-energy", _arrays(lambda a: a["energy"].__setitem__((1, 2), np.inf)), "energy"),
    ("nan-residual", _arrays(lambda a: a["eom_residual"].__setitem__(0, np.nan)), "eom_residual"),
    ("nan-force", _arrays(lambda a: a["contact_force"].__setitem__((1, 0, 0), np.nan)), "contact"),
    ("q-float32", _arrays(lambda a: a.update(q=a["q"].astype(np.float32))), "q must be float64"),
    ("status-float", _arrays(lambda a: a.update(status=a["status"] * 1.0)), "status must be int64"),
    ("euler-scaled", _arrays(lambda a: a["q"].__setitem__((1, slice(3, 7)), 2 * a["q"][1, 3:7])),
     "not unit length"),
    ("t-shifted", _arrays(lambda a: a.update(t=a["t"] + 1.0)), "t must start at 0"),
    ("t-past-end", _meta(_set("options", "time", "t_end", value=1e-4)), "past t_end"),
    ("h-negative", _arrays(lambda a: a.update(h=-a["h"])), "h must be > 0"),
    ("status-7", _arrays(lambda a: a["status"].__setitem__(0, 7)), "status must hold integers"),
    ("mass-edited-in-both", lambda d: _both(d, _set("parameters", "mass", value=2.0)), "checksum"),
    ("h_next-negative", _meta(_set("resume", "h_next", value=-1)), "resume.h_next"),
    ("h_next-text", _meta(_set("resume", "h_next", value="x")), "resume.h_next"),
    ("n_steps-text", _meta(_set("resume", "n_steps", value="2")), "resume.n_steps"),
    ("counters-negative", _meta(_set("resume", "counters", value={"a": -1})), "resume.counters"),
    ("warm-text", _meta(_set("resume", "warm", value={"x": ["a"]})), "resume.warm"),
    ("impact-speed", _meta(_set("resume", "impact_speed", value=[1.0])), "resume.impact_speed"),
    ("parameters-null", _meta(_set("parameters", value=None)), "parameters"),
    ("parameters-list", _meta(_set("parameters", value=[1])), "parameters"),
    ("joint-geometry-3", _meta(_set("joint_geometry", value=3)), "joint_geometry"),
    ("options-null", _meta(_set("options", value=None)), "options"),
    ("scales-short", _meta(_set("contact_scales", value=[])), "contact_scales"),
    ("bodies-numbers", _meta(_set("bodies", value=[1])), "bodies"),
    ("warnings-number", _meta(_set("warnings", value=3)), "warnings"),
    ("version-1", _meta(_set("format_version", value=1)), "format_version"),
    ("random-bytes", lambda d: (d / "result.npz").write_bytes(bytes(range(256)) * 8),
     "not an .npz archive"),
    ("options-time-text", _meta(_set("options", "time", value="x")), "options.time"),
    ("options-scheme-null", _meta(_set("options", "scheme", value=None)), "options.scheme"),
    ("t_end-text", _meta(_set("options", "time", "t_end", value="x")), "options.time.t_end"),
    ("renormalize-text", _meta(_set("options", "scheme", "renormalize", value="no")),
     "options.scheme.renormalize"),
    ("iterations-negative", _arrays(lambda a: a["iterations"].__setitem__(0, -1)), "iterations"),
    ("solve_time-negative", _arrays(lambda a: a["solve_time"].__setitem__(0, -1.0)), "solve_time"),
    ("eom_residual-negative", _arrays(lambda a: a["eom_residual"].__setitem__(0, -1.0)),
     "eom_residual"),
    ("lam-at-t0", _arrays(lambda a: a["lam"].__setitem__((0, 0), 5.0)), "lam must be 0"),
    ("energy-total", _arrays(lambda a: a["energy"].__setitem__((1, 2), a["energy"][1, 2] + 1)),
     "energy"),
    ("kinetic-negative", _arrays(lambda a: a["energy"].__setitem__(
        (1, slice(None)), [-1.0, a["energy"][1, 1], a["energy"][1, 1] - 1.0])), "energy"),
    ("wall_time-text", _meta(_set("wall_time", value="x")), "wall_time"),
    ("gravity-short", _meta(_set("gravity", value=[0.0, -9.81])), "gravity"),
    ("command-number", _meta(_set("command", value=3)), "command"),
    ("geometry-of-no-joint", _meta(_set("joint_geometry", value={"x": {}})), "joint_geometry"),
    ("geometry-null-value", _meta(_set("joint_geometry", value={"pin": {"clearance": None}})),
     "joint_geometry.pin.clearance"),
]  # fmt: skip


def _both(d, change):
    """Edit the metadata in meta.json and in result.npz alike, checksum untouched."""
    meta = json.loads((d / "meta.json").read_text())
    change(meta)
    text = json.dumps(meta, indent=2, sort_keys=True)
    with np.load(d / "result.npz") as data:
        arrays = {k: data[k] for k in data.files}
    arrays["meta_json"] = np.array(text)
    np.savez_compressed(d / "result.npz", **arrays)
    (d / "meta.json").write_text(text)


@pytest.mark.parametrize(
    ("damage", "fragment"), [d[1:] for d in DAMAGE], ids=[d[0] for d in DAMAGE]
)
def test_damaged_results_are_refused_by_plot_and_resume(
    partial, tmp_path, capsys, damage, fragment
):
    """Exit 2 and one line naming the file and the key or array, from `plot` and `--resume`."""
    d = tmp_path / "result"
    shutil.copytree(partial, d)
    damage(d)
    for argv in (["plot", str(d)], ["run", "revolute", "--resume", str(d), "--quiet"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and fragment in err[0], err
        assert "result.npz" in err[0] or "meta.json" in err[0]


@pytest.mark.slow
def test_the_undamaged_partial_result_plots_and_resumes(partial, tmp_path):
    d = tmp_path / "result"
    shutil.copytree(partial, d)
    assert main(["plot", str(d)]) == 0
    assert main(["run", "revolute", "--resume", str(d), "--quiet", "--no-plot"]) == 0
    assert SimulationResult.load(d).completed


#: `python -c` script: run the command line (argv) with the writer killed (SIGKILL) right after
#: result.npz is renamed into place, before meta.json is: at the first such write (KILL=first)
#: or at the write of the completed result (KILL=completed). The kill is injected, not timed.
KILLED_RUN = """
import json, os, signal, sys
import numpy as np
import nlpmbd.io.files as files
real = files.atomic_write
def write(path, fn):
    real(path, fn)
    if path.name != "result.npz":
        return
    with np.load(path) as data:
        completed = json.loads(str(data["meta_json"]))["completed"]
    if os.environ["KILL"] == "first" or completed:
        os.kill(os.getpid(), signal.SIGKILL)
files.atomic_write = write
from nlpmbd.apps.cli import main
sys.exit(main(sys.argv[1:]))
"""

SHORT = ["--t-end", "0.005", "--no-plot", "--quiet"]


def _killed(kill: str, *argv: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_RUN, *argv],
        env=dict(os.environ, KILL=kill, MPLBACKEND="Agg"),
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("before", "kill", "extra"),
    [
        (None, "completed", []),  # the final save of a short run
        (None, "completed", ["--checkpoint-every", "1e-9"]),  # its last checkpoint: same steps
        ("pendulum", "first", ["--checkpoint-every", "1e-9"]),  # over another case's result
        ("revolute", "completed", []),  # over an earlier run of the same case
    ],
    ids=["final-save", "final-save-after-checkpoint", "over-another-case", "over-a-rerun"],
)
def test_a_kill_between_the_two_writes_leaves_a_result_that_plots(tmp_path, before, kill, extra):
    out = tmp_path / "run"
    if before is not None:
        assert main(["run", before, *SHORT, "--out", str(out)]) == 0
    _killed(kill, "run", "revolute", *SHORT, *extra, "--out", str(out))
    assert main(["plot", str(out)]) == 0
    result = SimulationResult.load(out)
    assert result.meta["case"] == "revolute" and result.n_steps > 0
    assert result.completed == (kill == "completed")
    # the next write puts a matching meta.json back
    if result.completed:
        assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 0
    else:
        assert main(["run", "revolute", "--resume", str(out), "--no-plot", "--quiet"]) == 0
    assert json.loads((out / "meta.json").read_text()) == SimulationResult.load(out).meta
    assert SimulationResult.load(out).completed


def test_results_at_the_format_bounds_load(partial, tmp_path):
    """What runs write at the edges of the checks: kinetic energy 0, zero residuals, |p| = 1
    exactly, a run without renormalisation whose |p| drifts by what norm_residual records."""
    d = tmp_path / "result"
    shutil.copytree(partial, d)

    def edge(a):
        a["energy"][1] = [0.0, a["energy"][1, 1], a["energy"][1, 1]]
        a["eom_residual"][:] = 0.0

    _arrays(edge)(d)
    assert SimulationResult.load(d).n_steps == 2
    drift = 1e-4
    reseal(d, _set("options", "scheme", "renormalize", value=False))

    def drifted(a):
        a["q"][1:, 3:7] *= np.sqrt(1 + drift)
        a["norm_residual"][:] = drift

    _arrays(drifted)(d)
    assert SimulationResult.load(d).n_steps == 2
