"""The result format in one place: every array of a SimulationResult with its rows, trailing
shape, dtype, unit and meaning.

The history buffers of a run (run/history.py), the result type (io/result.py), saving, loading
and validation (io/files.py) and the table of docs/guide/results.md (`markdown_table`) are all derived from
SCHEMA. Trailing shapes are written in the system's sizes: N bodies, M hard contacts, E scalar
equalities, J joints, C compliant contacts, K nodes of flexible bodies (in the order of meta
"nodes": bodies in system order, each body's nodes by number, row-major from the lower-left
corner, docs/FORMULATION.md section 17).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: Format of result.npz + meta.json (2: grouped options and a checksum of the contents).
FORMAT_VERSION = 2


@dataclass(frozen=True)
class ArraySpec:
    """One array: `per` "point" (n+1 rows, one per time point) or "step" (n rows); `shape` the
    trailing dimensions as numbers or size names with a factor ("7N", "M", "3")."""

    name: str
    per: str
    shape: tuple[str, ...]
    unit: str
    description: str
    dtype: str = "float64"

    def trailing(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        """The trailing shape for the system's sizes {"N": .., "M": .., ...}."""
        out = []
        for dim in self.shape:
            if dim.isdigit():
                out.append(int(dim))
            else:
                factor = int(dim[:-1]) if len(dim) > 1 else 1
                out.append(factor * sizes[dim[-1]])
        return tuple(out)

    def rows(self, n_steps: int) -> int:
        return n_steps + 1 if self.per == "point" else n_steps


def _a(name: str, per: str, shape: str, unit: str, text: str, dtype: str = "float64") -> ArraySpec:
    return ArraySpec(name, per, tuple(shape.split()) if shape else (), unit, text, dtype)


SCHEMA: tuple[ArraySpec, ...] = (
    _a("t", "point", "", "s", "time"),
    _a("h", "step", "", "s", "step sizes"),
    _a("q", "point", "7N", "m, 1", "per body, in body order: x y z (centre of mass, global) e0 e1 e2 e3"),
    _a("v", "point", "6N", "m/s, rad/s", "per body: r_dot (global), angular velocity w' (body axes)"),
    _a("lam", "point", "M", "N", "contact normal-force magnitudes; first row 0"),
    _a("lam_eq", "point", "E", "N, N m", "multipliers of the equalities (joint reactions, driving forces); first row 0"),
    _a("gap", "point", "M", "m", "true gaps Phi_j(q) after each update; > 0 is penetration"),
    _a("energy", "point", "3", "J", "kinetic, potential (gravity), total"),
    _a("eom_residual", "step", "", "N", "norm of K + Phi_v^T lam + Phi_eq,v^T lam_eq"),
    _a("norm_residual", "step", "", "1", "max over bodies of \\|p^T p - 1\\| after the update, before renormalisation"),
    _a("eq_residual", "point", "", "m, rad", "norm of Phi_eq(q, t) (ideal-constraint violation)"),
    _a("comp_residual", "step", "", "N m", "max_j \\|lam_j Phi_lin_j\\|"),
    _a("iterations", "step", "", "1", "IPOPT iterations of the step (all attempts; 0 when the QP predictor solved it); with `solver=\"qp\"`, QP solves", "int64"),
    _a("solve_time", "step", "", "s", "wall time in the solvers for the step (fast path: its chunk's mean)"),
    _a("status", "step", "", "1", "0 solved, 1 solved to acceptable level, 2 solved after a retry, 3 failed", "int64"),
    _a("contact_force", "point", "M 3", "N", "force of each contact on the joint's moving body (child, or parent if the child is ground), global"),
    _a("contact_point", "point", "M 3", "m", "contact points, global"),
    _a("joint_force", "point", "J 3", "N", "total constraint force of each joint on its moving body (CF-x, CF-y, CF-z)"),
    _a("gap_uncorrected", "step", "", "m", "max_j Phi_j after the step, before the penetration correction"),
    _a("friction_force", "point", "M 3", "N", "Coulomb friction force of each contact on its moving body, global"),
    _a("compliant_gap", "point", "C", "m", "gaps of the compliant contacts (`compliant_labels`); > 0 is penetration"),
    _a("compliant_force", "point", "C 3", "N", "force of each compliant contact on its moving body (normal + friction) in the step that led to the point (evaluated at its start, like `lam`); first row 0"),
    _a("node_q", "point", "K 2", "m", "flexible bodies' nodal positions x, y (global, in the body's plane)"),
    _a("node_v", "point", "K 2", "m/s", "flexible bodies' nodal velocities"),
    _a("node_force", "point", "K 2", "N", "contact force on each node (normal + friction, hard and compliant contacts), global x, y, in the step that led to the point; first row 0"),
)  # fmt: skip

#: The counters of meta.json (run/state.py), each a count over the run (a resumed run's
#: included) of what it names. Results written before a counter was added do not hold it
#: (SimulationResult.counters leaves it out; docs/guide/results.md).
COUNTERS: dict[str, str] = {
    "projection_failures": "steps whose gap projection did not converge",
    "curvature_fallbacks": "steps solved again without the second-order term (curvature guard)",
    "controller_rejections": "attempts the step-size controller rejected",
    "chunk_steps": "steps taken in chunks (fast path)",
    "chunk_steps_discarded": "chunk steps computed after a failed step and thrown away",
    "first_order_steps": "steps of a second-order run that the retry ladder took first order",
    "projection_nlp_solves": "gap projections solved by IPOPT (Gauss-Newton did not converge)",
    "predicted_steps": "steps solved by the QP predictor",
    "qp_fallback_steps": "steps the QP path left to the NLP",
    "qp_backup_solves": "QP steps solved again by the backup plugin (qpOASES)",
    "friction_solves": "NLP path: solves of the friction fixed point beyond each step's first",
    "friction_unconverged": "attempts whose friction fixed point stalled or ran out of solves",
    "qp_cold_solves": (
        "QP solves made from scratch (DAQP with no guessed active set or after a missed guess, "
        "the gap projection's): of the steps taken in chunks, of every attempt in Python"
    ),
    "steps_capped_friction": (
        "steps whose friction fixed point made its last round (QP path: the rounds-th "
        "substitution round; NLP path: friction_iterations solves without settling)"
    ),
    "steps_capped_cuts": "steps whose QP made its last cut round (N_CUTS, step/cuts.py)",
    "steps_capped_releases": "steps whose QP made its last release of induced impacts",
    "steps_capped_ipopt": "IPOPT solves stopped by its max_iter",
}

#: The arrays by name.
ARRAYS: dict[str, ArraySpec] = {spec.name: spec for spec in SCHEMA}
#: meta.json keys whose list lengths give the sizes (N from `bodies`, and so on).
SIZE_KEYS = {
    "N": "bodies",
    "M": "contact_labels",
    "E": "eq_labels",
    "J": "joints",
    "C": "compliant_labels",
    "K": "nodes",
}

#: meta.json lists with one entry per gap: key -> (size name, what each entry is). The
#: clearance a gap closes is stored here only: joint_geometry leaves it out (io/clearances.py).
#: contact_soft and compliant_scales are absent from results written before them (format 2).
GAP_KEYS = {
    "contact_scales": ("M", "clearance"),
    "contact_soft": ("M", "flag"),
    "compliant_scales": ("C", "clearance"),
}
#: The joint_geometry key of a joint's clearance in results without contact_soft.
CLEARANCE_KEY = "clearance"


def markdown_table() -> str:
    """The table of the arrays in docs/guide/results.md."""
    lines = ["| array | shape | unit | contents |", "|---|---|---|---|"]
    for s in SCHEMA:
        rows = "n+1" if s.per == "point" else "n"
        shape = ", ".join([rows, *s.shape])
        lines.append(f"| `{s.name}` | ({shape}) | {s.unit} | {s.description} |")
    return "\n".join(lines)


def bytes_per_step(sizes: Mapping[str, int]) -> int:
    """Bytes one step adds to a result: one row of every array (8 bytes per number)."""
    total = 0
    for s in SCHEMA:
        count = 1
        for d in s.trailing(sizes):
            count *= d
        total += 8 * count
    return total
