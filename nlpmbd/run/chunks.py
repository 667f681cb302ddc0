"""The fast path: a run evaluated in chunks of steps by one CasADi Function.

`chunk_function` (run/chunk_graph.py) maps the QP's whole step over n steps with mapaccum, each
step choosing its own h in the graph and recording its row of the result; `ChunkRunner` owns it
(compiled to C when asked and a compiler is found, see codegen.py) and turns one evaluation
into result rows. A chunk stops
being used at its first step that failed a check (QP acceptance test or projection
convergence): `run` returns the rows before it, and the run loop (run/stepping.py) takes that
step in Python with the NLP path's fallbacks, then starts the next chunk from there.

Chunks of cheap steps are chained: while a chunk took all its steps within CHAIN_SECONDS, the
next is evaluated at once from the state it ended in, into the next rows of the buffers, and
Python reads them all as one (reading a chunk costs ~0.2-0.4 ms of Python whatever its steps:
the pendulum's 512 steps take ~1.1 ms, and the Python between chunks was 25-30 % of its run).
The state goes from one chunk to the next as it does through Python (its attempt counter and
rejection flag reset), so the steps are the same, bit for bit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import casadi as ca
import numpy as np

from ..step.layout import Layout
from ..step.nlp import NLPStep
from ..step.qp import QPStep
from ..step.qp_symbols import PREDICTOR
from ..step.quiet import SilentStderr, silent_stdout
from ..step.solver import StepSolution
from .background import COMPILE_PAYS, BackgroundCompile
from .chunk_graph import (
    FLAGS,
    PARAMETERS,
    SCALARS,
    Sizing,
    chunk_function,
    record_layout,
    state_layout,
)
from .codegen import compile_function
from .controller import ControlLaw
from .option_groups import Codegen
from .records import point_arrays


@dataclass
class ChunkRows:
    """The accepted steps of one chunk, up to its first failed step: `points` and `steps` hold
    History arrays (k rows); `error` their local error estimates (m)."""

    k: int
    points: dict[str, np.ndarray]
    steps: dict[str, np.ndarray]
    error: np.ndarray
    rejected: int  # attempts the controller rejected (solved again at a smaller h)
    discarded: int  # attempts computed after the first failed one, thrown away
    failed: bool  # an attempt failed a check: the run loop takes that step in Python
    state: np.ndarray  # X (state_layout) before that attempt, or after the chunk's last column


#: Chunks evaluated back to back while their evaluations so far took less than this (s).
CHAIN_SECONDS = 0.01
#: Most chunks evaluated back to back, and most bytes of their state and record buffers.
CHAIN_MAX, CHAIN_BYTES = 8, 8 << 20
#: The SCALARS of an attempt's checks (qp_ok, projection_ok, predicted), consecutive.
CHECKS = slice(SCALARS.index(FLAGS[2]), SCALARS.index(FLAGS[-1]) + 1)


class _Buffered:
    """A chunk Function evaluated in place on NumPy arrays (CasADi's Function.buffer): no
    conversion of its outputs to DM and back, which costs as much as the steps themselves.
    CasADi stores matrices column by column, so the (rows x n) record of a chunk is read as an
    (n x rows) C array: one row per step. The buffers hold `slots` chunks (chained chunks,
    module docstring); `states` and `record` are those of the first."""

    def __init__(self, f: ca.Function, n: int) -> None:
        self.n, width = n, f.size1_out("state") + f.size1_out("record")
        self.slots = max(1, min(CHAIN_MAX, CHAIN_BYTES // (8 * n * width)))
        self.x0 = np.zeros(f.size1_in("X"))
        self.parameters = np.zeros((n, f.size1_in("P")))
        self.all_states = np.zeros((self.slots * n, f.size1_out("state")))
        self.all_records = np.zeros((self.slots * n, f.size1_out("record")))
        self.states, self.record = self.all_states[:n], self.all_records[:n]
        self.buffer, self._eval = f.buffer()
        self._quiet = True  # the first evaluation allocates the QP solvers' memory
        self._stderr = SilentStderr()
        for name, a in (("X", self.x0), ("P", self.parameters)):
            self.buffer.set_arg(f.index_in(name), memoryview(a))  # type: ignore[arg-type]
        self._out = (f.index_out("state"), f.index_out("record"))
        self._slot = -1

    def __call__(self, X: np.ndarray, P: np.ndarray, slot: int = 0) -> bool:
        """Evaluate from state X into the rows of chunk `slot` of the buffers."""
        self.x0[:] = X
        self.parameters[:] = P
        if slot != self._slot:
            rows = slice(slot * self.n, (slot + 1) * self.n)
            for i, a in zip(self._out, (self.all_states, self.all_records), strict=True):
                self.buffer.set_res(i, memoryview(a[rows]))  # type: ignore[arg-type]
            self._slot = slot
        try:
            with self._stderr:
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
    """Chunks of n QP steps (chunk_function), evaluated by CasADi's VM or compiled to C
    (codegen.py): `codegen` on compiles before the first chunk, off never, auto loads a cached
    library at once or compiles in the background when that pays (background.py, `after`)."""

    def __init__(
        self,
        step: QPStep,
        n: int,
        codegen: Codegen,
        law: ControlLaw,
        sizing: Sizing,
        nlp: NLPStep | None = None,
    ) -> None:
        self.model, self.n = step.kernel.model, n
        self.state = state_layout(self.model)
        self.rows = record_layout(self.model).slices
        vm = self._vm = chunk_function(step, n, law, sizing, nlp)
        self.vm = self.function = _Buffered(vm, n)
        self._scalars = np.full((len(SCALARS), self.vm.slots * n), 0.0)  # touched once, here
        self.codegen, self._auto = "off", codegen is Codegen.AUTO
        self._background: BackgroundCompile | None = None
        self.step_cost, self.step_size = 0.0, 0.0  # of the last chunk: s per attempt, mean h
        self.chain = True  # chained chunks (module docstring); off where a run stops mid-way
        if codegen is not Codegen.OFF:
            function, self.codegen = compile_function(vm, build=codegen is Codegen.ON)
            if function is not vm:
                self.function = _Buffered(function, n)
            elif self._auto:
                self.codegen = "vm"

    def after(self, time_left: float) -> None:
        """After a chunk, with `time_left` s of simulated time to go: codegen auto starts the
        background build when the VM would need more than COMPILE_PAYS s for the rest, and
        switches to the library once it is built."""
        if self._background is not None:
            done = self._background.result()
            if done is not None:
                self._background = None
                function, self.codegen = done
                if function is not self._vm:
                    self.function = _Buffered(function, self.n)
            return
        if not self._auto or self.function is not self.vm or self.step_size <= 0:
            return
        if time_left / self.step_size * self.step_cost > COMPILE_PAYS:
            self._background = BackgroundCompile(self._vm)
            self.codegen = "compiling"

    def close(self) -> None:
        """The run ended: a build still under way is cancelled (the chunks stayed on the VM)."""
        if self._background is not None:
            self._background.cancel()
            self._background = None
            self.codegen = "vm (the run ended before its compilation)"

    def run(self, X: np.ndarray, P: np.ndarray) -> ChunkRows:
        """Evaluate a chunk from state X (state_layout) with run parameters P (PARAMETERS)."""
        tic = time.perf_counter()
        used = self.function
        if not used(X, P):
            # a compiled QP that could not be made non-fatal (codegen.py), or a QP that CasADi
            # rejects outright (NaN bounds): the VM, else hand the first step to Python
            used = self.vm
            if not used(X, P):
                return ChunkRows(0, {}, {}, np.zeros(0), 0, 0, True, np.asarray(X, dtype=float))
        total = self.n * self._chain(used, P, tic)
        elapsed = time.perf_counter() - tic
        R, first = used.all_records[:total], self.rows[SCALARS[0]].start
        # the SCALARS columns in one pass over R, into rows kept from chunk to chunk (fresh
        # memory each time would cost more in first-touch page faults than the reading)
        S = self._scalars[:, :total]
        np.copyto(S, R[:, first : first + len(SCALARS)].T)
        scalars = dict(zip(SCALARS, S, strict=True))
        h, attempted = scalars["h"], scalars["h"] > 0
        failed = attempted & ~(S[CHECKS].min(axis=0) > 0.5)  # a check not passed
        stop = int(np.argmax(failed)) if failed.any() else total
        took = (scalars["accepted"][:stop] > 0.5) & attempted[:stop]
        k = int(np.count_nonzero(took))
        state = used.all_states[stop - 1] if stop else np.asarray(X, dtype=float)
        tried = max(int(np.count_nonzero(attempted)), 1)
        # the accepted rows: a view where they are the first k (History copies them before the
        # next chunk overwrites the buffers), else a copy
        pick: slice | np.ndarray = slice(0, k)
        if k < stop and not took[:k].all():
            pick = np.flatnonzero(took)
        self.step_cost = elapsed / tried
        self.step_size = float(np.mean(h[pick])) if k else 0.0
        rows, taken_scalars = R[pick], {name: a[pick] for name, a in scalars.items()}
        return ChunkRows(
            k,
            self._points(rows, used.all_states[pick, 0], taken_scalars["eq_residual"]),
            self._steps(taken_scalars, elapsed / tried),
            taken_scalars["error"],
            rejected=int(np.count_nonzero(attempted[:stop])) - k,
            discarded=max(0, int(np.count_nonzero(attempted[stop + 1 :]))),
            failed=stop < total,
            state=state.copy(),
        )

    def _chain(self, used: _Buffered, P: np.ndarray, tic: float) -> int:
        """Chunks evaluated into `used` (module docstring): after the first, the next from the
        state the last ended in, while that one made all its attempts and took them (no failed
        check, t_end not reached) and all so far took less than CHAIN_SECONDS; not where the
        caller limits a chunk's attempts or turns `chain` off (an FMU's communication points)."""
        n, at = self.n, self.state.slices
        if not self.chain or PARAMETERS.split(P[0])["columns"][0] < n:
            return 1
        slots = 1
        while slots < used.slots and time.perf_counter() - tic < CHAIN_SECONDS:
            X = used.all_states[slots * n - 1].copy()
            if X[at["failed"]][0] != 0 or X[at["column"]][0] < n:
                break
            X[at["column"]], X[at["rejected"]] = 0.0, 0.0  # as the run loop starts a chunk
            if not used(X, P, slots):  # (the run loop starts again from X)
                break
            slots += 1
        return slots

    def _points(self, R: np.ndarray, t: np.ndarray, eq: np.ndarray) -> dict[str, np.ndarray]:
        """The time points t after the accepted steps (R: their rows of the record; arrays that
        may view the buffer, which the next chunk overwrites: History copies them at once)."""
        model, r, k = self.model, self.rows, R.shape[0]
        nc, nj, C = model.n_gap, model.n_joints, model.n_compliant

        def cols(name):
            return R[:, r[name]]

        return point_arrays(
            model,
            t=t,
            q=cols("q"),
            v=cols("v"),
            lam=cols("lam"),
            lam_eq=cols("lam_eq"),
            gap=cols("gap"),
            eq_residual=eq,
            energy=cols("energy"),
            directions=cols("directions").reshape(k, nc, 3),
            points=cols("points").reshape(k, nc, 3),
            joint_force=cols("joint_force").reshape(k, nj, 3),
            friction=cols("friction").reshape(k, nc, 3) if model.has_friction else None,
            compliant_gap=cols("compliant_gap") if C else None,
            compliant_force=cols("compliant_force").reshape(k, C, 3) if C else None,
        )

    def _steps(self, scalars: dict[str, np.ndarray], each: float) -> dict[str, np.ndarray]:
        """The steps' rows from their SCALARS (chunk_graph.py)."""
        k = scalars["h"].shape[0]
        out = {name: scalars[name] for name in ("h", "eom_residual", "norm_residual")}
        out.update({name: scalars[name] for name in ("comp_residual", "iterations")})
        # one evaluation for all attempts: each step is charged the mean; the constant rows are
        # broadcast views (History copies them: no array of k numbers made for that)
        zeros = np.broadcast_to(0.0, (k,))
        out.update(solve_time=np.broadcast_to(each, (k,)), status=zeros)
        out["gap_uncorrected"] = scalars["gap_uncorrected"] if self.model.n_gap else zeros
        return out


def chunk_end(rows: ChunkRows, state: Layout) -> StepSolution:
    """The last accepted step of a chunk as the next step's warm start, from the chunk state
    after it (chunk_graph.state_layout): its normal-force history becomes `warm`."""
    s, p, steps = state.split(rows.state), rows.points, rows.steps
    lam, lam1, lam2 = (s[k].copy() for k in ("lam", "lam1", "lam2"))
    return StepSolution(
        h=float(steps["h"][-1]),
        q=s["q"].copy(),
        v=s["v"].copy(),
        lam=lam,
        lam_eq=p["lam_eq"][-1].copy(),
        eom_residual=float(steps["eom_residual"][-1]),
        comp_residual=float(steps["comp_residual"][-1]),
        norm_drift=float(steps["norm_residual"][-1]),
        status=0,
        iterations=int(steps["iterations"][-1]),
        solve_time=float(steps["solve_time"][-1]),
        return_status="QP chunk",
        warm={
            "lam": lam,
            "lam1": lam1,
            "lam2": lam2,
            **{n: s[n].copy() for n in PREDICTOR},
        },
    )
