"""`python -m tests.regression.make_snapshot [--out FILE]`: run every run of runs.py and store
the arrays as FILE (default tests/regression/snapshot.npz, keys RUN/ARRAY); with --compare,
print every difference from the stored snapshot instead (run name, array, largest absolute and
relative difference) without writing."""

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
    args = p.parse_args(argv)
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


def _compare(new: dict, old) -> int:
    bad = 0
    for key in sorted(set(new) | set(old.files) - {"provenance"}):
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
