"""`nlpmbd animate DIR [--out FILE] [--overlay IDEAL_DIR] [--magnify K] [--fps N] [--speed S]
[--gif]`: a saved result as one self-contained 3-D HTML page (plots/animation.py, made with
meshcat's viewer; play, pause, time and speed in its control panel), DIR/animation.html by
default, and with --gif a 2-D GIF (plots/animation_gif.py), DIR/animation.gif.

The drawing needs the bodies' inertias and the joints' geometry, which meta.json does not
hold: the case is rebuilt from meta.json's "case" and "parameters" through the installed cases
(apps/registry.py), or from the model file meta.json's "source" records (if it is unchanged).
A result of a case that is not installed is drawn with cubes for bodies.

Clearance magnification K (default: the largest clearance drawn as 5% of the mechanism's
size, rounded down to 1, 2 or 5 times a power of ten, a flexible body's guide play at most 10%
of its height): each journal (pin, ball, slider) is
drawn K times farther from its hole's centre than computed, in a hole of radius r + K c; in an
open chain the bodies are translated to match, in a closed loop they stay where computed
(plots/animation_frames.py). Flexible bodies are drawn as their deformed mesh, deformations
magnified so that the largest is 10% of the body's height (plots/animation_flexible.py). The
page's caption says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..validation import short_repr
from .cli_types import path_flag
from .exit_codes import EXIT_OK

#: Allowed ranges of the number flags.
RANGES = {"--magnify": (1.0, 1e9), "--fps": (1.0, 1000.0), "--speed": (1e-4, 1e4)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="a saved result (written by `nlpmbd run ... --out DIR`)")
    parser.add_argument(
        "--out",
        type=path_flag("--out"),
        metavar="FILE",
        help="the page (default: DIR/animation.html)",
    )
    parser.add_argument(
        "--overlay",
        type=path_flag("--overlay"),
        metavar="IDEAL_DIR",
        help="a saved run of the same bodies, drawn translucent",
    )
    parser.add_argument(
        "--magnify",
        metavar="K",
        help="clearance magnification in [1, 1e9] (default: the largest clearance drawn as 5%% "
        "of the mechanism's size, a flexible body's guide play at most 10%% of its height)",
    )
    parser.add_argument(
        "--fps", metavar="N", help="frames per simulated second in [1, 1000] (default 30)"
    )
    parser.add_argument(
        "--speed", metavar="S", help="initial playback speed, 1 = real time (default 1)"
    )
    parser.add_argument("--gif", action="store_true", help="also write DIR/animation.gif (2-D)")


def number(flag: str, text: str | None, default: float) -> float:
    """The value of a number flag within RANGES[flag] (InputError otherwise)."""
    if text is None:
        return default
    low, high = RANGES[flag]
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and low <= value <= high):
        raise InputError(f"{flag} must be a number in [{low:g}, {high:g}], got {short_repr(text)}")
    return value


def rebuild_scene(result: Any) -> tuple[Any, str]:
    """(Scene, note): the case rebuilt from meta.json's case and parameters, or cubes."""
    from ..plots.animation_scene import fallback_scene, scene_from_system
    from .registry import load_cases

    name = result.meta.get("case")
    source = result.meta.get("source")
    if isinstance(source, dict) and source.get("kind") == "model file":
        case, note = model_case(source)
        if case is None:
            return fallback_scene(result.body_names), note
    else:
        cases = load_cases()
        if not isinstance(name, str) or name not in cases:
            note = f"case {short_repr(name)} is not installed: bodies drawn as cubes"
            return fallback_scene(result.body_names), note
        case = cases[name]
    defaults = {p.name: p.default for p in case.parameters}
    given = {k: v for k, v in dict(result.meta.get("parameters") or {}).items() if k in defaults}
    try:  # only the values that differ from the defaults were set (and checked) by the run
        system, _ = case.build({k: v for k, v in given.items() if v != defaults[k]})
    except InputError as err:
        return fallback_scene(result.body_names), f"case {name} not rebuilt ({err}): cubes"
    if [b.name for b in system.bodies] != result.body_names:
        return fallback_scene(result.body_names), f"case {name} has other bodies now: cubes"
    return scene_from_system(system), ""


def model_case(source: dict[str, Any]) -> tuple[Any, str]:
    """(Case, "") of the model file a run's meta.json source names, or (None, why not): the file
    read at its recorded absolute path (else as given), unchanged since the run."""
    from .model_source import read_source

    file = source.get("file")
    path = source.get("path")
    found = next((p for p in (path, file) if isinstance(p, str) and Path(p).is_file()), None)
    if found is None:
        return None, f"model file {short_repr(file)} not found: bodies drawn as cubes"
    try:
        model = read_source(found)
    except InputError as err:
        return None, f"model file {short_repr(found)} not read ({err}): cubes"
    if model.sha256 != source.get("sha256"):
        return None, f"model file {short_repr(found)} changed since the run: bodies drawn as cubes"
    return model.case(), ""


def read_overlay(path: str | None, result: Any) -> Any:
    """The --overlay result; InputError unless it has the same bodies."""
    if path is None:
        return None
    from ..io.outdir import check_readable_dir
    from ..io.result import SimulationResult

    check_readable_dir(path, "--overlay")
    other = SimulationResult.load(path)
    if sorted(other.body_names) != sorted(result.body_names):
        raise InputError(
            f"--overlay {short_repr(path)} holds a run of case "
            f"{short_repr(other.meta.get('case'))} with bodies {other.body_names}, not the bodies "
            f"of DIR {result.body_names}"
        )
    return other


def _out_path(args: argparse.Namespace, name: str) -> Path:
    """Where the page (--out, else DIR/NAME) or the GIF (DIR/NAME) goes, checked."""
    from ..io.outdir import check_file_target

    flag = "--out" if args.out and name.endswith(".html") else "DIR"
    out = Path(args.out) if flag == "--out" else Path(args.dir) / name
    return check_file_target(out, flag)


def run(args: argparse.Namespace) -> int:
    """The command; InputError for bad input (the CLI prints it and exits 2)."""
    from ..io.outdir import check_readable_dir, write_failure
    from ..io.result import SimulationResult

    magnify = number("--magnify", args.magnify, math.nan)
    fps, speed = number("--fps", args.fps, 30.0), number("--speed", args.speed, 1.0)
    check_readable_dir(args.dir, "DIR")
    result = SimulationResult.load(args.dir)
    overlay = read_overlay(args.overlay, result)
    out = _out_path(args, "animation.html")
    if importlib.util.find_spec("meshcat") is None:
        raise InputError("nlpmbd animate needs the meshcat package: pip install meshcat")
    from ..plots.animation import write_animation

    scene, note = rebuild_scene(result)
    if note:
        print(f"nlpmbd: {note}", file=sys.stderr)
    label = "ideal run" if overlay is None else _label(overlay, args.overlay)
    title = f"{result.meta.get('case', 'result')}: {Path(args.dir).resolve().name}"
    gif = _out_path(args, "animation.gif") if args.gif else None
    written: list[Path] = []
    try:
        k = None if math.isnan(magnify) else magnify
        path, data = write_animation(
            result,
            scene,
            out,
            title=title,
            magnify=k,
            fps=fps,
            speed=speed,
            overlay=overlay,
            overlay_label=label,
        )
        written.append(path)
        if gif is not None:
            from ..plots.animation_gif import write_gif

            written.append(write_gif(data, gif))
    except OSError as err:
        kept = "nothing was written; an earlier animation there is unchanged"
        if written:
            kept = f"wrote {written[0]}; the earlier {gif.name if gif else 'GIF'} is unchanged"
        raise write_failure(err, "--out" if args.out else "DIR", out.parent, kept) from None
    frames, k = len(data.motion.times), data.motion.magnify
    print(f"wrote {', '.join(map(str, written))} ({frames} frames, clearances x{k:g})")
    return EXIT_OK


def _label(overlay: Any, path: str) -> str:
    joint = (overlay.meta.get("parameters") or {}).get("joint")
    return f"{joint} run ({Path(path).name})" if joint else f"run {Path(path).name}"
