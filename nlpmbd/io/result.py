"""SimulationResult: a run's arrays (io/schema.py) and its metadata, with the quantities users
ask of them. Files: io/files.py (DIR/result.npz + DIR/meta.json, docs/guide/results.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..model.clearance import gap_fractions
from ..validation import short_repr
from .clearances import penetration_scales
from .files import read_result, write_result
from .result_html import result_title, summary_html
from .schema import COUNTERS, SCHEMA


@dataclass(repr=False)  # the arrays' repr runs to ~100 kB: __repr__ is one line
class SimulationResult:
    """Per-step histories as NumPy arrays (n steps, n+1 time points), plus metadata; every
    array is described in io/schema.py (docs/guide/results.md)."""

    t: np.ndarray
    h: np.ndarray
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    lam_eq: np.ndarray
    gap: np.ndarray
    energy: np.ndarray
    eom_residual: np.ndarray
    norm_residual: np.ndarray
    eq_residual: np.ndarray
    comp_residual: np.ndarray
    iterations: np.ndarray
    solve_time: np.ndarray
    status: np.ndarray
    contact_force: np.ndarray
    contact_point: np.ndarray
    joint_force: np.ndarray
    gap_uncorrected: np.ndarray
    friction_force: np.ndarray
    compliant_gap: np.ndarray
    compliant_force: np.ndarray
    #: flexible bodies' nodes; a system without them may leave these out (K = 0)
    node_q: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    node_v: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    node_force: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("node_q", "node_v", "node_force"):
            a = getattr(self, name)
            if a.size == 0 and a.shape[0] != self.t.shape[0]:
                setattr(self, name, np.zeros((self.t.shape[0], 0, 2)))

    @property
    def n_steps(self) -> int:
        return int(self.h.shape[0])

    @property
    def body_names(self) -> list[str]:
        return list(self.meta.get("bodies", []))

    @property
    def iteration_unit(self) -> str:
        """What `iterations` counts: IPOPT iterations, or QP solves with solver "qp"."""
        path = self.meta.get("options", {}).get("path", {})
        taken = self.meta.get("solver_path", path.get("solver") if isinstance(path, dict) else "")
        if taken == "qp":
            return "QP solves"
        return "IPOPT iterations"

    @property
    def counters(self) -> dict[str, int]:
        """The counters of meta.json (io/schema.py COUNTERS) that the result holds: one written
        before a counter was added lacks it (not 0: it was not counted)."""
        return {k: int(self.meta[k]) for k in COUNTERS if k in self.meta}

    @property
    def completed(self) -> bool:
        return bool(self.meta.get("completed", False))

    def _body(self, name: str) -> int:
        if name not in self.body_names:
            known = ", ".join(self.body_names)
            raise InputError(f"no body {short_repr(name)} in this result (bodies: {known})")
        return self.body_names.index(name)

    def body_q(self, name: str) -> np.ndarray:
        """(n+1, 7) coordinates of one body: x y z e0 e1 e2 e3."""
        k = self._body(name)
        return self.q[:, 7 * k : 7 * k + 7]

    def body_v(self, name: str) -> np.ndarray:
        """(n+1, 6) velocities of one body: r_dot (global), w' (body axes)."""
        k = self._body(name)
        return self.v[:, 6 * k : 6 * k + 6]

    @property
    def contact_joints(self) -> list[str]:
        """Name of the joint of each contact column."""
        return [label.split(".", 1)[0] for label in self.meta.get("contact_labels", [])]

    def driving_load(self, joint: str) -> np.ndarray:
        """(n+1,) the moment (N m, about the drive's axis) or force (N, along its axis) that a
        driving joint (DrivingAngle, DrivingCoordinate) applies to its child: minus the
        multiplier of its equality (first row 0)."""
        labels = self.meta.get("eq_labels", [])
        for suffix in ("angle", "coordinate"):
            label = f"{joint}.{suffix}"
            if label in labels:
                return -self.lam_eq[:, labels.index(label)]
        raise InputError(f"no driving joint named {short_repr(joint)} in this result")

    def force_of(self, joint: str) -> np.ndarray:
        """(n+1, 3) constraint force of one joint on its child body."""
        names = list(self.meta.get("joints", []))
        if joint not in names:
            raise InputError(
                f"no joint {short_repr(joint)} in this result (joints: {', '.join(names)})"
            )
        return self.joint_force[:, names.index(joint), :]

    def penetration_fraction(self) -> dict[str, float]:
        """Per joint, the largest true penetration over the run divided by the clearance that
        the gap closes (0 when the gaps never close)."""
        scales = penetration_scales(self.meta, self.gap.shape[1])  # soft gaps: 0
        out: dict[str, float] = {}
        worst = np.max(gap_fractions(np.maximum(self.gap, 0.0), scales), axis=0, initial=0.0)
        for k, joint in enumerate(self.contact_joints):
            out[joint] = max(out.get(joint, 0.0), float(worst[k]))
        return out

    # --- summary ------------------------------------------------------------------------------
    def summary(self) -> dict[str, float | int]:
        def mx(a):
            return float(np.max(a)) if a.size else 0.0

        e = self.energy[:, 2]
        out: dict[str, float | int] = {
            "steps": self.n_steps,
            "t_end": float(self.t[-1]),
            "median_step_ms": 1e3 * float(np.median(self.solve_time)) if self.n_steps else 0.0,
            "mean_iterations": float(np.mean(self.iterations)) if self.n_steps else 0.0,
            "max_eom_residual": mx(self.eom_residual),
            "max_eq_residual": mx(self.eq_residual),
            "max_norm_residual": mx(self.norm_residual),
            "max_comp_residual": mx(self.comp_residual),
            "max_penetration": max(0.0, mx(self.gap)),
            "max_penetration_fraction": max(self.penetration_fraction().values(), default=0.0),
            "max_penetration_uncorrected": max(0.0, mx(self.gap_uncorrected)),
            "max_compliant_penetration": max(0.0, mx(self.compliant_gap)),
            "energy_change": float(e[-1] - e[0]),
            "error_estimate": float(self.meta.get("error_estimate", 0.0)),
            "failed_steps": int(np.sum(self.status == 3)),
            "retried_steps": int(np.sum(self.status == 2)),
        }
        cold = self.counters.get("qp_cold_solves")  # absent from older results
        if cold is not None:
            out["mean_cold_solves"] = cold / self.n_steps if self.n_steps else 0.0
        return out

    def __repr__(self) -> str:
        steps = f"{self.n_steps} steps to t = {self.t[-1]:g} s"
        return f"<SimulationResult: {result_title(self.meta)}, {steps}>"

    def _repr_html_(self) -> str:
        """Jupyter's view: the summary as a table, the warnings (io/result_html.py)."""
        return summary_html(self.summary(), self.meta)

    # --- files --------------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike) -> Path:
        """Write DIR/result.npz and DIR/meta.json (io/files.py)."""
        return write_result(directory, self.arrays(), dict(self.meta, summary=self.summary()))

    @classmethod
    def load(cls, directory: str | os.PathLike) -> SimulationResult:
        """Read and validate a result directory (io/files.py); InputError if it is not one a
        run could have written."""
        arrays, meta = read_result(directory)
        return cls(**arrays, meta=meta)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array by name, in schema order."""
        return {spec.name: getattr(self, spec.name) for spec in SCHEMA}


# the dataclass holds exactly the schema's arrays, in its order
assert [f.name for f in fields(SimulationResult)][:-1] == [s.name for s in SCHEMA]
