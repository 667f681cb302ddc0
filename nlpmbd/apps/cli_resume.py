"""Which model `run CASE` simulates, and `run CASE --resume DIR` continuing only a run of that
same model.

meta.json's "source" records the model: a built-in case by name ({"kind": "case", "name"}), a
model file by name, path and the SHA-256 of its bytes ({"kind": "model file", "name", "file",
"sha256"}). A resume whose model differs from the checkpoint's (another kind, a model file
edited since, a result that records no source) would continue one model's motion with
another's equations: it is refused with one line naming the change, unless --force is given;
then the change is printed, kept in meta.json ("resume_forced", and "warnings") and carried
into every later resume of the result.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import InputError
from ..io.result import SimulationResult
from ..validation import short_repr
from .cli_parser import flag_name, given_options

#: Option groups whose flags may change a resumed run (they do not change its results).
RESUMABLE_GROUPS = ("output",)


def load_case(name: str) -> tuple[Any, dict[str, Any], dict[str, str]]:
    """(case, its default options, its source) of `run CASE`: a registered case (no options of
    its own), or a model file (a name ending in .toml; io/model_file.py) with its [options], or
    a URDF robot (.urdf) or an MJCF model (.xml) converted to one (io/robot_model.py; its SHA-256
    is the converted file's, so a changed robot or annotation file is a changed model)."""
    if not name.endswith((".toml", ".urdf", ".xml")):
        from .registry import get_case

        case = get_case(name)
        return case, {}, {"kind": "case", "name": case.name}
    from ..run.options import SimulationOptions

    if name.endswith((".urdf", ".xml")):
        from pathlib import Path

        from ..io.robot_model import load_robot

        model = load_robot(Path(name), options=SimulationOptions)
    else:
        from ..io.model_file import load_model

        model = load_model(name, options=SimulationOptions)
    source = {"kind": "model file", "name": model.name, "file": name}
    source |= {"path": os.path.abspath(name), "sha256": model.sha256}  # path: for `animate`
    return model.case, model.options, source


def _describe(source: dict[str, Any]) -> str:
    if source.get("kind") == "model file":
        return f"the model file {short_repr(source.get('file'))}"
    return f"the built-in case {short_repr(source.get('name'))}"


def source_change(stored: object, now: dict[str, str]) -> str | None:
    """What differs between the model a checkpoint recorded (`stored`, meta.json "source") and
    the one given now; None when they are the same."""
    if not isinstance(stored, dict) or stored.get("kind") not in ("case", "model file"):
        return "it records no model source (meta.json source), so its model cannot be checked"
    if stored["kind"] != now["kind"]:
        return f"it holds a run of {_describe(stored)}, not of {_describe(now)}"
    if now["kind"] == "model file" and stored.get("sha256") != now["sha256"]:
        then = str(stored.get("sha256"))[:12]
        return (
            f"the model file {short_repr(now['file'])} changed since the checkpoint "
            f"(SHA-256 {then}... then, {now['sha256'][:12]}... now)"
        )
    return None


def resumed(args: argparse.Namespace) -> tuple[Any, Any, dict, Any, SimulationResult, dict]:
    """(case, system, parameters, options, checkpoint, meta) of `run CASE --resume DIR`; `meta`:
    the new run's source and the changes --force let through."""
    from ..run.option_groups import GROUPS
    from ..run.options import SimulationOptions

    defining = [g for g in GROUPS if g not in RESUMABLE_GROUPS]
    given = [flag_name(k) for k in given_options(args, defining)]
    given += ["--h"] * (args.h is not None) + ["--set"] * bool(args.set)
    given += ["--ipopt"] * bool(args.ipopt) + ["--out"] * (args.out is not None)
    if given:
        raise InputError(
            f"--resume takes the run's settings from DIR/meta.json; drop {', '.join(given)}"
        )
    partial = SimulationResult.load(args.resume)
    case, _, source = load_case(args.case)
    if partial.meta.get("case") != case.name:
        raise InputError(
            f"--resume: {short_repr(args.resume)} holds a run of case "
            f"{short_repr(partial.meta.get('case'))}, not {short_repr(case.name)}"
        )
    meta = {"source": source, "resume_forced": _forced(args, partial, source)}
    saved = partial.meta.get("parameters", {})
    defaults = {p.name: p.default for p in case.parameters}
    # only the values the run changed: a default of an inapplicable parameter is refused
    system, params = case.build({k: v for k, v in saved.items() if defaults.get(k, v) != v})
    stored = SimulationOptions.from_dict(partial.meta.get("options", {}))
    options = stored.replace(**given_options(args, RESUMABLE_GROUPS))
    return case, system, params, options, partial, meta


def _forced(args: argparse.Namespace, partial: SimulationResult, source: dict) -> list[str]:
    """The model changes let through by --force so far, this one last (InputError for a change
    without --force)."""
    earlier = partial.meta.get("resume_forced")
    forced = [w for w in earlier if isinstance(w, str)] if isinstance(earlier, list) else []
    change = source_change(partial.meta.get("source"), source)
    if change is None:
        return forced
    where = short_repr(args.resume)
    if not args.force:
        raise InputError(
            f"--resume: {where}: {change}; resuming would mix two models (add --force to "
            "continue with the model as it is now)"
        )
    line = f"resumed at t = {float(partial.t[-1]):.6g} s with --force although {change}"
    print(f"nlpmbd: warning: {line}", file=sys.stderr)
    return [*forced, line]
