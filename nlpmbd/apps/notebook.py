"""`nlpmbd.animate(result)`: a result's 3-D animation (the page of `nlpmbd animate`,
plots/animation.py) as an object Jupyter shows inline, in an iframe whose srcdoc is the page.

Built only when asked for: the page inlines meshcat's viewer (about 1 MB), too much to put in
every display of a result (`SimulationResult._repr_html_` is the summary table only). The
bodies are drawn from `system` when given (a run of one's own System), else from the case or
model file meta.json names (apps/cli_animate.py), else as cubes."""

from __future__ import annotations

import importlib.util
import math
import os
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..validation import short_repr
from .cli_animate import RANGES, rebuild_scene


@dataclass(frozen=True)
class Animation:
    """One animation page; Jupyter shows it inline, `save` writes it as `nlpmbd animate` does."""

    page: str
    frames: int
    magnify: float
    note: str = ""
    height: int = 480

    def _repr_html_(self) -> str:
        note = f"<p>{escape(self.note)}</p>" if self.note else ""
        return (
            f'{note}<iframe srcdoc="{escape(self.page, quote=True)}" '
            f'style="width:100%;height:{self.height}px;border:1px solid #ddd" '
            'sandbox="allow-scripts"></iframe>'
        )

    def save(self, path: str | os.PathLike) -> Path:
        """Write the page (atomically) to `path`."""
        from ..plots.animation_page import write_page

        return write_page(path, self.page)


def _checked(name: str, value: float | None, default: float) -> float:
    """A number option within cli_animate.RANGES (the flag's range), else InputError."""
    if value is None:
        return default
    low, high = RANGES[f"--{name}"]
    ok = isinstance(value, (int, float)) and math.isfinite(value) and low <= value <= high
    if not ok:
        raise InputError(f"{name} must be a number in [{low:g}, {high:g}], got {short_repr(value)}")
    return float(value)


def _result(value: Any, name: str) -> Any:
    """A SimulationResult, or one loaded from a result directory; InputError otherwise."""
    from ..io.outdir import check_readable_dir
    from ..io.result import SimulationResult

    if isinstance(value, (str, os.PathLike)):
        return SimulationResult.load(check_readable_dir(value, name))
    if not isinstance(value, SimulationResult):
        raise InputError(
            f"{name} must be a SimulationResult or a result directory, got {type(value).__name__}"
        )
    return value


def _scene(result: Any, system: Any) -> tuple[Any, str]:
    """(Scene, note) from `system` (its bodies must be the result's), else from meta.json."""
    from ..model.system import System
    from ..plots.animation_scene import scene_from_system

    if system is None:
        return rebuild_scene(result)
    if not isinstance(system, System):
        raise InputError(f"system must be a System, got {type(system).__name__}")
    names = [b.name for b in system.bodies]
    if names != result.body_names:
        raise InputError(f"system has bodies {names}, the result {result.body_names}")
    return scene_from_system(system), ""


def animate(
    result: Any,
    system: Any = None,
    *,
    overlay: Any = None,
    overlay_label: str = "ideal run",
    magnify: float | None = None,
    fps: float | None = None,
    speed: float | None = None,
    height: int = 480,
) -> Animation:
    """The 3-D animation of `result` (a SimulationResult or a result directory); `overlay`, a
    run of the same bodies, drawn translucent; magnify, fps, speed as `nlpmbd animate`'s flags
    (same ranges)."""
    result = _result(result, "result")
    overlay = None if overlay is None else _result(overlay, "overlay")
    if overlay is not None and sorted(overlay.body_names) != sorted(result.body_names):
        raise InputError(
            f"overlay has bodies {overlay.body_names}, not the result's {result.body_names}"
        )
    k = _checked("magnify", magnify, math.nan)
    fps_, speed_ = _checked("fps", fps, 30.0), _checked("speed", speed, 1.0)
    if not isinstance(height, int) or not 100 <= height <= 4000:
        raise InputError(f"height must be an integer in [100, 4000] (pixels), got {height!r}")
    if importlib.util.find_spec("meshcat") is None:
        raise InputError("nlpmbd.animate needs the meshcat package: pip install meshcat")
    from ..plots.animation import commands
    from ..plots.animation_build import build
    from ..plots.animation_page import page

    scene, note = _scene(result, system)
    data = build(
        result,
        scene,
        magnify=None if math.isnan(k) else k,
        fps=fps_,
        overlay=overlay,
        overlay_label=overlay_label,
    )
    title = str(result.meta.get("case") or "result")
    text = page(data, commands(data), title, speed_)
    return Animation(text, len(data.motion.times), data.motion.magnify, note, height)
