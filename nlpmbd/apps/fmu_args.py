"""The arguments of `nlpmbd fmu` (apps/fmu.py), defined without importing the engine."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .cli_types import path_flag

OptionFlags = Callable[..., None]


def add_arguments(parser: argparse.ArgumentParser, option_flags: OptionFlags) -> None:
    """The flags of `fmu`; `option_flags` adds the simulation options' (cli_parser's
    add_option_flags, passed in: the parser imports this module)."""
    parser.add_argument("case", help="a case (see `nlpmbd list`) or a model file FILE.toml")
    parser.add_argument(
        "-o", "--out", type=path_flag("--out"), metavar="PATH", required=True, help="FILE.fmu"
    )
    parser.add_argument(
        "--output",
        action="append",
        default=[],
        metavar="NAME",
        help="an output (repeatable): BODY.x|y|z|e0..e3|vx|vy|vz|wx|wy|wz, JOINT.force_x|y|z, or "
        "a body's or joint's name for its position and velocity or its force (default: every "
        "body's position and velocity and every joint's force)",
    )
    parser.add_argument(
        "--step",
        type=float,
        metavar="S",
        help="the default experiment's communication step, s (default: 10 steps of h_max)",
    )
    parser.add_argument("--h", type=float, help="fixed step size, s (h_min = h_max)")
    option_flags(parser, exclude=("chunk_steps", "codegen"))
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a parameter's start value"
    )
    parser.add_argument(
        "--ipopt", action="append", default=[], metavar="KEY=VALUE", help="extra IPOPT option"
    )
