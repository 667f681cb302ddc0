"""Issue 13's regression snapshot: the arrays of every run of tests/regression/runs.py must come
out bit for bit as stored in tests/regression/snapshot.npz (made with `python -m
tests.regression.make_snapshot` by the code from before the engine's refactor). A change that
alters numbers on purpose re-makes the runs it changes with `--update RUN ... --why TEXT`; the
snapshot's provenance lists each update (runs, parent commit, reason)."""

from __future__ import annotations

import numpy as np
import pytest
from regression.make_snapshot import DEFAULT
from regression.runs import RUNS, run_arrays

#: Arrays allowed to differ within a relative tolerance (an operation order that had to
#: change): {run name or "*": {array: rtol}}. Empty: the refactor changed no number.
ALLOWED_RELATIVE: dict[str, dict[str, float]] = {}


@pytest.fixture(scope="module")
def snapshot():
    if not DEFAULT.is_file():
        pytest.skip(f"no regression snapshot at {DEFAULT}")
    with np.load(DEFAULT, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_arrays_equal_the_snapshot(run, snapshot):
    arrays = run_arrays(run)
    stored = {k.split("/", 1)[1]: v for k, v in snapshot.items() if k.startswith(run.name + "/")}
    assert stored, f"{run.name} is not in the snapshot"
    # arrays added to the schema after the snapshot, empty in these rigid runs (node_q, ...)
    arrays = {k: a for k, a in arrays.items() if k in stored or a.size}
    assert sorted(arrays) == sorted(stored)
    allowed = {**ALLOWED_RELATIVE.get("*", {}), **ALLOWED_RELATIVE.get(run.name, {})}
    for name, a in arrays.items():
        b = stored[name]
        assert a.shape == b.shape, f"{run.name}/{name}: shape {a.shape} != {b.shape}"
        if np.array_equal(a, b, equal_nan=True):
            continue
        rel = np.abs(a - b).max() / max(1.0, float(np.abs(b).max(initial=0.0)))
        first = np.argwhere(a != b)[0].tolist()
        assert name in allowed and rel <= allowed[name], (
            f"{run.name}/{name} differs first at {first}, max relative difference {rel:.3g}"
        )
