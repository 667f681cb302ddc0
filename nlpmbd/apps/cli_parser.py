"""The command line's parser. The simulation options' flags are generated from their own field
metadata (run/option_groups.py): a new option is a new flag with no edit here."""

from __future__ import annotations

import argparse
import dataclasses
import enum
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..errors import InputError
from ..run.option_groups import GROUPS, field_type, flat_fields
from ..validation import short_repr
from .cli_types import path_flag


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def _number(kind: type, flag: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise argparse.ArgumentTypeError(
                f"{flag} must be {what}, got {short_repr(text)}"
            ) from None

    parse.__name__ = kind.__name__
    return parse


def flag_name(option: str) -> str:
    return "--" + option.replace("_", "-")


def _help(f: dataclasses.Field) -> str:
    m, kind = f.metadata, field_type(f)
    parts = [m.get("doc", "")]
    if issubclass(kind, enum.Enum):
        parts.append("one of " + ", ".join(str(e.value) for e in kind))
    if m.get("unit"):
        parts.append(m["unit"])
    default = f.default if f.default is not dataclasses.MISSING else None
    if isinstance(default, enum.Enum):
        default = default.value
    if default is not None and not isinstance(default, dict):
        parts.append(f"default {default}")
    return "; ".join(p for p in parts if p)


def add_option_flags(
    parser: argparse.ArgumentParser,
    groups: Sequence[str] = tuple(GROUPS),
    exclude: Sequence[str] = (),
) -> None:
    """One flag per option of the given groups (but `exclude`), default None (= not given)."""
    for name, (group, f) in flat_fields().items():
        if group not in groups or not f.metadata.get("flag", True) or name in exclude:
            continue
        kind, flag = field_type(f), flag_name(name)
        if kind is bool:
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=None, help=_help(f)
            )
        elif kind in (int, float):
            parser.add_argument(flag, type=_number(kind, flag), default=None, help=_help(f))
        else:
            parser.add_argument(flag, dest=name, default=None, metavar="VALUE", help=_help(f))


def given_options(args: argparse.Namespace, groups: Sequence[str] = tuple(GROUPS)) -> dict:
    """The options given on the command line (flat names)."""
    out = {}
    for name, (group, f) in flat_fields().items():
        if group in groups and f.metadata.get("flag", True):
            value = getattr(args, name, None)
            if value is not None:
                out[name] = value
    return out


def joined_negative_numbers(argv: Sequence[str]) -> list[str]:
    """`--h -1e-3` as `--h=-1e-3`: argparse takes "-1e-3" for a flag otherwise ("expected one
    argument"), and the range check of the value could never say what is wrong with it."""
    out: list[str] = []
    for item in argv:
        flag = out[-1] if out else ""
        if flag.startswith("--") and "=" not in flag and item.startswith("-") and _is_number(item):
            out[-1] = f"{flag}={item}"
        else:
            out.append(item)
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _list_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--parts",
        action="store_true",
        help="list the joint types and contact laws of model files instead (loads the joints)",
    )


def parser() -> Parser:
    p = Parser(
        prog="nlpmbd", description="Multibody dynamics with clearance joints, one NLP per step."
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    _list_parser(sub.add_parser("list", help="list cases and studies with their parameters"))
    _run_parser(sub.add_parser("run", help="simulate a case and write results and figures"))
    study = sub.add_parser("study", help="run a family of simulations, write tables and figures")
    study.add_argument("name")
    study.add_argument(
        "--out", type=path_flag("--out"), help="output directory (default: results/study-NAME)"
    )
    where = study.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_number(int, "--workers"), help="local processes")
    where.add_argument("--cluster", metavar="ADDRESS", help="Dask scheduler, tcp://host:port")
    study.add_argument("--t-end", type=_number(float, "--t-end"), help="simulated time, s")
    # every run option, for each run of the study where the study does not set it itself
    add_option_flags(study, [g for g in GROUPS if g != "output"], exclude=("t_end",))
    _pairs_flag(study, "--set", "study parameter (repeatable); see `nlpmbd list`")
    study.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    bench = sub.add_parser("bench", help="time every case and solver mode (see benchmarks/)")
    from .bench_args import add_arguments

    add_arguments(bench)
    plot = sub.add_parser("plot", help="draw the figures of a saved result again")
    plot.add_argument("dir")
    plot.add_argument(
        "--figures", choices=("standard", "all"), default="all", help="which figures (all)"
    )
    plot.add_argument(
        "--overlay", type=path_flag("--overlay"), metavar="DIR", help="a saved result drawn dashed"
    )
    export = sub.add_parser("export", help="write a saved result as CSV, HDF5 or VTK (ParaView)")
    from .cli_export import add_arguments as add_export_arguments

    add_export_arguments(export)
    from . import cli_animate

    cli_animate.add_arguments(
        sub.add_parser("animate", help="a saved result as a self-contained 3-D HTML page")
    )
    new = sub.add_parser("new", help="write a commented template model file (TOML)")
    from .cli_new import add_arguments as add_new_arguments

    add_new_arguments(new)
    from .cli_convert import add_arguments as add_convert_arguments

    add_convert_arguments(sub.add_parser("convert", help="a URDF robot as a model file (TOML)"))
    from .fmu_args import add_arguments as add_fmu_arguments

    fmu = sub.add_parser("fmu", help="the model as an FMI 2.0 co-simulation FMU")
    add_fmu_arguments(fmu, add_option_flags)
    return p


def _pairs_flag(p: argparse.ArgumentParser, flag: str, text: str) -> None:
    p.add_argument(flag, action="append", default=[], metavar="KEY=VALUE", help=text)


def _run_parser(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "case",
        help="a case (see `nlpmbd list`), a model file FILE.toml, a robot FILE.urdf or FILE.xml "
        "(MJCF)",
    )
    run.add_argument("--h", type=_number(float, "--h"), help="fixed step size, s (h_min = h_max)")
    add_option_flags(run)
    _pairs_flag(run, "--set", "case parameter (repeatable); see `nlpmbd list`")
    _pairs_flag(run, "--ipopt", "extra IPOPT option (repeatable), e.g. max_iter=50")
    run.add_argument(
        "--out", type=path_flag("--out"), help="output directory (default: results/CASE)"
    )
    run.add_argument(
        "--resume",
        type=path_flag("--resume"),
        metavar="DIR",
        help="continue the interrupted run saved in DIR (of the same model: see --force)",
    )
    run.add_argument(
        "--overlay", type=path_flag("--overlay"), metavar="DIR", help="a saved result drawn dashed"
    )
    _pairs_flag(
        run,
        "--compare",
        "run the case again with this parameter changed (repeatable), e.g. joint=ideal, into "
        "OUT-VALUE, and draw it as the overlay with difference panels",
    )
    run.add_argument(
        "--force",
        action="store_true",
        help="run even when the step count or result size exceeds the sane bounds; with --resume, "
        "also when the model changed since the checkpoint (recorded in meta.json)",
    )
    run.add_argument("--no-plot", action="store_true", help="write no figures")
    run.add_argument(
        "--figures",
        choices=("standard", "all"),
        default="standard",
        help="standard: positions, energy, step size, contacts and the joints' own figures; "
        "all: also velocities, orientation, residuals, joint forces, contact points",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar and no summary")


def pairs(items: list[str], what: str) -> dict[str, str]:
    """KEY=VALUE items as a dict (InputError for a malformed or repeated item)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"{what} expects KEY=VALUE, got {short_repr(item)}")
        if key.strip() in out:
            raise InputError(f"{what} {short_repr(key.strip())} is given twice")
        out[key.strip()] = value.strip()
    return out


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("nlpmbd")
    except metadata.PackageNotFoundError:
        return "unknown"
