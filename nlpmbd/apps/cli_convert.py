"""`nlpmbd convert FILE.urdf|FILE.xml [-o model.toml] [--annotations FILE] [--force]`: a URDF
robot or an MJCF model as nlpmbd's own model file (io/robot_model.py); an existing file is kept
unless --force is given."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from ..errors import InputError
from ..io.atomic import atomic_write, create_file
from ..io.outdir import check_file_target, write_failure
from ..validation import short_repr
from .cli_types import path_flag
from .exit_codes import EXIT_OK

SUFFIXES = (".urdf", ".xml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `convert`."""
    parser.add_argument(
        "file", type=path_flag("FILE"), help="the robot: FILE.urdf, or FILE.xml (MJCF)"
    )
    parser.add_argument(
        "-o",
        "--out",
        type=path_flag("--out"),
        metavar="PATH",
        help="the model file to write, .toml (default: FILE with the suffix .toml)",
    )
    parser.add_argument(
        "--annotations",
        type=path_flag("--annotations"),
        metavar="FILE",
        help="joints made clearance joints, initial joint positions, options (TOML; default: "
        "FILE's stem + .nlpmbd.toml beside it, if it exists)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


def run(args: argparse.Namespace) -> int:
    from ..io.robot_model import convert

    source = Path(args.file)
    if source.suffix.lower() not in SUFFIXES:
        raise InputError(
            f"convert: FILE must end in .urdf or .xml (MJCF), got {short_repr(args.file)}"
        )
    out = Path(args.out) if args.out else source.with_suffix(".toml")
    if out.suffix != ".toml":
        raise InputError(f"convert: --out must end in .toml, got {short_repr(str(out))}")
    marks = Path(args.annotations) if args.annotations else None
    if marks is not None and not marks.is_file():
        raise InputError(f"convert: --annotations {short_repr(args.annotations)} is not a file")
    if out.resolve() in {source.resolve(), marks.resolve() if marks else None}:
        raise InputError("convert: --out must not be FILE or its annotations")
    check_file_target(out, "--out")
    text = convert(source, marks)
    data = text.encode()
    try:
        if args.force:
            atomic_write(out, lambda stream: stream.write(data))
        else:
            create_file(out, lambda stream: stream.write(data))
    except FileExistsError:
        raise InputError(
            f"convert: {short_repr(str(out))} exists; choose another --out or add --force"
        ) from None
    except OSError as err:
        kept = "nothing was written" + ("; the existing file is unchanged" * out.exists())
        raise write_failure(err, "convert", out, kept) from None
    document = tomllib.loads(text)
    counts = ", ".join(f"{len(document.get(k, []))} {k}" for k in ("bodies", "joints", "loads"))
    print(f"wrote {out} ({counts}); run it with: nlpmbd run {out}")
    return EXIT_OK
