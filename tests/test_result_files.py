"""Issue 12, item 8: result files that no run could produce are refused (exit 2, one line naming
the file and the key or array), whether the edit left the checksum stale or a careful editor
recomputed it (fixtures.reseal)."""

from __future__ import annotations

import json
import shutil

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
    import nlpmbd.run.simulate as module

    real = module._advance

    def two_steps(run, state, bar, on_step, checkpoint, every, stop, wall0):
        real(run, state, bar, on_step, checkpoint, every, lambda: state.step >= 2, wall0)

    module._advance = two_steps
    try:
        assert main([*args, "--no-plot", "--quiet"]) == 130
    finally:
        module._advance = real
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
    d = tmp_path / "result"
    shutil.copytree(partial, d)
    damage(d)
    for argv in (["plot", str(d)], ["run", "revolute", "--resume", str(d), "--quiet"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and fragment in err[0], err
        assert "result.npz" in err[0] or "meta.json" in err[0]


def test_the_undamaged_partial_result_plots_and_resumes(partial, tmp_path):
    d = tmp_path / "result"
    shutil.copytree(partial, d)
    assert main(["plot", str(d)]) == 0
    assert main(["run", "revolute", "--resume", str(d), "--quiet", "--no-plot"]) == 0
    assert SimulationResult.load(d).completed
