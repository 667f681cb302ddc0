"""`nlpmbd run CASE`: build the case, simulate it into a checked and locked output directory,
write the result and figures without losing anything (apps/writer.py), print a summary."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import InputError, SolverFailure
from ..io.outdir import OutputLock, prepare_output
from ..io.result import SimulationResult
from ..validation import short_repr
from .cli_parser import given_options, pairs
from .cli_resume import load_case, resumed
from .exit_codes import EXIT_INTERRUPTED, EXIT_OK, EXIT_SOLVER, EXIT_WRITE
from .signals import StopFlag
from .writer import ResultWriter

#: Most warning lines printed in the summary (all are in meta.json).
MAX_WARNINGS = 10
#: The meta counters of steps that reached an iteration cap (io/schema.py), as the summary names
#: their caps.
CAPS = {
    "steps_capped_friction": "friction fixed point's rounds",
    "steps_capped_cuts": "cut rounds",
    "steps_capped_releases": "releases of induced impacts",
    "steps_capped_ipopt": "IPOPT's max_iter (solves)",
}


def _options(args: argparse.Namespace, case: Any, defaults: dict[str, Any], system: Any) -> Any:
    """The flags over a model file's [options] (`defaults`) over the case's option defaults
    for its parameters (System.option_defaults)."""
    from ..run.options import SimulationOptions
    from ..validation import finite_scalar

    kw = given_options(args)
    if args.h is not None and ("h_min" in kw or "h_max" in kw):
        raise InputError("--h cannot be combined with --h-min/--h-max")
    if args.h is not None:
        kw["h_min"] = kw["h_max"] = finite_scalar("--h", args.h, low=0.0, low_open=True)
    else:
        own = system.option_defaults  # the case's step range for these parameters, if any
        kw.setdefault("h_min", own.get("h_min", case.h_min))
        kw.setdefault("h_max", max(own.get("h_max", case.h_max), kw["h_min"]))
    kw.setdefault("t_end", case.t_end)
    kw["ipopt"] = {**defaults.get("ipopt", {}), **pairs(args.ipopt, "--ipopt")}
    for key, value in defaults.items():  # a model file's [options], below the flags
        kw.setdefault(key, value)
    return SimulationOptions.with_defaults(kw, system.option_defaults)


def read_overlay(path: str | None, bodies: list[str], joints: list[str]) -> tuple[Any, str]:
    """(result, label) of --overlay DIR, or (None, ""); InputError when it would draw nothing
    (no body or joint in common with the run)."""
    if path is None:
        return None, ""
    other = SimulationResult.load(path)
    if not set(other.body_names) & set(bodies) and not set(other.meta.get("joints", [])) & set(
        joints
    ):
        raise InputError(
            f"--overlay {short_repr(path)} shares no body or joint with this run (case "
            f"{short_repr(other.meta.get('case'))}): nothing would be drawn"
        )
    params = other.meta.get("parameters", {})
    label = str(params.get("joint", other.meta.get("case", Path(path).name)))
    return other, label


def cmd_run(args: argparse.Namespace) -> int:
    if args.compare and (args.overlay is not None or args.resume is not None):
        raise InputError("--compare cannot be combined with --overlay or --resume")
    partial = None
    if args.resume is not None:
        case, system, params, options, partial, meta = resumed(args)
        out, flag = Path(args.resume), "--resume"
    else:
        case, defaults, source = load_case(args.case)
        meta = {"source": source}
        system, params = case.build(pairs(args.set, "--set"))
        options = _options(args, case, defaults, system)
        for key, value in system.option_defaults.items():
            if key not in options.given:
                print(f"{case.name}: {key} {value} (the case's default for these parameters)")
        out, flag = Path(args.out) if args.out else Path("results") / case.name, "--out"
    names = [b.name for b in system.bodies], [j.name for j in system.joints]
    overlay = read_overlay(args.overlay, *names)  # read before the run: a bad path fails fast
    prepare_output(out, flag)
    if args.compare:
        overlay = _compared(args, case, options, out, meta)
    with OutputLock(out, flag):
        return _simulate_into(args, (case, meta), system, params, options, partial, out, overlay)


def _applicable(case: Any, given: dict[str, str]) -> dict[str, str]:
    """`given` without the parameters that the changed values make inapplicable (e.g. the
    clearance of a run compared with joint=ideal)."""
    by_name = {p.name: p for p in case.parameters}
    defaults = {p.name: p.default for p in case.parameters}

    def value(name: str) -> Any:
        return by_name[name].parse(given[name]) if name in given else defaults.get(name)

    return {
        k: v
        for k, v in given.items()
        if k not in by_name or all(value(o) in ok for o, ok in by_name[k].applies.items())
    }


def _compared(
    args: argparse.Namespace, case: Any, options: Any, out: Path, meta: dict[str, Any]
) -> tuple[Any, str]:
    """`--compare KEY=VALUE`: the case run first with those parameters changed, same options,
    into OUT-VALUE (no figures); its result and label as the overlay of the run proper."""
    changes = pairs(args.compare, "--compare")
    system, params = case.build(_applicable(case, {**pairs(args.set, "--set"), **changes}))
    label = "-".join(str(v) for v in changes.values())
    where = out.with_name(f"{out.name}-{label}")
    prepare_output(where, "--compare")
    quiet = argparse.Namespace(**{**vars(args), "no_plot": True, "quiet": True})
    with OutputLock(where, "--compare"):
        code = _simulate_into(quiet, (case, meta), system, params, options, None, where, (None, ""))
    if code != EXIT_OK:
        raise InputError(f"--compare: the run with {', '.join(args.compare)} failed ({where})")
    if not args.quiet:
        print(f"{case.name} with {', '.join(args.compare)}: results in {where}")
    return SimulationResult.load(where), label


def _simulate_into(
    args: argparse.Namespace,
    model: tuple[Any, dict[str, Any]],
    system: Any,
    params: dict,
    options: Any,
    partial: SimulationResult | None,
    out: Path,
    overlay: tuple[Any, str],
) -> int:
    from ..run.simulate import simulate

    """Run into `out`; `model`: the case and what meta.json records of it (its source, the
    model changes a forced resume let through)."""
    case, recorded = model
    writer = ResultWriter(out)
    meta = {"case": case.name, "parameters": params, "command": " ".join(sys.argv), **recorded}
    meta["warnings"] = list(recorded.get("resume_forced", []))
    stop = StopFlag()

    def checkpoint(result: SimulationResult) -> None:
        if not writer.save(result):
            stop.requested = True  # nothing more can be written: end the run now

    failure: SolverFailure | None = None
    with stop.installed():
        try:
            result = simulate(
                system,
                options,
                progress=not args.quiet,
                meta=meta,
                checkpoint=checkpoint,
                resume=partial,
                stop=stop,
                force=args.force,
            )
        except SolverFailure as err:
            result, failure = err.partial, err
    return _report(args, args.case, result, failure, writer, overlay)


def _report(
    args: argparse.Namespace,
    case: str,
    result: SimulationResult | None,
    failure: SolverFailure | None,
    writer: ResultWriter,
    overlay: tuple[Any, str],
) -> int:
    if writer.error is None and result is not None:
        writer.save(result)
    if writer.error is not None:
        print(f"nlpmbd: {writer.failure(result, case)}", file=sys.stderr)
        return EXIT_WRITE
    if result is not None and not args.no_plot:
        try:
            writer.figures(result, overlay, args.figures)
        except OSError as err:
            print(
                f"nlpmbd: figures could not be written to {writer.out} ({err.strerror or err}); "
                f"the result is saved there",
                file=sys.stderr,
            )
            return EXIT_WRITE
    out = writer.out
    if args.compare and not args.no_plot and failure is None:
        _animate(out, out.with_name(f"{out.name}-{overlay[1]}"))
    if failure is not None and result is not None and result.meta.get("message") == "interrupted":
        print(
            f"nlpmbd: interrupted at t = {result.t[-1]:.6g} s; partial results in {out}; "
            f"continue with: nlpmbd run {case} --resume {out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if failure is not None:
        print(f"nlpmbd: solver failure: {failure}; partial results in {out}", file=sys.stderr)
        return EXIT_SOLVER
    if not args.quiet and result is not None:
        print_summary(result, out)
    return EXIT_OK


def _animate(out: Path, compared: Path) -> None:
    """A --compare run's animation, DIR/animation.html with the compared run as its ghost,
    where the optional viewer package is installed."""
    import importlib.util

    if importlib.util.find_spec("meshcat") is None:
        print("nlpmbd: no animation: pip install 'nlpmbd[animate]'", file=sys.stderr)
        return
    from .cli_animate import run as animate

    bodies = [json.loads((d / "meta.json").read_text()).get("bodies") for d in (out, compared)]
    ghost: str | None = str(compared)
    if bodies[0] != bodies[1]:  # e.g. a flexible slider against a rigid one
        print(f"nlpmbd: animation without the compared run (other bodies: {bodies[1]})")
        ghost = None
    keys = ("out", "magnify", "fps", "speed")
    animate(argparse.Namespace(dir=str(out), overlay=ghost, gif=False, **dict.fromkeys(keys)))


def print_summary(result: SimulationResult, out: Path) -> None:
    s = result.summary()
    wall = result.meta.get("wall_time", float("nan"))
    unit = result.iteration_unit
    cold = s.get("mean_cold_solves")
    of_which = f", of which cold {cold:.2f}" if unit == "QP solves" and cold is not None else ""
    print(
        f"{result.meta.get('case', 'run')}: {s['steps']} steps to t = {s['t_end']:.6g} s in "
        f"{wall:.2f} s wall, median {s['median_step_ms']:.3f} ms/step, "
        f"{s['mean_iterations']:.2f} {unit}/step{of_which}"
    )
    capped = {k: n for k, n in result.counters.items() if k in CAPS and n}
    if capped:
        listed = ", ".join(f"{CAPS[k]} {n}" for k, n in capped.items())
        print(f"  steps that used every round a cap allows: {listed}")
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
    tol = result.meta.get("options", {}).get("time", {}).get("error_tol", float("nan"))
    print(f"  estimated position error {s['error_estimate']:.2e} m (error_tol {tol:.2g} m)")
    if result.compliant_gap.shape[1]:
        print(
            f"  compliant contacts: max penetration {s['max_compliant_penetration']:.3e} m "
            "(their force law's deformation, not an error)"
        )
    warnings = list(result.meta.get("warnings", []))
    for line in warnings[:MAX_WARNINGS]:
        print(f"  warning: {line}")
    if len(warnings) > MAX_WARNINGS:
        print(f"  and {len(warnings) - MAX_WARNINGS} more warnings in meta.json")
    print(f"  results in {out}")
