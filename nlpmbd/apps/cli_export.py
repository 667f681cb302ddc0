"""`nlpmbd export DIR --format csv|hdf5|vtk [--out PATH] [--every K]`: a saved result for other
tools (io/export.py)."""

from __future__ import annotations

import argparse

from .cli_types import path_flag
from .exit_codes import EXIT_OK

FORMATS = ("csv", "hdf5", "vtk")


def _every(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"--every must be an integer >= 1, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `export`."""
    parser.add_argument("dir", help="result directory written by `nlpmbd run`")
    parser.add_argument(
        "--format",
        required=True,
        choices=FORMATS,
        help="csv: one ARRAY.csv per array; hdf5: result.h5 (needs h5py); "
        "vtk: result.pvd + frames/*.vtu for ParaView (needs meshio)",
    )
    parser.add_argument(
        "--out",
        type=path_flag("--out"),
        metavar="PATH",
        help="output directory (default: DIR/export/FORMAT)",
    )
    parser.add_argument(
        "--every",
        type=_every,
        metavar="K",
        help="vtk: write every K-th time point and the last (default: at most 500 frames)",
    )


def run(args: argparse.Namespace) -> int:
    """Export, then print the files written (vtk: the .pvd and a count of the frames)."""
    from ..io.export import export_result

    report = export_result(args.dir, args.format, args.out, args.every)
    if report.format == "vtk":
        print(report.files[0])
        print(f"{report.frames} frames ({len(report.files) - 1} files) in {report.out / 'frames'}")
    else:
        for path in report.files:
            print(path)
    if report.skipped:
        print(f"no columns, not written: {', '.join(report.skipped)}")
    return EXIT_OK
