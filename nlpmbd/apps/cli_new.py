"""`nlpmbd new [FILE]`: write a commented template model file (default model.toml) that runs as
it is (`nlpmbd run FILE`); an existing file is kept unless --force is given."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import InputError
from ..io.atomic import atomic_write, create_file
from ..io.model_schema import NAME_PATTERN
from ..io.model_template import template
from ..io.outdir import check_file_target, write_failure
from ..validation import short_repr
from .exit_codes import EXIT_OK

DEFAULT_FILE = "model.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", nargs="?", default=DEFAULT_FILE, help=f"the file to write (default {DEFAULT_FILE})"
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


def model_name(path: Path) -> str:
    """The template's [model] name: the file's stem if it can name a directory, else "model"."""
    stem = path.stem
    return stem if NAME_PATTERN.fullmatch(stem) and len(stem) <= 100 else "model"


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if path.suffix != ".toml":
        raise InputError(f"new: FILE must end in .toml, got {short_repr(args.file)}")
    check_file_target(path, "new")
    data = template(model_name(path)).encode()
    try:
        if args.force:
            atomic_write(path, lambda stream: stream.write(data))
        else:
            create_file(path, lambda stream: stream.write(data))
    except FileExistsError:
        raise InputError(
            f"new: {short_repr(args.file)} exists; choose another name or add --force"
        ) from None
    except OSError as err:
        kept = "nothing was written" + ("; the existing file is unchanged" * path.exists())
        raise write_failure(err, "new", path, kept) from None
    print(f"wrote {path}; run it with: nlpmbd run {path}")
    return EXIT_OK
