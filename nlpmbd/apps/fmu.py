"""`nlpmbd fmu CASE|FILE.toml -o model.fmu`: the model as an FMI 2.0 co-simulation FMU
(pythonfmu, the `fmu` extra). Its parameters are the case's, its inputs the model's constant
forces and torques (LOAD.value_x|y|z), its outputs chosen body states and joint forces; its
doStep runs nlpmbd's own steps (apps/fmu_session.py). The FMU runs in a Python environment with
nlpmbd installed."""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..io.atomic import atomic_write
from ..io.outdir import check_file_target, write_failure
from ..validation import finite_scalar, short_repr
from .cli_parser import pairs
from .exit_codes import EXIT_OK

#: The model file's name inside the FMU's resources.
MODEL_FILE = "model.toml"


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("pythonfmu") is None:
        raise InputError("fmu: needs pythonfmu: pip install 'nlpmbd[fmu]'")
    out = Path(args.out)
    if out.suffix != ".fmu":
        raise InputError(f"fmu: --out must end in .fmu, got {short_repr(str(out))}")
    check_file_target(out, "--out")
    spec, source = _spec(args)
    with tempfile.TemporaryDirectory(prefix="nlpmbd_fmu_") as tmp:
        folder = Path(tmp)
        files = [spec.write(folder)]
        if spec.model_file:
            files.append(Path(shutil.copyfile(source, folder / MODEL_FILE)))
        data = _build(folder, files)
    try:
        atomic_write(out, lambda stream: stream.write(data))
    except OSError as err:
        raise write_failure(err, "fmu", out, "nothing was written") from None
    print(
        f"wrote {out} ({len(spec.parameters)} parameters, {len(spec.inputs)} inputs, "
        f"{len(spec.outputs)} outputs); simulate it with: fmpy simulate {out}"
    )
    return EXIT_OK


def _spec(args: argparse.Namespace) -> tuple[Any, str]:
    """The FMU's description of `args.case`, checked by building the system once."""
    from .cli_resume import load_case
    from .cli_run import _options
    from .fmu_session import FmuSpec
    from .fmu_signals import choose_outputs, input_loads, input_names, input_start

    if args.case.endswith((".urdf", ".xml")):
        raise InputError("fmu: a robot file needs `nlpmbd convert` first; give the .toml")
    case, defaults, source = load_case(args.case)
    values = pairs(args.set, "--set")
    system, params = case.build(values)
    options = _options(args, case, defaults, system)
    flat = options.flat()
    t_end, h_max = options.time.t_end, options.time.h_max
    step = min(t_end, 10 * h_max) if args.step is None else args.step
    step = finite_scalar("--step", step, low=0.0, low_open=True, high=t_end)
    loads = input_loads(system)
    kinds = {float: "float", int: "int", bool: "bool", str: "str"}
    return FmuSpec(
        model=MODEL_FILE if source["kind"] == "model file" else case.name,
        name=case.name,
        description=case.description,
        options={k: flat[k] for k in sorted(options.given)},
        parameters=[
            {
                "name": p.name,
                "kind": kinds[p.kind],
                "start": params[p.name],
                "default": p.default,
                "description": f"{p.description} ({p.describe_range()})",
            }
            for p in case.parameters
        ],
        outputs=choose_outputs(system, args.output),
        inputs=input_names(loads),
        input_start=input_start(loads).tolist(),
        t_end=t_end,
        step=step,
        model_file=source["kind"] == "model file",
    ), args.case


def _build(folder: Path, files: list[Path]) -> bytes:
    """The FMU's bytes, built by pythonfmu from the slave module and the resource files."""
    import sys

    from pythonfmu import FmuBuilder

    slave = Path(__file__).with_name("fmu_slave.py")
    script = Path(shutil.copyfile(slave, folder / "nlpmbd_fmu_slave.py"))
    built = folder / "built.fmu"
    try:
        FmuBuilder.build_FMU(script, dest=built, project_files=files)
    finally:  # the builder puts the script's folder on sys.path and leaves it there
        while str(folder) in sys.path:
            sys.path.remove(str(folder))
        sys.modules.pop(script.stem, None)
    return built.read_bytes()
