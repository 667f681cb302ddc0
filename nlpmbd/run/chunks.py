"""The fixed-step fast path: a run evaluated in chunks of steps by one CasADi Function.

`chunk_function` maps the QP's whole step (step/qp.py) over n steps with mapaccum, recording each
step's row of the result; `ChunkRunner` owns it (compiled to C when asked and a compiler is
found, see codegen.py) and turns one evaluation into result rows. A chunk stops being used at
its first step that failed a check (QP acceptance test or projection convergence): `run`
returns the rows before it, and the run loop (run/stepping.py) takes that step in Python with
the NLP path's fallbacks, then starts the next chunk from there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import casadi as ca
import numpy as np

from ..model.symbolic import SymbolicModel
from ..step.qp import QPStep, extrapolate
from ..step.quiet import silent_stdout
from ..step.solver import StepSolution
from .codegen import compile_function
from .records import point_arrays


def chunk_layout(model: SymbolicModel) -> dict[str, int]:
    """Names and per-step row counts of the chunk function's record, in order."""
    M, E, J, C = model.n_gap, model.n_eq, model.n_joints, model.n_compliant
    return {
        "q": model.n_q,
        "v": model.n_v,
        "lam": M,
        "lam_eq": E,
        "gap": M,
        "eq_residual": 1,
        "energy": 3,
        "directions": 3 * M,
        "points": 3 * M,
        "joint_force": 3 * J,
        "eom_residual": 1,
        "comp_residual": 1,
        "norm_residual": 1,
        "gap_uncorrected": 1,
        "iterations": 1,
        "qp_ok": 1,
        "projection_ok": 1,
        "q_raw": model.n_q,
        "friction": 3 * M,
        "compliant_gap": C,
        "compliant_force": 3 * C,
    }


def chunk_function(step: QPStep, n: int) -> ca.Function:
    """n steps in one Function (mapaccum): (X0 = [t; q; v; lam; lam1; lam2; z], h (1 x n)) ->
    (X_n, R (rows x n)); lam, lam1, lam2, the normal forces of the last three steps, start the
    next step's friction fixed point (step/qp.py, extrapolate); z, the compliant contacts'
    memory (run/contact_memory.py), their force is held over each step.

    Column k of R is step k's record in chunk_layout order, stacked: the state after the step,
    the time-point report (model.report) and the step diagnostics. A column with h = 0 is
    padding: the state passes through unchanged and the record is zero (the last chunk of a
    run is padded this way, so one compiled Function serves every chunk). Padding is a switch
    (Function.if_else), which computes no step: an MX if_else would compute one and drop it."""
    X, h = ca.MX.sym("X", chunk_state_size(step.kernel.model)), ca.MX.sym("h")
    taken = _one_step(step, X, h)
    zero = ca.MX.zeros(taken.sparsity_out(1))
    padding = ca.Function("qp_chunk_padding", [X, h], [X, zero])
    switch = ca.Function.if_else("qp_chunk_switch", taken, padding)
    one = ca.Function("qp_chunk_step", [X, h], switch(h > 0, X, h))
    return one.mapaccum("qp_chunk", n)


def chunk_state_size(m: SymbolicModel) -> int:
    """The length of X = [t; q; v; lam; lam1; lam2; z]."""
    return 1 + m.n_q + m.n_v + 3 * m.n_gap + m.n_compliant


def _one_step(step: QPStep, X: ca.MX, h: ca.MX) -> ca.Function:
    """(X, h) -> (the state after one step of size h > 0, its record)."""
    m = step.kernel.model
    nq, nc = m.n_q, m.n_gap
    a = 1 + nq + m.n_v  # where the normal forces start
    t, q, v = X[0], X[1 : 1 + nq], X[1 + nq : a]
    lam, lam1, lam2 = (X[a + k * nc : a + (k + 1) * nc] for k in range(3))
    z = X[a + 3 * nc :]
    Qc, gap_c, _, _, force_c, _ = m.compliant_force(t, q, v, z)
    normal = ca.fmax(extrapolate(lam, lam1, lam2), 0)
    o = step.whole_step(t=t, q=q, v=v, h=h, normal=normal, applied=Qc)
    t_new = t + h
    q_new, v_new = o["q_new"], o["v_new"]
    _, gap_new, rate_new, *_ = m.compliant_force(t_new, q_new, v_new, z)
    # a contact that begins now keeps its penetration speed; an open one forgets it
    z_new = ca.if_else(gap_new > 0, ca.if_else(gap_c > 0, z, ca.fmax(rate_new, 0)), 0)
    record = ca.vertcat(
        q_new,
        v_new,
        *_reported(m, o, q_new, v_new, t_new),
        o["q_raw"],
        ca.densify(ca.vec(o["friction"])),
        gap_new,
        ca.vec(force_c),
    )
    state = ca.vertcat(t_new, q_new, v_new, o["lam"], lam, lam1, z_new)
    return ca.Function("qp_chunk_taken", [X, h], [state, record])


def _reported(m: SymbolicModel, o: dict, q: ca.MX, v: ca.MX, t: ca.MX) -> list:
    """The record's rows from lam to projection_ok (chunk_layout)."""
    gap, eq, energy, directions, points, forces = m.report(q, v, t, o["lam"], o["lam_eq"])
    diagnostics = ("eom", "comp", "drift", "gap_raw", "n_qp", "qp_ok", "projection_ok")
    return [
        o["lam"],
        o["lam_eq"],
        gap,
        eq,
        energy,
        ca.vec(directions),
        ca.vec(points),
        ca.vec(forces),
        *(o[k] for k in diagnostics),
    ]


@dataclass
class ChunkRows:
    """The accepted steps of one chunk: `points` and `steps` hold History arrays (k rows)."""

    k: int
    points: dict[str, np.ndarray]
    steps: dict[str, np.ndarray]
    discarded: int  # steps computed after the first failed one, thrown away
    state: np.ndarray  # X = [t; q; v; lam; lam1; lam2] after the last accepted step


class _Buffered:
    """A chunk Function evaluated in place on NumPy arrays (CasADi's Function.buffer): no
    conversion of its outputs to DM and back, which costs as much as the steps themselves.
    CasADi stores matrices column by column, so the (rows x n) record of a chunk is read as an
    (n x rows) C array: one row per step."""

    def __init__(self, f: ca.Function, n: int) -> None:
        self.x0 = np.zeros(f.size1_in(0))
        self.h = np.zeros(n)
        self.states = np.zeros((n, f.size1_out(0)))
        self.record = np.zeros((n, f.size1_out(1)))
        self.buffer, self._eval = f.buffer()
        self._quiet = True  # the first evaluation allocates the QP solvers' memory
        for k, a in enumerate((self.x0, self.h)):
            self.buffer.set_arg(k, memoryview(a))  # type: ignore[arg-type]
        for k, a in enumerate((self.states, self.record)):
            self.buffer.set_res(k, memoryview(a))  # type: ignore[arg-type]

    def __call__(self, X: np.ndarray, h: np.ndarray) -> bool:
        self.x0[:] = X
        self.h[:] = h
        try:
            if self._quiet:  # qpOASES prints its licence banner for each new memory
                with silent_stdout():
                    self._eval()
                self._quiet = False
            else:
                self._eval()
        except RuntimeError:
            return False
        return self.buffer.ret() == 0


class ChunkRunner:
    """Chunks of n fixed-h QP steps; `compile` asks for the C version (codegen.py)."""

    def __init__(self, step: QPStep, n: int, compile: bool) -> None:
        self.model, self.n = step.kernel.model, n
        self.layout = chunk_layout(self.model)
        offsets = np.cumsum([0, *self.layout.values()])
        self.rows = {
            k: slice(a, b) for k, a, b in zip(self.layout, offsets[:-1], offsets[1:], strict=True)
        }
        vm = chunk_function(step, n)
        self.codegen = "off"
        function = vm
        if compile:
            function, self.codegen = compile_function(vm)
        self.vm = _Buffered(vm, n)
        self.function = self.vm if function is vm else _Buffered(function, n)

    def run(self, X: np.ndarray, h: np.ndarray) -> ChunkRows:
        """Evaluate steps of sizes h (at most n) from state X = [t; q; v; lam]."""
        m = len(h)
        row = np.zeros(self.n)
        row[:m] = h
        tic = time.perf_counter()
        used = self.function
        if not used(X, row):
            # a compiled QP that could not be made non-fatal (codegen.py), or a QP that CasADi
            # rejects outright (NaN bounds): the VM, else hand the first step to Python
            used = self.vm
            if not used(X, row):
                return ChunkRows(0, {}, {}, discarded=0, state=X)
        elapsed = time.perf_counter() - tic
        Xs, R = used.states[:m], used.record[:m]
        r = self.rows
        good = (R[:, r["qp_ok"]][:, 0] > 0.5) & (R[:, r["projection_ok"]][:, 0] > 0.5)
        bad = np.flatnonzero(~good)
        k = int(bad[0]) if bad.size else m
        model = self.model
        nc, nj = model.n_gap, model.n_joints

        def cols(name):  # a copy: the buffers are overwritten by the next chunk
            return R[:k, r[name]].copy()

        C = model.n_compliant
        points = point_arrays(
            model,
            t=Xs[:k, 0].copy(),
            q=cols("q"),
            v=cols("v"),
            lam=cols("lam"),
            lam_eq=cols("lam_eq"),
            gap=cols("gap"),
            eq_residual=cols("eq_residual")[:, 0],
            energy=cols("energy"),
            directions=cols("directions").reshape(k, nc, 3),
            points=cols("points").reshape(k, nc, 3),
            joint_force=cols("joint_force").reshape(k, nj, 3),
            friction=cols("friction").reshape(k, nc, 3) if model.has_friction else None,
            compliant_gap=cols("compliant_gap") if C else None,
            compliant_force=cols("compliant_force").reshape(k, C, 3) if C else None,
        )
        steps = {
            "h": np.asarray(h[:k], dtype=float),
            "eom_residual": cols("eom_residual")[:, 0],
            "norm_residual": cols("norm_residual")[:, 0],
            "comp_residual": cols("comp_residual")[:, 0],
            "iterations": cols("iterations")[:, 0],
            # one evaluation for m steps: each step is charged the mean
            "solve_time": np.full(k, elapsed / max(m, 1)),
            "status": np.zeros(k),
            "gap_uncorrected": cols("gap_uncorrected")[:, 0] if nc else np.zeros(k),
        }
        end = Xs[k - 1].copy() if k else np.asarray(X, dtype=float)
        return ChunkRows(k, points, steps, discarded=max(0, m - k - 1), state=end)


def chunk_end(rows: ChunkRows) -> StepSolution:
    """The last accepted step of a chunk as the next step's warm start: the normal forces of the
    last three steps start the friction fixed point (QPStep.solve; a checkpoint stores them as
    `warm`)."""
    p, s = rows.points, rows.steps
    nq = p["q"].shape[1] + p["node_q"][-1].size  # the state's q and v: rigid, then nodes
    nv = p["v"].shape[1] + p["node_v"][-1].size
    start, nc = 1 + nq + nv, p["lam"].shape[1]
    lam, lam1, lam2 = rows.state[start : start + 3 * nc].reshape(3, nc).copy()
    return StepSolution(
        h=float(s["h"][-1]),
        q=rows.state[1 : 1 + nq].copy(),
        v=rows.state[1 + nq : start].copy(),
        lam=lam,
        lam_eq=p["lam_eq"][-1],
        eom_residual=float(s["eom_residual"][-1]),
        comp_residual=float(s["comp_residual"][-1]),
        norm_drift=float(s["norm_residual"][-1]),
        status=0,
        iterations=int(s["iterations"][-1]),
        solve_time=float(s["solve_time"][-1]),
        return_status="QP chunk",
        warm={"lam": lam, "lam1": lam1, "lam2": lam2},
    )
