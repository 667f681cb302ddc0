"""Figures that joints declare: a joint whose describe() holds {"figures": NAME} is drawn by the
function registered as NAME in the entry point group "nlpmbd.figures", called as
fn(result, directory, joint_name, geometry, dpi) -> list of paths (geometry with the joint's
"clearance" from contact_scales, io/clearances.py). The engine never names a
joint type; a package that defines a joint registers its figures the same way."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

from ..io.clearances import joint_geometry
from ..io.result import SimulationResult


def figure_hooks() -> dict[str, Any]:
    return {ep.name: ep for ep in metadata.entry_points(group="nlpmbd.figures")}


def joint_figures(result: SimulationResult, out: Path, dpi: int) -> list[Path]:
    """The declared figures of every joint of the result (a hook that is not installed draws
    nothing)."""
    hooks = figure_hooks()
    paths: list[Path] = []
    for joint, geometry in joint_geometry(result.meta).items():
        name = geometry.get("figures") if isinstance(geometry, dict) else None
        if isinstance(name, str) and name in hooks:
            paths += hooks[name].load()(result, out, joint, geometry, dpi)
    return paths
