"""`python -m benchmarks [--quick] [--cases ...] [--repeats N] [--t-end S] [--out DIR]`.

Runs the benchmark suite of nlpmbd.apps.bench (see its docstring), as `nlpmbd bench` does, and
checks the speed targets of benchmarks/targets.py.
"""

import os
import sys

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"  # before NumPy and CasADi load their BLAS

from nlpmbd.apps.bench import main  # noqa: E402

from .targets import TARGETS  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(targets=TARGETS))
