"""What a result's meta.json says about the run before its first step."""

from __future__ import annotations

from importlib import metadata
from typing import Any

from ..io.clearances import stored_description
from ..model.system import System
from .options import SimulationOptions

#: Packages whose versions every result records.
PACKAGES = ("nlpmbd", "casadi", "numpy", "scipy", "pyquaternion", "matplotlib", "tqdm")


def versions() -> dict[str, str]:
    out = {}
    for pkg in PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def geometry(system: System) -> dict[str, dict]:
    """The joints' descriptions, each clearance left to contact_scales (io/clearances.py)."""
    return {
        j.name: stored_description(d, system.joint_clearances(j), j.gap_labels)
        for j in system.joints
        if (d := j.describe())
    }


def run_info(
    system: System, options: SimulationOptions, meta: dict[str, Any] | None
) -> dict[str, Any]:
    """The caller's `meta` plus the options, the system's labels and the versions."""
    info = dict(meta or {})
    info.update(
        {
            "options": options.as_dict(),
            "solver_path": options.solver_path.value,
            "bodies": [b.name for b in system.bodies],
            "nodes": [f"{f.name}[{k}]" for f in system.flexible for k in range(f.n_nodes)],
            "flexible": [f.describe() for f in system.flexible],
            "contact_labels": system.gap_labels,
            "contact_scales": system.gap_clearances,
            "contact_soft": system.gap_soft,
            "compliant_labels": system.compliant_labels,
            "compliant_scales": system.compliant_clearances,
            "joint_geometry": geometry(system),
            "eq_labels": system.eq_labels,
            "joints": [j.name for j in system.joints],
            "gravity": system.gravity.tolist(),
            "versions": versions(),
            "completed": False,
            "setup_time": 0.0,
        }
    )
    return info
