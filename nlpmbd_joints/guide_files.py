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

from .guide_figures import (
    FIGURE_NAMES,
    Results,
    contact_forces_figure,
    crank_moment_figure,
    poincare_figure,
    slider_motion_figure,
    slider_path_figure,
)


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
    dpi: int = 120,
) -> list[Path]:
    """Write the figures that apply as DIR/<name>.png (names in `FIGURE_NAMES` order) and return
    their paths. Skipped: those whose data is missing (no clearance or slider size, no completed
    crank turn, no drive, no contacts at `joint`, missing bodies)."""
    from functools import partial

    out = Path(directory)
    guide: dict[str, Any] = {"clearance": clearance, "guide_center_y": guide_center_y}
    sizes: dict[str, Any] = {"half_width": half_width, "half_length": half_length, "stroke": stroke}
    makers = {
        "slider_path": None
        if None in (clearance, half_width, half_length)
        else partial(slider_path_figure, results, slider, **guide, **sizes),
        "poincare": None
        if clearance is None
        else partial(poincare_figure, results, slider, crank, **guide),
        "crank_moment": partial(crank_moment_figure, results, drive, crank),
        "contact_forces": partial(contact_forces_figure, results, joint, crank, axis),
        "slider_motion": partial(slider_motion_figure, results, slider),
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
        path = out / f"{name}.png"
        fig.savefig(path, dpi=dpi)
        fig.clear()
        paths.append(path)
    return paths


def save_joint_figures(
    result: SimulationResult, directory: str | os.PathLike, joint: str, geometry: dict, dpi: int
) -> list[Path]:
    """The figures of one planar guide (PlanarPrismaticClearance.describe() is `geometry`)."""
    return save_mechanism_figures(
        result,
        directory,
        slider=str(geometry["slider"]),
        joint=joint,
        clearance=float(geometry["clearance"]),
        half_width=float(geometry["half_width"]),
        half_length=float(geometry["half_length"]),
        guide_center_y=float(geometry.get("center_y", 0.0)),
        dpi=dpi,
    )
