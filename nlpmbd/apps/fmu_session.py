"""The simulation inside an FMU made by `nlpmbd fmu`: one run, built when the FMU leaves its
initialisation, advanced by the run's own steps (Stepper.one_step, the step size of the options)
to each communication point, its state kept from one doStep to the next. Inputs (the model's
constant forces and torques) enter each step as an applied generalised force, evaluated at the
step's start like the model's own loads."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..model.symbolic import SymbolicModel
from ..run.chunk_graph import PARAMETERS
from ..run.contact_memory import CompliantContacts
from ..run.options import SimulationOptions
from ..run.run import Run
from ..run.state import RunState
from ..validation import short_repr
from .cli_resume import load_case
from .fmu_signals import input_force, input_loads, input_start, output_catalog

#: The FMU's description of its model, in its resources folder.
SPEC_FILE = "nlpmbd_fmu.json"


@dataclass(frozen=True)
class FmuSpec:
    """What `nlpmbd fmu` decided: the model (a case name, or a model file in the resources),
    the options as `nlpmbd run` sets them, parameter values, outputs, default experiment."""

    model: str
    name: str
    description: str
    options: dict[str, Any]
    parameters: list[dict[str, Any]]  # name, kind, start, default, description
    outputs: list[str]
    inputs: list[str]
    input_start: list[float]
    t_end: float
    step: float
    model_file: bool = False

    def write(self, folder: Path) -> Path:
        path = folder / SPEC_FILE
        path.write_text(json.dumps(asdict(self), indent=1))
        return path

    @classmethod
    def read(cls, folder: Path) -> FmuSpec:
        return cls(**json.loads((folder / SPEC_FILE).read_text()))


class _Inputs(CompliantContacts):
    """The compliant contacts' memory, with the inputs' generalised force added to the force
    each step holds constant (StepInputs.applied); unchanged inputs add nothing at all."""

    def __init__(self, model: SymbolicModel, force: Any, start: np.ndarray) -> None:
        super().__init__(model)
        self.force, self.start_values, self.values = force, start, start.copy()
        self.state: RunState | None = None

    @property
    def changed(self) -> bool:
        return bool(np.any(self.values != self.start_values))

    def applied(self) -> np.ndarray | None:
        base = super().applied()
        if self.state is None or not self.changed:
            return base
        extra = np.asarray(self.force(self.state.q, self.values - self.start_values)).ravel()
        return extra if base is None else base + extra


class CoSimulation:
    """One run of the spec's model with `parameters` (changed values only) to `stop` (s)."""

    def __init__(self, spec: FmuSpec, folder: Path, parameters: dict[str, Any], stop: float):
        model = str(folder / spec.model) if spec.model_file else spec.model
        case, _, _ = load_case(model)
        system, _ = case.build(parameters)
        options = SimulationOptions.with_defaults(
            {**spec.options, "t_end": stop}, system.option_defaults
        )
        self.options = options
        self.run = run = Run(system, options, {"case": case.name}, False)
        loads = input_loads(system)
        self.inputs = _Inputs(run.model, input_force(system, loads), input_start(loads))
        run.stepper.contact_memory = self.inputs
        self.state = run.start(None)
        run.prepare(self.state)  # the QP path's chunks
        self.inputs.state = self.state
        self.catalog = output_catalog(system)
        # the NLP of a system without compliant contacts takes no applied force
        self.applies_inputs = run.qp is not None or run.model.n_compliant > 0
        self.forces = run.history.latest("joint_force")

    def advance(self, target: float) -> None:
        """The run's steps to time `target` (see `_grid`)."""
        run, state = self.run, self.state
        if self.inputs.changed and not self.applies_inputs:
            raise InputError("fmu: inputs act on the QP path only; build the FMU with --solver qp")
        grid = run.stepper.options = self._grid(target)
        # chunks take no inputs; off the grid their steps would land on t_end, not on target
        chunks = run.stepper.runner is not None and grid is self.options and not self.inputs.changed
        before = run.counters(state).get("qp_fallback_steps", 0)
        while state.t < target - run.end_tolerance:
            if chunks:
                self._chunk(target)
            else:
                run.stepper.one_step(state)
        if self.inputs.changed and run.counters(state).get("qp_fallback_steps", 0) > before:
            raise InputError(
                f"fmu: a step before t = {state.t:.6g} s fell back to the NLP, which takes no "
                "input forces; a smaller step (--h) keeps it on the QP path"
            )
        self.forces = run.history.latest("joint_force")

    def _chunk(self, target: float) -> None:
        """A chunk of the run's QP steps, no more of them than are left to `target` (the
        chunk's column limit, put back afterwards)."""
        stepper, columns = self.run.stepper, PARAMETERS["columns"]
        assert stepper.parameters is not None and stepper.runner is not None
        stepper.runner.chain = False  # chained chunks would step past `target`
        limit = stepper.parameters[0, columns].item()
        cap = min(limit, max(1, round((target - self.state.t) / self.options.time.h_max)))
        stepper.parameters[:, columns] = cap
        stepper.chunk(self.state)
        stepper.parameters[:, columns] = limit

    def _grid(self, target: float) -> SimulationOptions:
        """The options the steps to `target` take: the run's own (its steps to t_end, those of
        `nlpmbd run`) where `target` is a point of its fixed-step grid, else the last step
        lands on `target` (run/grid.py)."""
        o, t = self.options, self.state.t
        h = o.time.h_max
        n = round((target - t) / h)
        # t is a sum of steps (the run's): n steps reach `target` within the loop's tolerance
        if o.fixed_step and n >= 1 and abs(t + n * h - target) < self.run.end_tolerance:
            return o
        if target >= h:
            return o.replace(t_end=target)
        return o.replace(t_end=target, h_max=target, h_min=min(o.time.h_min, target))

    def close(self) -> None:
        """End the chunks' background compilation, if any."""
        if self.run.stepper.runner is not None:
            self.run.stepper.runner.close()

    def set_input(self, index: int, value: float) -> None:
        self.inputs.values[index] = value

    def output(self, name: str) -> float:
        if name not in self.catalog:
            raise InputError(f"fmu: no output {short_repr(name)} in this model")
        array, row, component = self.catalog[name]
        if array == "joint_force":
            return float(self.forces[row, component])
        return float(getattr(self.state, array)[row])
