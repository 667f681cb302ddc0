"""The arrays of a run as they are computed, stacked into a SimulationResult at the end (or on
failure, so that nothing computed is lost)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..io.result import SimulationResult
from ..io.schema import SCHEMA
from ..model.symbolic import SymbolicModel
from ..step.layout import Layout
from ..step.solver import StepSolution
from .records import STEP_ARRAYS, point_arrays
from .storage import reserve

#: Time points collected before they are passed through model.report in one mapped call.
FLUSH_POINTS = 1000


class History:
    """Per-array growing buffers of rows: the Python loop's rows arrive in batches (`_flush`),
    the fast path's a chunk at a time (`extend`); `result` hands them out without a copy while
    they fit in the first block (`capacity` rows)."""

    def __init__(self, model: SymbolicModel, capacity: int = 0, touched: int = 0) -> None:
        """`capacity`: the time points the run may hold (its arrays' first block), of which
        the first `touched` are written once now (their pages faulted in before the steps)."""
        self.model = model
        sizes = model.sizes
        shapes = [(s.trailing(sizes), s.dtype) for s in SCHEMA]
        stores = reserve(shapes, capacity, touched)
        self.arrays = dict(zip((s.name for s in SCHEMA), stores, strict=True))
        self.pending: list[np.ndarray] = []  # time points not yet through model.report
        self.pending_steps: list[tuple] = []
        M, C = model.n_gap, model.n_compliant
        # add_point runs once per Python step: the absent forces' zeros are made once
        self._none = (np.zeros(3 * M), np.zeros(C), np.zeros(3 * C))
        #: a pending time point's row (add_point), split again in `_flush`
        self.point = Layout(
            [
                ("t", 1),
                ("q", model.n_q),
                ("v", model.n_v),
                ("lam", M),
                ("lam_eq", model.n_eq),
                ("friction", 3 * M),
                ("compliant_gap", C),
                ("compliant_force", 3 * C),
            ]
        )
        self._report: tuple[int, Any] = (0, None)  # (k, model.report mapped over k points)

    def add_point(
        self,
        t: float,
        q: ArrayLike,
        v: ArrayLike,
        lam: ArrayLike,
        lam_eq: ArrayLike,
        friction: ArrayLike | None = None,
        compliant_gap: ArrayLike | None = None,
        compliant: ArrayLike | None = None,
    ) -> None:
        """A time point (n+1 kind) at (t, q, v) with the forces of the step that led to it:
        normal forces lam, multipliers lam_eq, friction forces (3, M), compliant contacts' gaps
        (C) and forces (3, C) (zeros when None). The derived rows (gaps, energy, contact and
        joint forces) are computed in batches by model.report mapped over many points
        (`_flush`): one CasADi call, not one per point."""
        no_fr, no_cg, no_cf = self._none
        fr = no_fr if friction is None else np.ravel(np.asarray(friction).T)
        cg = no_cg if compliant_gap is None else np.ravel(compliant_gap)
        cf = no_cf if compliant is None else np.ravel(np.asarray(compliant).T)
        row = {"t": t, "q": q, "v": v, "lam": lam, "lam_eq": lam_eq, "friction": fr}
        row.update(compliant_gap=cg, compliant_force=cf)
        # in the point layout's order; np.concatenate, not Layout.stack: once per Python step
        self.pending.append(np.concatenate([np.ravel(row[name]) for name in self.point.sizes]))
        if len(self.pending) >= FLUSH_POINTS:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        m = self.model
        M, J, C = m.n_gap, m.n_joints, m.n_compliant
        P = np.array(self.pending).T  # (self.point.size, k)
        self.pending = []
        k = P.shape[1]
        p = self.point.split(P)
        if self._report[0] != k:
            self._report = (k, m.report.map(k))
        inputs = {name: p[name] for name in ("q", "v", "t", "lam", "lam_eq")}
        report = {name: np.asarray(a) for name, a in self._report[1](**inputs).items()}
        # (3, X k) matrices: column block j of point i is column i X + j
        rows = point_arrays(
            m,
            t=p["t"].ravel(),
            q=p["q"].T,
            v=p["v"].T,
            lam=p["lam"].T,
            lam_eq=p["lam_eq"].T,
            gap=report["gap"].T,
            eq_residual=report["eq_residual"].ravel(),
            energy=report["energy"].T,
            directions=report["directions"].reshape(3, k, M).transpose(1, 2, 0),
            points=report["points"].reshape(3, k, M).transpose(1, 2, 0),
            joint_force=report["joint_force"].reshape(3, k, J).transpose(1, 2, 0),
            friction=p["friction"].T.reshape(k, M, 3),
            compliant_gap=p["compliant_gap"].T,
            compliant_force=p["compliant_force"].T.reshape(k, C, 3),
        )
        self.extend(**rows)

    def add_step(
        self, sol: StepSolution, status: int, iters: int, spent: float, gap_uncorrected: float
    ) -> None:
        """Step rows (n kind), buffered like the time points (one small array per step and
        array would cost ~100 bytes of object overhead each, more than the data)."""
        row = {"h": sol.h, "eom_residual": sol.eom_residual, "norm_residual": sol.norm_drift}
        row.update(comp_residual=sol.comp_residual, iterations=iters, solve_time=spent)
        row.update(status=status, gap_uncorrected=gap_uncorrected)
        self.pending_steps.append(tuple(row[name] for name in STEP_ARRAYS))
        if len(self.pending_steps) >= FLUSH_POINTS:
            self._flush_steps()

    def _flush_steps(self) -> None:
        if self.pending_steps:
            columns = np.array(self.pending_steps, dtype=float).T
            self.pending_steps = []
            self.extend(**dict(zip(STEP_ARRAYS, columns, strict=True)))

    @property
    def nbytes(self) -> int:
        """Bytes of the rows stored so far (the result's own data)."""
        return sum(a.nbytes for a in self.arrays.values())

    def extend(self, **arrays: np.ndarray) -> None:
        """Append k rows to each named array at once (each array has k rows)."""
        if self.pending and "t" in arrays:
            self._flush()  # keep the time points in order
        if self.pending_steps and "h" in arrays:
            self._flush_steps()
        for name, rows in arrays.items():
            self.arrays[name].extend(rows)

    def flush(self) -> None:
        """The pending points and steps into the arrays."""
        self._flush()
        self._flush_steps()

    def tail(self, name: str, k: int) -> np.ndarray:
        """The last k rows of one array (a view of its storage where they lie in one block)."""
        return self.arrays[name].tail_rows(k)

    def drop(self, k: int) -> None:
        """Forget the last k rows of every array (a chunk's steps after a divergence)."""
        for a in self.arrays.values():
            a.drop(k)

    def latest(self, name: str) -> np.ndarray:
        """The last row of one result array so far (an FMU's output: apps/fmu_session.py)."""
        self.flush()
        return self.arrays[name].last()

    def result(self, meta: dict[str, Any]) -> SimulationResult:
        self.flush()
        arrays = {s.name: self.arrays[s.name].rows(s.dtype) for s in SCHEMA}
        return SimulationResult(**arrays, meta=meta)
