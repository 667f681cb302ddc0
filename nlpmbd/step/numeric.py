"""A CasADi Function called on NumPy arrays without DM conversions, for the Python loop's hot
calls (the NLP path's checks after each IPOPT solve).

Calling a Function from Python converts every argument to a DM and every result back: ~50-200
us per call on these small Functions, as much as evaluating them. `Numeric` evaluates through
Function.buffer (CasADi's in-place evaluation, as the chunks do, run/chunks.py) into arrays
allocated once: ~5 us. Results are copies in the Function's shapes: a float for 1 x 1, a 1-D
array for a column, a 2-D array otherwise.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np


class Numeric:
    """`f(*args)` on NumPy arrays (dense arguments in f's input shapes, column-major)."""

    def __init__(self, f: ca.Function) -> None:
        self.f = f
        n_in, n_out = f.n_in(), f.n_out()
        for i in range(n_in):
            if not f.sparsity_in(i).is_dense():
                raise ValueError(f"{f.name()}: input {i} is sparse; Numeric takes dense inputs")
        self._in = [np.zeros(f.nnz_in(i)) for i in range(n_in)]
        self._out = [np.zeros(f.nnz_out(i)) for i in range(n_out)]
        self._buffer, self._eval = f.buffer()
        for i, a in enumerate(self._in):
            self._buffer.set_arg(i, memoryview(a))  # type: ignore[arg-type]
        for i, a in enumerate(self._out):
            self._buffer.set_res(i, memoryview(a))  # type: ignore[arg-type]
        self._shapes = [f.size_out(i) for i in range(n_out)]
        self._names_in, self._names_out = f.name_in(), f.name_out()
        # dense positions (column-major) of each output's nonzeros
        self._where = [np.array(f.sparsity_out(i).find(), dtype=int) for i in range(n_out)]

    def __call__(self, *args: Any) -> list[Any]:
        for buf, a in zip(self._in, args, strict=True):
            buf[:] = np.ravel(np.asarray(a, dtype=float).T)  # column-major, as CasADi stores
        self._eval()
        if self._buffer.ret() != 0:
            raise RuntimeError(f"evaluation of {self.f.name()} failed")
        return [self._result(k) for k in range(len(self._out))]

    def named(self, **inputs: Any) -> dict[str, Any]:
        """f with its inputs given by name; its outputs by name (f's own names)."""
        values = self(*(inputs[name] for name in self._names_in))
        return dict(zip(self._names_out, values, strict=True))

    def _result(self, k: int) -> Any:
        rows, cols = self._shapes[k]
        dense = np.zeros(rows * cols)
        dense[self._where[k]] = self._out[k]
        if rows * cols == 1:
            return float(dense[0])
        if cols == 1:
            return dense
        return dense.reshape(cols, rows).T.copy()
