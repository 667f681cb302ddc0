"""Command line: `nlpmbd list`, `nlpmbd run CASE ...`, `nlpmbd plot DIR`.

Exit codes: 0 success, 2 bad input (one-line message), 3 solver failure, 130 interrupted
(Ctrl-C or SIGTERM); in the last two cases the partial result is written first, with
"completed": false in meta.json (`run CASE --resume DIR` continues an interrupted run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NoReturn

from ..errors import InputError, SolverFailure

EXIT_OK, EXIT_INPUT, EXIT_SOLVER, EXIT_INTERRUPTED = 0, 2, 3, 130


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="nlpmbd", description="Multibody dynamics with clearance joints, one NLP per step."
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="list cases with their parameters and defaults")
    run = sub.add_parser("run", help="simulate a case and write results and figures")
    run.add_argument("case")
    run.add_argument("--t-end", type=float, help="simulated time, s (default: the case's)")
    run.add_argument("--h", type=float, help="fixed step size, s (sets h_min = h_max)")
    run.add_argument("--h-min", type=float, help="lower bound of the step size, s")
    run.add_argument("--h-max", type=float, help="upper bound of the step size, s")
    run.add_argument("--formulation", help="implicit (default) or mpcc")
    run.add_argument(
        "--gap-correction",
        help="curvature+projection (default), projection, curvature or none",
    )
    run.add_argument(
        "--solver",
        help="nlp (default: IPOPT, h a variable) or qp (fixed-h QP fast path; needs --h)",
    )
    run.add_argument("--qp-solver", help="QP plugin: qrqp (default), qpoases or osqp")
    run.add_argument("--codegen", help="compile the QP fast path to C: auto (default), on or off")
    run.add_argument(
        "--no-predictor",
        action="store_true",
        help="NLP path: always run IPOPT (no QP predictor)",
    )
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="case parameter (repeatable); see `nlpmbd list`",
    )
    run.add_argument(
        "--ipopt",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra IPOPT option (repeatable), e.g. max_iter=50",
    )
    run.add_argument("--out", help="output directory (default: results/CASE)")
    run.add_argument(
        "--checkpoint-every",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="write the partial result to the output directory this often (wall time, s)",
    )
    run.add_argument(
        "--resume",
        metavar="DIR",
        help="continue the interrupted run saved in DIR (its case, parameters and options)",
    )
    run.add_argument("--no-plot", action="store_true", help="write no figures")
    run.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    study = sub.add_parser("study", help="run a family of simulations, write tables and figures")
    study.add_argument("name")
    study.add_argument("--out", help="output directory (default: results/study-NAME)")
    where = study.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="local processes (default: all cores)")
    where.add_argument("--cluster", metavar="ADDRESS", help="Dask scheduler, tcp://host:port")
    study.add_argument("--t-end", type=float, help="simulated time of every run, s")
    study.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="study parameter (repeatable); see `nlpmbd list`",
    )
    study.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    bench = sub.add_parser("bench", help="time every case and solver mode (see benchmarks/)")
    from . import bench as bench_module

    bench_module.add_arguments(bench)
    plot = sub.add_parser("plot", help="draw the figures of a saved result again")
    plot.add_argument("dir")
    for sub_parser in (run, plot):
        sub_parser.add_argument(
            "--overlay", metavar="DIR", help="a saved result drawn dashed in the figures"
        )
    return p


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"{what} expects KEY=VALUE, got {item!r}")
        if key.strip() in out:
            raise InputError(f"{what} {key.strip()} is given twice")
        out[key.strip()] = value.strip()
    return out


def _ipopt_value(text: str) -> int | float | str:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _print_parameters(parameters) -> None:
    for prm in parameters:
        unit = f" {prm.unit}" if prm.unit else ""
        print(
            f"    {prm.name} = {prm.default!r}{unit}  ({prm.description}; {prm.describe_range()})"
        )


def _cmd_list() -> int:
    from .registry import load_cases
    from .studies import STUDIES

    print("cases (nlpmbd run CASE):")
    for case in load_cases().values():
        print(f"  {case.name}: {case.description}")
        print(f"    defaults: t_end={case.t_end:g} s, h in [{case.h_min:g}, {case.h_max:g}] s")
        _print_parameters(case.parameters)
    print("studies (nlpmbd study NAME):")
    for study in STUDIES.values():
        print(f"  {study.name}: {study.description}")
        _print_parameters(study.parameters)
    return EXIT_OK


def _options(args, case):
    from ..run.options import SimulationOptions
    from ..validation import finite_scalar

    if args.h is not None and (args.h_min is not None or args.h_max is not None):
        raise InputError("--h cannot be combined with --h-min/--h-max")
    if args.h is not None:
        h_min = h_max = finite_scalar("--h", args.h, low=0.0, low_open=True)
    else:
        h_min = args.h_min if args.h_min is not None else case.h_min
        h_max = args.h_max if args.h_max is not None else max(case.h_max, h_min)
    kw = {
        "t_end": args.t_end if args.t_end is not None else case.t_end,
        "h_min": h_min,
        "h_max": h_max,
        "ipopt": {k: _ipopt_value(v) for k, v in _pairs(args.ipopt, "--ipopt").items()},
    }
    if args.formulation is not None:
        kw["formulation"] = args.formulation
    if args.gap_correction is not None:
        kw["gap_correction"] = args.gap_correction
    for name in ("solver", "qp_solver", "codegen"):
        if getattr(args, name) is not None:
            kw[name] = getattr(args, name)
    if args.no_predictor:
        kw["predictor"] = False
    return SimulationOptions(**kw)


def _summary(result, out: Path) -> None:
    s = result.summary()
    wall = result.meta.get("wall_time", float("nan"))
    print(
        f"{result.meta.get('case', 'run')}: {s['steps']} steps to t = {s['t_end']:.6g} s in "
        f"{wall:.2f} s wall, median {s['median_step_ms']:.3f} ms/step, "
        f"{s['mean_iterations']:.2f} {result.iteration_unit}/step"
    )
    print(
        f"  max residuals: EoM {s['max_eom_residual']:.2e}, ideal constraints "
        f"{s['max_eq_residual']:.2e}, |p'p-1| {s['max_norm_residual']:.2e}, complementarity "
        f"{s['max_comp_residual']:.2e}"
    )
    print(
        f"  max penetration {s['max_penetration']:.3e} m "
        f"({100 * s['max_penetration_fraction']:.3g}% of the clearance; before correction "
        f"{s['max_penetration_uncorrected']:.3e} m), energy change "
        f"{s['energy_change']:+.4e} J, retried steps {s['retried_steps']}"
    )
    if result.compliant_gap.shape[1]:
        print(
            f"  compliant contacts: max penetration {s['max_compliant_penetration']:.3e} m "
            "(their force law's deformation, not an error)"
        )
    print(f"  results in {out}")


def _overlay(path: str | None):
    """(result, label) of --overlay DIR, or (None, "")."""
    if path is None:
        return None, ""
    from ..io.result import SimulationResult

    other = SimulationResult.load(path)
    params = other.meta.get("parameters", {})
    label = str(params.get("joint", other.meta.get("case", Path(path).name)))
    return other, label


def _write(result, out: Path, plot: bool, overlay=(None, "")) -> None:
    result.save(out)
    if plot:
        from ..plots.figures import plot_result

        plot_result(result, out, overlay=overlay[0], overlay_label=overlay[1])


#: `run` flags that define the run, so cannot be given with --resume (taken from meta.json).
_RUN_DEFINING = (
    "t_end",
    "h",
    "h_min",
    "h_max",
    "formulation",
    "gap_correction",
    "solver",
    "qp_solver",
    "codegen",
)


def _resumed(args):
    """(case, system, params, options, checkpoint result) of `run CASE --resume DIR`."""
    from ..io.result import SimulationResult
    from ..run.options import SimulationOptions
    from .registry import get_case

    given = [f"--{k.replace('_', '-')}" for k in _RUN_DEFINING if getattr(args, k) is not None]
    given += ["--set"] * bool(args.set) + ["--ipopt"] * bool(args.ipopt)
    given += ["--no-predictor"] * args.no_predictor + ["--out"] * (args.out is not None)
    if given:
        raise InputError(
            f"--resume takes the run's settings from DIR/meta.json; drop {', '.join(given)}"
        )
    partial = SimulationResult.load(args.resume)
    if partial.meta.get("case") != args.case:
        raise InputError(
            f"--resume: {args.resume} holds a run of case {partial.meta.get('case')!r}, "
            f"not {args.case!r}"
        )
    case = get_case(args.case)
    system, params = case.build(partial.meta.get("parameters", {}))
    options = SimulationOptions.from_dict(partial.meta.get("options", {}))
    return case, system, params, options, partial


def _cmd_run(args) -> int:
    import signal

    from ..run.simulate import simulate
    from .registry import get_case

    if args.checkpoint_every <= 0 or args.checkpoint_every != args.checkpoint_every:
        raise InputError(f"--checkpoint-every must be > 0 s, got {args.checkpoint_every}")
    partial = None
    if args.resume is not None:
        case, system, params, options, partial = _resumed(args)
        out = Path(args.resume)
    else:
        case = get_case(args.case)
        system, params = case.build(_pairs(args.set, "--set"))
        options = _options(args, case)
        out = Path(args.out) if args.out else Path("results") / case.name
    overlay = _overlay(args.overlay)  # read before the run: a bad path fails fast
    meta = {"case": case.name, "parameters": params, "command": " ".join(sys.argv)}

    # `kill PID` or Ctrl-C: finish the current step, then stop and write what was computed
    # (raising from the handler could land inside CasADi or between two history rows); a second
    # signal aborts at once
    stopped: list[int] = []

    def request_stop(signum, frame):
        if stopped:
            raise KeyboardInterrupt
        stopped.append(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, request_stop)
    try:
        result = simulate(
            system,
            options,
            progress=not args.quiet,
            meta=meta,
            checkpoint=lambda r: r.save(out),
            checkpoint_every=args.checkpoint_every,
            resume=partial,
            stop=lambda: bool(stopped),
        )
    except SolverFailure as err:
        if err.partial is not None:
            _write(err.partial, out, not args.no_plot, overlay)
        if err.partial is not None and err.partial.meta.get("message") == "interrupted":
            print(
                f"nlpmbd: interrupted at t = {err.partial.t[-1]:.6g} s; partial results in "
                f"{out}; continue with: nlpmbd run {case.name} --resume {out}",
                file=sys.stderr,
            )
            return EXIT_INTERRUPTED
        print(f"nlpmbd: solver failure: {err}; partial results in {out}", file=sys.stderr)
        return EXIT_SOLVER
    _write(result, out, not args.no_plot, overlay)
    if not args.quiet:
        _summary(result, out)
    return EXIT_OK


def _cmd_study(args) -> int:
    from .studies import get_study, run_study

    study = get_study(args.name)
    overrides = _pairs(args.set, "--set")
    if args.t_end is not None:
        overrides["t_end"] = repr(args.t_end)
    out = Path(args.out) if args.out else Path("results") / f"study-{study.name}"
    report = run_study(
        study, overrides, out, workers=args.workers, cluster=args.cluster, progress=not args.quiet
    )
    if not args.quiet:
        print((out / "table.md").read_text(), end="")
        print(
            f"{study.name}: {len(report.outcomes)} runs "
            f"({sum(o.status == 'reused' for o in report.outcomes)} reused, "
            f"{sum(not o.succeeded for o in report.outcomes)} failed); tables and figures in {out}"
        )
    return EXIT_OK if all(o.succeeded for o in report.outcomes) else EXIT_SOLVER


def _cmd_plot(args) -> int:
    from ..io.result import SimulationResult
    from ..plots.figures import plot_result

    result = SimulationResult.load(args.dir)
    other, label = _overlay(args.overlay)
    paths = plot_result(result, args.dir, overlay=other, overlay_label=label)
    print(f"wrote {len(paths)} figures to {args.dir}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    tic = time.perf_counter()
    try:
        args = _parser().parse_args(argv)
        if args.command == "list":
            return _cmd_list()
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "study":
            return _cmd_study(args)
        if args.command == "bench":
            from . import bench

            return bench.run(args)
        return _cmd_plot(args)
    except InputError as err:
        print(f"nlpmbd: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # e.g. `nlpmbd list | head`: the reader left, nothing is wrong
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print(f"nlpmbd: interrupted after {time.perf_counter() - tic:.1f} s", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
