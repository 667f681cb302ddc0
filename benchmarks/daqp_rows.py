"""`python -m benchmarks.daqp_rows`: what a row costs DAQP (CasADi's conic, the step QP's solver)
on QPs shaped like the clearance chain's: H = I, n unknowns, m one-sided rows of 12 nonzeros
(two bodies), 120 (n = 192) or 30 (n = 48) of them binding, the rest with infinite bounds as
the step QP's unset fan and cut rows. With the `daqp` package installed (PyPI; not a project
dependency) the same QPs through it too. CPU per solve from Python, 20 solves. Not a test.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import casadi as ca
import numpy as np

SHAPES = ((48, 152, 30), (192, 608, 120), (192, 130, 120))  # (n, m, binding rows)


def chain_like(rng: np.random.Generator, n: int, m: int, binding: int) -> tuple:
    """(A, g, uba): each row touches 12 consecutive unknowns; `binding` rows cut the free
    minimiser -g, the others have infinite upper bounds."""
    A = np.zeros((m, n))
    for i in range(m):
        j = rng.integers(0, max(1, n - 12))
        A[i, j : j + 12] = rng.normal(size=12)
    g = rng.normal(size=n)
    r = A @ -g
    uba = np.full(m, np.inf)
    idx = rng.choice(m, binding, replace=False)
    uba[idx] = r[idx] - 0.1 * np.abs(r[idx]) - 0.01
    return A, g, uba


def _per_solve(solve: Callable[..., object], *args: object, **kwargs: object) -> float:
    solve(*args, **kwargs)
    t0 = time.process_time()
    for _ in range(20):
        solve(*args, **kwargs)
    return (time.process_time() - t0) / 20


def main() -> int:
    rng = np.random.default_rng(0)
    try:
        import daqp  # type: ignore[import-not-found]
    except ImportError:
        daqp = None
    for n, m, binding in SHAPES:
        A, g, uba = chain_like(rng, n, m, binding)
        H = ca.DM.eye(n)
        conic = ca.conic("s", "daqp", {"h": H.sparsity(), "a": ca.DM(A).sparsity()})
        args = {"h": H, "g": ca.DM(g), "a": ca.DM(A), "uba": ca.DM(uba)}
        args["lba"] = ca.DM(-np.inf * np.ones(m))
        seconds = _per_solve(conic, **args)
        line = f"n = {n}, m = {m}: CasADi's DAQP {1e6 * seconds:.0f} us"
        if daqp is not None:
            from ctypes import c_int

            lo, hi, sense = np.full(m, -1e30), np.minimum(uba, 1e30), np.zeros(m, dtype=c_int)
            seconds = _per_solve(daqp.solve, np.eye(n), g, A, hi, lo, sense)
            from importlib.metadata import version

            line += f", the daqp {version('daqp')} package {1e6 * seconds:.0f} us"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
