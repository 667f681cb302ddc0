"""The fixed-step fast path: a run evaluated in chunks of steps by one CasADi Function.

`ChunkRunner` owns the chunk Function (qp_step.chunk_function, compiled to C when asked and a
compiler is found, see codegen.py) and turns one evaluation into result rows. A chunk stops
being used at its first step that failed a check (QP KKT test or projection convergence):
`run` returns the rows before it, and the stepping loop (stepper.simulate) takes that step in
Python with the NLP path's fallbacks, then starts the next chunk from there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .codegen import compile_function
from .qp_step import QPStep, chunk_function, chunk_layout

#: Steps per chunk: long enough that the call overhead (~50 us) is small against the steps
#: (5-15 us each), short enough that little work is thrown away after a failed step.
CHUNK_STEPS = 128
#: codegen = "auto" compiles runs of at least this many steps (compilation takes ~1 s and is
#: cached; it pays for itself after ~50000 steps even without the cache).
CODEGEN_MIN_STEPS = 20000


@dataclass
class ChunkRows:
    """The accepted steps of one chunk: `points` and `steps` hold History arrays (k rows)."""

    k: int
    points: dict[str, np.ndarray]
    steps: dict[str, np.ndarray]
    discarded: int  # steps computed after the first failed one, thrown away


class _Buffered:
    """A chunk Function evaluated in place on NumPy arrays (CasADi's Function.buffer): no
    conversion of its outputs to DM and back, which costs as much as the steps themselves.
    CasADi stores matrices column by column, so the (rows x n) record of a chunk is read as an
    (n x rows) C array: one row per step."""

    def __init__(self, f, n: int) -> None:
        self.x0 = np.zeros(f.size1_in(0))
        self.h = np.zeros(n)
        self.states = np.zeros((n, f.size1_out(0)))
        self.record = np.zeros((n, f.size1_out(1)))
        self.buffer, self._eval = f.buffer()
        for k, a in enumerate((self.x0, self.h)):
            self.buffer.set_arg(k, memoryview(a))
        for k, a in enumerate((self.states, self.record)):
            self.buffer.set_res(k, memoryview(a))

    def __call__(self, X: np.ndarray, h: np.ndarray) -> bool:
        self.x0[:] = X
        self.h[:] = h
        try:
            self._eval()
        except RuntimeError:
            return False
        return self.buffer.ret() == 0


class ChunkRunner:
    def __init__(self, step: QPStep, n_steps: int, codegen: str, n: int = CHUNK_STEPS) -> None:
        self.step, self.n = step, n
        self.layout = chunk_layout(step.model)
        offsets = np.cumsum([0, *self.layout.values()])
        self.rows = {
            k: slice(a, b) for k, a, b in zip(self.layout, offsets[:-1], offsets[1:], strict=True)
        }
        vm = chunk_function(step, n)
        self.codegen = "off"
        function = vm
        if codegen == "on" or (codegen == "auto" and n_steps >= CODEGEN_MIN_STEPS):
            function, self.codegen = compile_function(vm)
        self.vm = _Buffered(vm, n)
        self.function = self.vm if function is vm else _Buffered(function, n)
        self.vm_reruns = 0

    def run(self, X: np.ndarray, h: np.ndarray) -> ChunkRows:
        """Evaluate steps of sizes h (at most n) from state X = [t; q; v]."""
        m = len(h)
        row = np.zeros(self.n)
        row[:m] = h
        tic = time.perf_counter()
        used = self.function
        if not used(X, row):
            # a compiled QP that could not be made non-fatal (codegen.py), or a QP that CasADi
            # rejects outright (NaN bounds): the VM, else hand the first step to Python
            self.vm_reruns += 1
            used = self.vm
            if not used(X, row):
                return ChunkRows(0, {}, {}, discarded=0)
        elapsed = time.perf_counter() - tic
        Xs, R = used.states[:m], used.record[:m]
        r = self.rows
        good = (R[:, r["qp_ok"]][:, 0] > 0.5) & (R[:, r["projection_ok"]][:, 0] > 0.5)
        bad = np.flatnonzero(~good)
        k = int(bad[0]) if bad.size else m
        model = self.step.model
        M, J = model.n_gap, model.n_joints

        def cols(name):  # a copy: the buffers are overwritten by the next chunk
            return R[:k, r[name]].copy()

        lam = cols("lam")
        points = {
            "t": Xs[:k, 0].copy(),
            "q": cols("q"),
            "v": cols("v"),
            "lam": lam,
            "lam_eq": cols("lam_eq"),
            "gap": cols("gap"),
            "eq_residual": cols("eq_residual")[:, 0],
            "energy": cols("energy"),
            "contact_force": lam[:, :, None] * cols("directions").reshape(k, M, 3),
            "contact_point": cols("points").reshape(k, M, 3),
            "joint_force": cols("joint_force").reshape(k, J, 3),
            # the fast path has neither friction nor compliant contacts (stepper.py)
            "friction_force": np.zeros((k, M, 3)),
            "compliant_gap": np.zeros((k, 0)),
            "compliant_force": np.zeros((k, 0, 3)),
        }
        steps = {
            "h": np.asarray(h[:k], dtype=float),
            "eom_residual": cols("eom_residual")[:, 0],
            "norm_residual": cols("norm_residual")[:, 0],
            "comp_residual": cols("comp_residual")[:, 0],
            "iterations": cols("iterations")[:, 0],
            # one evaluation for m steps: each step is charged the mean
            "solve_time": np.full(k, elapsed / max(m, 1)),
            "status": np.zeros(k),
            "gap_uncorrected": cols("gap_uncorrected")[:, 0] if M else np.zeros(k),
        }
        return ChunkRows(k, points, steps, discarded=max(0, m - k - 1))


def state_of(rows: ChunkRows) -> np.ndarray:
    """[t; q; v] after the last accepted step of a chunk."""
    p = rows.points
    return np.concatenate([[p["t"][-1]], p["q"][-1], p["v"][-1]])
