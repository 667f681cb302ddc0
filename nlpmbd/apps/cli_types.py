"""Value types of command-line flags that several subcommands' parsers share (a leaf module:
the parsers of apps/cli_parser.py, cli_export.py, cli_animate.py and bench.py import it)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def path_flag(flag: str) -> Callable[[str], str]:
    """A path flag's value: not empty (an empty path would mean the current directory)."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{flag} must name a path, got {text!r}")
        return text

    parse.__name__ = "path"
    return parse
