"""Command line: `nlpmbd list`, `run CASE|FILE.toml|FILE.urdf`, `study NAME`, `bench`, `plot DIR`,
`export DIR`, `animate DIR`, `new [FILE]`, `convert FILE.urdf`, `fmu CASE -o FILE.fmu`.

Exit codes (apps/exit_codes.py): 0 success, 2 bad input (one-line message), 3 solver failure,
4 results could not be written, 130 interrupted (Ctrl-C or SIGTERM). After a solver failure or
an interruption the partial result is written first, with "completed": false in meta.json
(`run CASE --resume DIR` continues it). Importing this module loads no numerical package, so
Ctrl-C at any moment ends without a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError, OutputFailure
from .exit_codes import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_SOLVER, EXIT_WRITE


def _print_parameters(parameters: Sequence[Any]) -> None:
    for prm in parameters:
        unit = f" {prm.unit}" if prm.unit else ""
        print(
            f"    {prm.name} = {prm.default!r}{unit}  ({prm.description}; {prm.describe_range()})"
        )


def _cmd_list(parts: bool) -> int:
    if parts:
        _print_model_parts()
        return EXIT_OK
    from .registry import load_cases, load_studies

    print("cases (nlpmbd run CASE):")
    for case in load_cases().values():
        print(f"  {case.name}: {case.description}")
        print(f"    defaults: t_end={case.t_end:g} s, h in [{case.h_min:g}, {case.h_max:g}] s")
        _print_parameters(case.parameters)
    print("studies (nlpmbd study NAME):")
    for study in load_studies().values():
        print(f"  {study.name}: {study.description}")
        _print_parameters(study.parameters)
    print("joint types and contact laws of model files: nlpmbd list --parts")
    return EXIT_OK


def _print_model_parts() -> None:
    """The joint types and contact laws a model file names (docs: the model-file reference)."""
    from ..io.model_parts import CONTACT_LAWS, joint_classes, keys_of

    def summary(cls: type) -> str:  # the docstring's first sentence
        words = " ".join((cls.__doc__ or "").split("\n\n")[0].split())
        return re.split(r"(?<!e\.g)\. ", words)[0].rstrip(".") + "."

    print("joint types (model files: [[joints]] type = NAME):")
    for name, cls in joint_classes().items():
        print(f"  {name}: {summary(cls)}\n    keys: {', '.join(keys_of(cls))}")
    print("contact laws (model files: a joint's contact = {law = NAME, ...}):")
    for name, law in CONTACT_LAWS.items():
        print(f"  {name}: {summary(law)}\n    keys: {', '.join(keys_of(law))}")


def _cmd_study(args: argparse.Namespace) -> int:
    from ..validation import short_repr
    from .cli_parser import given_options, pairs
    from .registry import get_study
    from .study_dask import LOST_SCHEDULER
    from .study_report import run_study

    study = get_study(args.name)
    overrides = pairs(args.set, "--set")
    if args.t_end is not None:
        overrides["t_end"] = repr(args.t_end)
    out = Path(args.out) if args.out else Path("results") / f"study-{study.name}"
    report = run_study(
        study,
        overrides,
        out,
        workers=args.workers,
        cluster=args.cluster,
        progress=not args.quiet,
        options=given_options(args),
    )
    if not args.quiet:
        print((out / "table.md").read_text(), end="")
        print(
            f"{study.name}: {len(report.outcomes)} runs "
            f"({sum(o.status == 'reused' for o in report.outcomes)} reused, "
            f"{sum(not o.succeeded for o in report.outcomes)} failed); tables and figures in {out}"
        )
    if report.interrupted:
        print(
            f"nlpmbd: study {short_repr(study.name)} interrupted; the table holds the runs that "
            "completed; run the same command again to continue (completed runs are reused)",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    lost = [o.message for o in report.outcomes if o.message.startswith(LOST_SCHEDULER)]
    if lost:
        kept = sum(o.succeeded for o in report.outcomes)
        print(
            f"nlpmbd: study {short_repr(study.name)}: {lost[0]}; the table in {out} holds the "
            f"{kept} runs that completed; run the same command again to continue (completed "
            "runs are reused)",
            file=sys.stderr,
        )
    return EXIT_OK if all(o.succeeded for o in report.outcomes) else EXIT_SOLVER


def _cmd_plot(args: argparse.Namespace) -> int:
    from ..io.figure_list import remove_recorded_figures
    from ..io.outdir import OutputLock, check_readable_dir, prepare_output, write_failure
    from ..io.result import SimulationResult
    from .cli_run import read_overlay
    from .writer import ResultWriter

    check_readable_dir(args.dir, "plot")
    result = SimulationResult.load(args.dir)
    overlay = read_overlay(args.overlay, result.body_names, result.meta.get("joints", []))
    out = prepare_output(args.dir, "plot")
    with OutputLock(out, "plot"):
        remove_recorded_figures(out)
        try:
            ResultWriter(out).figures(result, overlay, args.figures)
        except OSError as err:
            kept = "the result there is unchanged; the figures written before are complete"
            raise write_failure(err, "plot", out, kept) from None
    print(f"wrote the figures of {out}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    tic = time.perf_counter()
    try:
        from .cli_parser import joined_negative_numbers, parser

        args = parser().parse_args(joined_negative_numbers(sys.argv[1:] if argv is None else argv))
        if args.command == "list":
            return _cmd_list(args.parts)
        if args.command == "run":
            from .cli_run import cmd_run

            return cmd_run(args)
        if args.command == "study":
            return _cmd_study(args)
        if args.command == "bench":
            from . import bench

            return bench.run(args)
        if args.command == "new":
            from . import cli_new

            return cli_new.run(args)
        if args.command == "animate":
            from .cli_animate import run as animate

            return animate(args)
        if args.command == "convert":
            from . import cli_convert

            return cli_convert.run(args)
        if args.command == "export":
            from . import cli_export

            return cli_export.run(args)
        if args.command == "fmu":
            from . import fmu

            return fmu.run(args)
        return _cmd_plot(args)
    except InputError as err:
        print(f"nlpmbd: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    except OutputFailure as err:
        print(f"nlpmbd: {err}", file=sys.stderr)
        return EXIT_WRITE
    except BrokenPipeError:  # e.g. `nlpmbd list | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print(f"nlpmbd: interrupted after {time.perf_counter() - tic:.1f} s", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
