"""The guide figures (guide_figures.py) written as PNG files: `save_mechanism_figures` for one
or several results, and `save_joint_figures`, the hook through which `nlpmbd run` and
`nlpmbd plot` draw them for every PlanarPrismaticClearance (entry point group "nlpmbd.figures",
name "planar_guide", see pyproject.toml)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from numpy.typing import ArrayLike

from nlpmbd.errors import InputError
from nlpmbd.io.result import SimulationResult
from nlpmbd.plots.saving import save_figure

from .guide_data import poincare_points
from .guide_figures import (
    FIGURE_NAMES,
    Results,
    contact_forces_figure,
    crank_moment_figure,
    poincare_figure,
    slider_motion_figure,
    slider_path_figure,
)
from .guide_frame import GuideFrame

#: The Poincare map is written when some result completes at least this many crank turns.
MIN_POINCARE_POINTS = 10


def save_mechanism_figures(
    results: Results,
    directory: str | os.PathLike,
    *,
    slider: str = "slider",
    crank: str = "crank",
    drive: str = "drive",
    joint: str = "guide",
    clearance: float | None = None,
    half_width: float | None = None,
    half_length: float | None = None,
    stroke: tuple[float, float] | None = None,
    guide_center_y: float = 0.0,
    axis: ArrayLike = (1.0, 0.0, 0.0),
    frame: GuideFrame | None = None,
    min_poincare_points: int = MIN_POINCARE_POINTS,
    dpi: int = 120,
) -> list[Path]:
    """Write the figures that apply as DIR/<name>.png (names in `FIGURE_NAMES` order) and return
    their paths. `frame` is the guide's frame (default: fixed along the global `axis`, mid-line
    at y = guide_center_y). Skipped: those whose data is missing (no clearance or slider size,
    no drive, no contacts at `joint`, missing bodies) and the Poincare map when no result has
    `min_poincare_points` crank turns (a map of a few points shows nothing)."""
    from functools import partial

    out = Path(directory)
    frame = frame or GuideFrame.fixed(guide_center_y, axis)
    sizes: dict[str, Any] = {"half_width": half_width, "half_length": half_length, "stroke": stroke}
    guide: dict[str, Any] = {"clearance": clearance, "frame": frame}
    makers = {
        "slider_path": None
        if None in (clearance, half_width, half_length)
        else partial(slider_path_figure, results, slider, **guide, **sizes),
        "poincare": None
        if clearance is None or _turns(results, slider, crank, frame) < min_poincare_points
        else partial(poincare_figure, results, slider, crank, **guide),
        "crank_moment": partial(crank_moment_figure, results, drive, crank),
        "contact_forces": partial(contact_forces_figure, results, joint, crank, axis, frame),
        "slider_motion": partial(slider_motion_figure, results, slider, frame),
    }
    paths: list[Path] = []
    for name in FIGURE_NAMES:
        make = makers[name]
        if make is None:
            continue
        try:
            fig = make()
        except InputError:  # the data this figure needs is missing
            continue
        out.mkdir(parents=True, exist_ok=True)
        paths.append(save_figure(fig, out / f"{name}.png", dpi))
    return paths


def _turns(results: Results, slider: str, crank: str, frame: GuideFrame) -> int:
    """The most Poincare points of any result (0 when the bodies are missing)."""
    pairs = [("", results)] if isinstance(results, SimulationResult) else list(results)
    try:
        return max((poincare_points(r, slider, crank, frame)[0].size for _, r in pairs), default=0)
    except InputError:
        return 0


def save_joint_figures(
    result: SimulationResult, directory: str | os.PathLike, joint: str, geometry: dict, dpi: int
) -> list[Path]:
    """The figures of one planar guide (PlanarPrismaticClearance.describe() is `geometry`), in
    the guide's own frame."""
    return save_mechanism_figures(
        result,
        directory,
        slider=str(geometry["slider"]),
        joint=joint,
        clearance=float(geometry["clearance"]),
        half_width=float(geometry["half_width"]),
        half_length=float(geometry["half_length"]),
        frame=GuideFrame.from_geometry(geometry),
        dpi=dpi,
    )
