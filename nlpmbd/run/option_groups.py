"""The groups of the simulation options (run/options.py): typed, frozen, with enums.

SimulationOptions holds five groups: `time` (the time grid and who chooses h), `scheme` (how a
step is written), `path` (how it is solved), `tolerances` (when a step counts as solved, and
the numerical knobs behind it) and `output` (what does not change the results). Every field
carries its own documentation, unit and range in its metadata (`option`), from which the
validation, the command-line flags (apps/cli_options.py), study RunSpecs and benchmark modes
are derived. Options can be given flat, `SimulationOptions(t_end=2, solver="qp", h_min=1e-3,
h_max=1e-3)`, or by group, `SimulationOptions(time=TimeGrid(t_end=2))`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..errors import InputError
from ..step.config import (
    Formulation,
    GapCorrection,
    GapLinearization,
    Integrator,
    QPPlugin,
    SolverPath,
)
from ..step.ipopt_options import check_ipopt_options
from ..validation import finite_scalar, short_repr


class StepControl(enum.StrEnum):
    """Who chooses h when h_min < h_max: the per-step NLP (the paper; not error control), or
    nlpmbd's controller (run/controller.py), which solves each step at a fixed h."""

    NLP = "nlp"
    CONTROLLER = "controller"


class Codegen(enum.StrEnum):
    """Compile the QP chunks to C (when a C compiler is found): AUTO loads a cached library or
    compiles in the background when the run is long enough for it to pay (run/background.py),
    ON before the first step, OFF never."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


def option(
    doc: str,
    default: Any,
    *,
    unit: str = "",
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    flag: bool = True,
) -> Any:
    """A dataclass field with its documentation, unit and range; `flag` False keeps it off the
    command line (the flag of the others is the option's own name: --integrator)."""
    meta = {"doc": doc, "unit": unit, "low": low, "high": high, "low_open": low_open, "flag": flag}
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata=meta)
    return field(default=default, metadata=meta)


def _check_field(f: dataclasses.Field, value: Any) -> Any:
    """`value` converted to the field's type and checked against its range (InputError)."""
    kind, m = field_type(f), f.metadata
    name = f.name
    if issubclass(kind, enum.Enum):
        try:
            return kind(value)
        except (ValueError, TypeError):
            allowed = ", ".join(str(e.value) for e in kind)
            raise InputError(f"{name} must be one of {allowed}, got {short_repr(value)}") from None
    if kind is bool:
        if not isinstance(value, bool):
            raise InputError(f"{name} must be true or false, got {short_repr(value)}")
        return value
    if kind is dict:
        return value  # checked by its group (Tolerances.ipopt: step/ipopt_options.py)
    if kind is int:
        low, high = m.get("low"), m.get("high")
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or (low is not None and value < low)
            or (high is not None and value > high)
        ):
            raise InputError(f"{name} must be an integer in {_range(f)}, got {short_repr(value)}")
        return value
    return finite_scalar(
        name, value, low=m.get("low"), high=m.get("high"), low_open=bool(m.get("low_open"))
    )


_TYPES: dict[str, type] = {
    "float": float,
    "int": int,
    "bool": bool,
    "dict[str, Any]": dict,
    "StepControl": StepControl,
    "Codegen": Codegen,
    "Formulation": Formulation,
    "GapCorrection": GapCorrection,
    "GapLinearization": GapLinearization,
    "SolverPath": SolverPath,
    "Integrator": Integrator,
    "QPPlugin": QPPlugin,
}


def field_type(f: dataclasses.Field) -> type:
    """The type of an option field (annotations are strings here: `from __future__`)."""
    return f.type if isinstance(f.type, type) else _TYPES[str(f.type)]


def _range(f: dataclasses.Field) -> str:
    m = f.metadata
    low, high = m.get("low"), m.get("high")
    left = "(" if (low is None or m.get("low_open")) else "["
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf)" if high is None else f"{high:g}]"
    return f"{left}{lo}, {hi}"


class _Group:
    """Base of the option groups: validates every field from its metadata on construction."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            object.__setattr__(self, f.name, _check_field(f, getattr(self, f.name)))

    def as_dict(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, enum.Enum) else value
        return out


@dataclass(frozen=True)
class TimeGrid(_Group):
    t_end: float = option("simulated time", 1.0, unit="s", low=0.0, low_open=True)
    h_min: float = option("lower bound of the step size", 1e-3, unit="s", low=0.0, low_open=True)
    h_max: float = option("upper bound of the step size", 1e-3, unit="s", low=0.0, low_open=True)
    step_control: StepControl = option(
        "who chooses h when h_min < h_max: controller (error control, default) or nlp (the "
        "step's NLP, the paper)",
        StepControl.CONTROLLER,
    )
    error_tol: float = option(
        "position error the controller aims at: over the run (integrator verlet), per step (euler)",
        1e-5,
        unit="m",
        low=0.0,
        low_open=True,
        high=1.0,
    )


@dataclass(frozen=True)
class Scheme(_Group):
    formulation: Formulation = option(
        "implicit (K^T M^-1 K, default) or mpcc (the paper's explicit multipliers)",
        Formulation.IMPLICIT,
    )
    gap_correction: GapCorrection = option(
        "removal of the O(h^2) penetration: auto (curvature; with restitution "
        "curvature+projection), curvature, curvature+projection, projection, none",
        GapCorrection.AUTO,
    )
    gap_linearization: GapLinearization = option(
        "radial gaps linearised as vector (|d + h D v| <= c, default) or scalar",
        GapLinearization.VECTOR,
    )
    integrator: Integrator = option(
        "time-stepping scheme: auto (verlet, or euler with flexible bodies), euler (first "
        "order) or verlet (second order, two solves per step)",
        Integrator.AUTO,
    )
    renormalize: bool = option("scale Euler parameters to unit length after each update", True)
    h_preference: float = option(
        "weight of a tiny reward for larger h in the NLP objective", 1e-6, low=0.0
    )
    sigma: float = option(
        "Scholtes relaxation of complementarity (mpcc only)",
        1e-10,
        unit="N m",
        low=0.0,
        low_open=True,
        high=1.0,
    )


@dataclass(frozen=True)
class Path(_Group):
    solver: SolverPath = option(
        "auto (qp wherever its steps are the nlp's, else nlp), nlp (IPOPT per step, h a "
        "variable) or qp (the step's QP at fixed h in compiled chunks, IPOPT for the steps "
        "they fail)",
        SolverPath.AUTO,
    )
    qp_solver: QPPlugin = option("CasADi plugin of the step QP (auto: daqp)", QPPlugin.AUTO)
    codegen: Codegen = option("compile the QP fast path to C: auto, on or off", Codegen.AUTO)
    predictor: bool = option("NLP path: try the step's QP first, IPOPT only if needed", True)
    # 512 against 128: 2-20 % less loop time a step on pendulum, slider_crank, bouncing_ball,
    # four_bar, stick_slip, revolute, the 8-link chain (Python between chunks), none slower;
    # a chunk stops computing at a step it cannot take, so a long one loses nothing
    chunk_steps: int = option("QP fast path: steps per evaluation of the chunk", 512, low=1)


@dataclass(frozen=True)
class Tolerances(_Group):
    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "ipopt", check_ipopt_options(self.ipopt))

    tol: float = option("IPOPT tolerance of every step", 1e-10, low=1e-14, high=1e-4)
    max_retries: int = option(
        "retries of a failed step (cold, smaller h, no T2; second order: then first order)",
        3,
        low=0,
        high=3,
    )
    ipopt: dict[str, Any] = option("extra IPOPT options", {}, flag=False)
    verify_constraints: float = option(
        "largest constraint violation of a solved step", 1e-9, unit="m", low=0.0, low_open=True
    )
    verify_eom: float = option(
        "largest EoM residual of a solved step, relative to the forces", 1e-8, low=0.0
    )
    verify_complementarity: float = option(
        "largest |lambda Phi| of a solved step", 1e-8, unit="N m", low=0.0, low_open=True
    )
    curvature_guard: float = option(
        "penetration (fraction of c) above which a step is solved again without T2", 0.1, low=0.0
    )
    controller_penetration: float = option(
        "penetration (fraction of c) above which the controller halves h", 0.1, low=0.0
    )
    friction_tol: float = option(
        "relative change of mu lambda that ends the friction fixed point", 1e-9, low=0.0
    )
    friction_iterations: int = option("most solves of the friction fixed point", 50, low=1)
    stick_speed: float = option(
        "slip speed below which the static coefficient applies", 1e-4, unit="m/s", low=0.0
    )
    stick_creep: float = option(
        "smoothing speed of the friction cone", 1e-7, unit="m/s", low=0.0, low_open=True
    )


@dataclass(frozen=True)
class Output(_Group):
    """Settings that do not change the results (not compared when a run is resumed)."""

    checkpoint_every: float = option(
        "wall time between checkpoints of the partial result",
        60.0,
        unit="s",
        low=0.0,
        low_open=True,
    )


#: The groups of SimulationOptions, by attribute name.
GROUPS: dict[str, type[_Group]] = {
    "time": TimeGrid,
    "scheme": Scheme,
    "path": Path,
    "tolerances": Tolerances,
    "output": Output,
}


def check_options(flat: Mapping[str, Any]) -> dict[str, Any]:
    """Options by their own names, each converted and checked against its own type and range
    (InputError), their combinations not (SimulationOptions does that)."""
    table = flat_fields()
    out = {}
    for key, value in flat.items():
        if key not in table:
            raise InputError(f"unknown option {short_repr(key)}")
        out[key] = _check_field(table[key][1], value)
    return out


def flat_fields() -> dict[str, tuple[str, dataclasses.Field]]:
    """Every option by its own name: (group, field)."""
    return {f.name: (g, f) for g, cls in GROUPS.items() for f in fields(cls)}  # type: ignore[arg-type]
