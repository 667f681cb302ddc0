"""Export a saved result directory (io/files.py) for other tools: CSV, HDF5 (h5py) or a VTK time
series for ParaView (meshio; io/export_vtk.py).

Files go to DIR/export/FORMAT/ unless `out` is given:

- csv: one ARRAY.csv per array of io/schema.py with at least one column. A "point" array starts
  with the column `t [s]`; a "step" array with `step` (its row, 0-based) and `t [s]`, the time at
  the end of the step (t[step+1]). Headers name body / label and component with the unit
  (`crank.x [m]`, `guide.front_upper.y [N]`); floats are written with 17 significant digits, so
  they read back exactly. A header that a spreadsheet would take for a formula (one starting
  with =, +, -, @: a body name of a model file) gets a leading quote `'`.
- hdf5: result.h5 (io/export_hdf5.py), every array exactly, with its units and column labels.
- vtk: result.pvd and frames/*.vtu (io/export_vtk.py); `every` thins the time points.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..validation import short_repr
from .atomic import atomic_write, staging
from .export_columns import header, labelled, need, step_times
from .export_hdf5 import write_hdf5
from .export_vtk import write_vtk
from .outdir import OutputLock, prepare_output, write_failure
from .result import SimulationResult
from .schema import SCHEMA, ArraySpec

FORMATS = ("csv", "hdf5", "vtk")
#: The optional package each format needs (pyproject extra "export").
PACKAGES = {"hdf5": "h5py", "vtk": "meshio"}
#: First characters that make a spreadsheet read a CSV cell as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass
class ExportReport:
    """What an export wrote: the files (for vtk: the .pvd, then the frames), and the arrays a
    CSV export left out because they have no columns (e.g. `lam` without contacts)."""

    format: str
    out: Path
    files: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    frames: int = 0


def default_out(directory: str | os.PathLike, fmt: str) -> Path:
    """Where an export goes without --out: DIR/export/FORMAT."""
    return Path(directory) / "export" / fmt


def export_result(
    directory: str | os.PathLike,
    fmt: str,
    out: str | os.PathLike | None = None,
    every: int | None = None,
) -> ExportReport:
    """Export the result in `directory` as `fmt` (one of FORMATS) into `out` (default
    DIR/export/FORMAT). `every`: vtk only, write every K-th time point (default: at most 500
    frames). InputError for a missing or invalid result, a bad format or a missing package;
    OutputFailure when the files cannot be written (a full disk): `out` is then as it was."""
    if not str(directory).strip():
        raise InputError(f"DIR must name a directory, got {str(directory)!r}")
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, got {short_repr(fmt)}")
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise InputError(f"--every must be an integer >= 1, got {short_repr(every)}")
    if every is not None and fmt != "vtk":
        raise InputError(f"--every applies to --format vtk only, not {fmt}")
    if fmt in PACKAGES:  # before anything is read or created
        need(PACKAGES[fmt], fmt)
    result = SimulationResult.load(directory)
    target = prepare_output(default_out(directory, fmt) if out is None else out, "--out")
    report = ExportReport(fmt, target)
    with OutputLock(target, "--out"):
        try:
            if fmt == "csv":
                write_csv(result, target, report)
            elif fmt == "hdf5":
                report.files.append(write_hdf5(result, target / "result.h5"))
            else:
                report.frames = write_vtk(result, target, every, report.files)
        except OSError as err:
            kept = f"nothing of the {fmt} export was kept ({target} is as it was)"
            raise write_failure(err, "--out", target, kept) from None
    return report


def write_csv(result: SimulationResult, out: Path, report: ExportReport) -> None:
    """One ARRAY.csv per array with columns into `out` (see the module docstring). All are
    written into a staging folder first: a failed write (a full disk) leaves `out` as it was."""
    arrays = result.arrays()
    written: list[str] = []
    with staging(out) as stage:
        for spec in SCHEMA:
            a = arrays[spec.name]
            if a.ndim > 1 and a[0].size == 0:
                report.skipped.append(spec.name)
                continue
            _write_text(stage / f"{spec.name}.csv", _csv_text(spec, a, result))
            written.append(f"{spec.name}.csv")
        for name in report.skipped:
            # a file of another result exported into the same --out must not pass for this one's
            (out / f"{name}.csv").unlink(missing_ok=True)
        for name in written:
            os.replace(stage / name, out / name)
    report.files += [out / name for name in written]


def _write_text(path: Path, text: str) -> None:
    data = text.encode()
    atomic_write(path, lambda fh: fh.write(data))


def _csv_text(spec: ArraySpec, a: np.ndarray, result: SimulationResult) -> str:
    cols = labelled(spec, a.shape, result.meta)
    values = a.reshape(a.shape[0], -1)
    time_cols: list[np.ndarray] = []
    names: list[str] = []
    if spec.per == "step":
        time_cols = [np.arange(a.shape[0], dtype=float), step_times(result.t)]
        names = ["step", "t [s]"]
    elif spec.name != "t":
        time_cols, names = [result.t], ["t [s]"]
    buf = io.StringIO(newline="")
    # csv quotes a label that holds a comma or a quote (labels come from the case's names)
    csv.writer(buf, lineterminator="\n").writerow(names + [_cell(header(c, u)) for c, u in cols])
    fmt = ["%d"] * (spec.per == "step") + ["%.17g"] * (len(names) - (spec.per == "step"))
    fmt += ["%d" if values.dtype.kind in "iub" else "%.17g"] * values.shape[1]
    table = np.column_stack([*time_cols, values]) if time_cols else values
    if table.shape[0]:
        np.savetxt(buf, table, fmt=fmt, delimiter=",")
    return buf.getvalue()


def _cell(text: str) -> str:
    """A header cell that a spreadsheet will not take for a formula: one starting with = + - @
    (or a tab or carriage return) gets a leading quote (names come from model files)."""
    return "'" + text if text[:1] in FORMULA_START else text
