"""`python -m tests.regression.make_snapshot [--out FILE]`: run every run of runs.py and store
the arrays as FILE (default tests/regression/snapshot.npz, keys RUN/ARRAY); with --compare,
print every difference from the stored snapshot instead (run name, array, largest absolute and
relative difference) without writing; with --update RUN [RUN ...] --why TEXT, run only those
runs and replace their arrays in FILE, keeping every other run's and recording the update
(runs, commit, date, reason) in the provenance: the way a change that alters numbers on
purpose moves the snapshot (runs.py's UPDATES lists them)."""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from .runs import RUNS, run_arrays

DEFAULT = Path(__file__).with_name("snapshot.npz")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, default=DEFAULT)
    p.add_argument("--compare", action="store_true")
    p.add_argument("--update", nargs="+", metavar="RUN")
    p.add_argument("--why", default="")
    args = p.parse_args(argv)
    if args.update:
        return _update(args.out, args.update, args.why)
    arrays = {}
    for run in RUNS:
        for name, a in run_arrays(run).items():
            arrays[f"{run.name}/{name}"] = a
        print(run.name, file=sys.stderr)
    if args.compare:
        return _compare(arrays, np.load(args.out))
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True)
    import casadi

    info = {
        "commit": commit.stdout.strip(),
        "date": datetime.date.today().isoformat(),
        "casadi": casadi.__version__,
        "numpy": np.__version__,
    }
    np.savez_compressed(args.out, **arrays, provenance=np.array(json.dumps(info)))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0


def _update(path: Path, names: list[str], why: str) -> int:
    runs = {run.name: run for run in RUNS}
    unknown = sorted(set(names) - set(runs))
    if unknown or not why:
        print(f"unknown runs {unknown}" if unknown else "--update needs --why", file=sys.stderr)
        return 2
    with np.load(path) as old:
        arrays = {k: old[k] for k in old.files}
    info = json.loads(str(arrays.pop("provenance")))
    for name in names:
        arrays = {k: a for k, a in arrays.items() if not k.startswith(name + "/")}
        for key, a in run_arrays(runs[name]).items():
            arrays[f"{name}/{key}"] = a
        print(name, file=sys.stderr)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    entry = {"runs": names, "parent": commit.stdout.strip(), "why": why}
    info.setdefault("updates", []).append({**entry, "date": datetime.date.today().isoformat()})
    np.savez_compressed(path, **arrays, provenance=np.array(json.dumps(info)))
    print(f"updated {len(names)} runs in {path}")
    return 0


def _compare(new: dict, old) -> int:
    bad = 0
    for key in sorted(set(new) | set(old.files) - {"provenance"}):
        if key in new and key not in old.files and new[key].size == 0:
            continue  # an array added to the schema later, empty in these runs (node_q, ...)
        if key not in new or key not in old.files:
            print(f"{key}: only in {'the snapshot' if key in old.files else 'this run'}")
            bad += 1
            continue
        a, b = new[key], old[key]
        if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
            diff = np.abs(a - b).max() if a.shape == b.shape else np.inf
            rel = diff / max(1.0, float(np.abs(b).max(initial=0.0)))
            print(f"{key}: max abs diff {diff:.3g}, relative {rel:.3g}")
            bad += 1
    print(f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
