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
CHUNK_STEPS = 256
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


class ChunkRunner:
    def __init__(self, step: QPStep, n_steps: int, codegen: str, n: int = CHUNK_STEPS) -> None:
        self.step, self.n = step, n
        self.layout = chunk_layout(step.model)
        offsets = np.cumsum([0, *self.layout.values()])
        self.rows = {
            k: slice(a, b) for k, a, b in zip(self.layout, offsets[:-1], offsets[1:], strict=True)
        }
        self.vm = chunk_function(step, n)
        self.function, self.codegen = self.vm, "off"
        if codegen == "on" or (codegen == "auto" and n_steps >= CODEGEN_MIN_STEPS):
            self.function, self.codegen = compile_function(self.vm)
        self.vm_reruns = 0

    def run(self, X: np.ndarray, h: np.ndarray) -> ChunkRows:
        """Evaluate steps of sizes h (at most n) from state X = [t; q; v]."""
        m = len(h)
        row = np.zeros((1, self.n))
        row[0, :m] = h
        tic = time.perf_counter()
        try:
            Xs, R = self.function(X, row)
        except RuntimeError:
            # a compiled QP that could not be made non-fatal (codegen.py), or a QP that CasADi
            # rejects outright (NaN bounds): the VM, else hand the first step to Python
            self.vm_reruns += 1
            try:
                Xs, R = self.vm(X, row)
            except RuntimeError:
                return ChunkRows(0, {}, {}, discarded=0)
        elapsed = time.perf_counter() - tic
        Xs, R = np.asarray(Xs)[:, :m], np.asarray(R)[:, :m]
        r = self.rows
        good = (R[r["qp_ok"]][0] > 0.5) & (R[r["projection_ok"]][0] > 0.5)
        bad = np.flatnonzero(~good)
        k = int(bad[0]) if bad.size else m
        model = self.step.model
        M, J = model.n_gap, model.n_joints

        def cols(name):
            return R[r[name], :k].T

        lam = cols("lam")
        directions = cols("directions").reshape(k, M, 3)
        points = {
            "t": Xs[0, :k],
            "q": cols("q"),
            "v": cols("v"),
            "lam": lam,
            "lam_eq": cols("lam_eq"),
            "gap": cols("gap"),
            "eq_residual": cols("eq_residual")[:, 0],
            "energy": cols("energy"),
            "contact_force": lam[:, :, None] * directions,
            "contact_point": cols("points").reshape(k, M, 3),
            "joint_force": cols("joint_force").reshape(k, J, 3),
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
