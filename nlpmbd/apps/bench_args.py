"""The arguments of `nlpmbd bench` (and `python -m benchmarks`), apart from the benchmark's code:
the command line's parser builds them without importing the engine (`nlpmbd --help` stays
fast)."""

from __future__ import annotations

import argparse

from ..errors import InputError
from .cli_types import path_flag

DEFAULT_REPEATS, DEFAULT_T_END = 3, 1.0
QUICK_REPEATS, QUICK_T_END, QUICK_STEPS = 1, 0.2, 300
#: The scaling benchmark (apps/scaling.py): chain lengths N, rounds, simulated s, fixed step.
DEFAULT_LINKS, MAX_LINKS = (1, 2, 4, 8, 16, 32), 64
DEFAULT_ROUNDS, SCALING_T_END, DEFAULT_H = 3, 0.05, 1e-3
DEFAULT_OUT = "results/bench"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `nlpmbd bench` and `python -m benchmarks`."""
    parser.add_argument(
        "--cases",
        nargs="+",
        metavar="CASE",
        help="cases to time, space or comma separated (default: all; see `nlpmbd list`)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        help=f"repetitions, >= 1 (default {DEFAULT_REPEATS}; {QUICK_REPEATS} with --quick)",
    )
    parser.add_argument(
        "--t-end",
        type=float,
        help=f"simulated s per case (default {DEFAULT_T_END:g}; {QUICK_T_END:g} with --quick; "
        f"{SCALING_T_END:g} per run with --scaling)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: {QUICK_REPEATS} repetition of {QUICK_T_END:g} s (at most "
        f"{QUICK_STEPS} steps per case) unless given, no run that repeats another",
    )
    parser.add_argument(
        "--out",
        type=path_flag("--out"),
        default=DEFAULT_OUT,
        help=f"directory of bench.json and bench.md, or scaling.* ({DEFAULT_OUT})",
    )
    add_scaling_arguments(parser)


def add_scaling_arguments(parser: argparse.ArgumentParser) -> None:
    """`--scaling` and its options (values checked by scaling_settings, as one-line errors)."""
    parser.add_argument(
        "--scaling", action="store_true", help="time the chain case against its links N instead"
    )
    links = ",".join(map(str, DEFAULT_LINKS))
    parser.add_argument("--links", help=f"--scaling: comma list of N in 1..{MAX_LINKS} ({links})")
    parser.add_argument("--rounds", help=f"--scaling: interleaved rounds, >= 1 ({DEFAULT_ROUNDS})")
    parser.add_argument("--h", help=f"--scaling: fixed step, s ({DEFAULT_H:g})")


def scaling_requested(args: argparse.Namespace) -> bool:
    """Whether `--scaling` is given; InputError for options of the other mode."""
    scaling = bool(getattr(args, "scaling", False))
    mine = [f for f in ("links", "rounds", "h") if getattr(args, f, None) is not None]
    other = [f for f in ("cases", "repeats") if getattr(args, f, None) is not None]
    other += ["quick"] if getattr(args, "quick", False) else []
    if not scaling and mine:
        raise InputError(f"--{mine[0]} applies only with --scaling")
    if scaling and other:
        raise InputError(f"--{other[0]} does not apply with --scaling")
    return scaling
