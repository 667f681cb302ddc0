"""The FMI 2.0 co-simulation slave of an FMU made by `nlpmbd fmu` (pythonfmu's Fmi2Slave).

pythonfmu copies this file into the FMU and imports it alone, from the FMU's resources, where
the model's description (apps/fmu_session.py: SPEC_FILE) lies beside it: its imports are
absolute. Everything but the FMI calls lives in apps/fmu_session.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pythonfmu import (
    Boolean,
    DefaultExperiment,
    Fmi2Causality,
    Fmi2Slave,
    Fmi2Variability,
    Integer,
    Real,
    String,
)
from pythonfmu.enums import Fmi2Status

from nlpmbd.apps.fmu_session import CoSimulation, FmuSpec
from nlpmbd.errors import InputError, SolverFailure

#: FMI variable type and Python type of each parameter kind (model/case.py: Parameter.kind).
KINDS: dict[str, tuple[Any, type]] = {
    "float": (Real, float),
    "int": (Integer, int),
    "bool": (Boolean, bool),
    "str": (String, str),
}


class NlpmbdSlave(Fmi2Slave):
    """Parameters (the case's), inputs (LOAD.value_x|y|z), outputs (BODY.x, JOINT.force_x...)."""

    author = "nlpmbd"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.folder = Path(self.resources)
        spec = self.spec = FmuSpec.read(self.folder)
        self.description = spec.description
        # the model identifier (the FMU's library is named by it): a C identifier
        self.modelName = re.sub(r"\W", "_", f"nlpmbd_{spec.name}")
        self.default_experiment = DefaultExperiment(0.0, spec.t_end, spec.step)
        self.values = {p["name"]: p["start"] for p in spec.parameters}
        self.inputs = list(spec.input_start)
        self.sim: CoSimulation | None = None
        self.start_time, self.stop_time = 0.0, spec.t_end
        fixed = {"causality": Fmi2Causality.parameter, "variability": Fmi2Variability.fixed}
        for p in spec.parameters:
            variable, kind = KINDS[p["kind"]]
            self.register_variable(
                variable(
                    p["name"],
                    description=p["description"],
                    getter=lambda n=p["name"]: self.values[n],
                    setter=lambda value, n=p["name"], k=kind: self.values.__setitem__(n, k(value)),
                    **fixed,
                ),
                nested=False,
            )
        for i, name in enumerate(spec.inputs):
            self.register_variable(
                Real(
                    name,
                    causality=Fmi2Causality.input,
                    variability=Fmi2Variability.continuous,
                    getter=lambda i=i: self.inputs[i],
                    setter=lambda value, i=i: self._set_input(i, value),
                ),
                nested=False,
            )
        for name in spec.outputs:
            self.register_variable(
                Real(
                    name,
                    causality=Fmi2Causality.output,
                    variability=Fmi2Variability.continuous,
                    getter=lambda n=name: self.sim.output(n) if self.sim else 0.0,
                ),
                nested=False,
            )

    def _set_input(self, i: int, value: float) -> None:
        self.inputs[i] = float(value)
        if self.sim is not None:
            self.sim.set_input(i, float(value))

    def setup_experiment(self, start_time: float, stop_time: Any, tolerance: Any) -> None:
        self.start_time = float(start_time)
        if stop_time is not None:
            self.stop_time = float(stop_time) - self.start_time

    def exit_initialization_mode(self) -> None:
        defaults = {p["name"]: p["default"] for p in self.spec.parameters}
        changed = {k: v for k, v in self.values.items() if v != defaults[k]}
        self.sim = CoSimulation(self.spec, self.folder, changed, self.stop_time)
        for i, value in enumerate(self.inputs):
            self.sim.set_input(i, value)

    def terminate(self) -> None:
        if self.sim is not None:
            self.sim.close()

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self.sim is None:
            return False
        try:
            self.sim.advance(current_time + step_size - self.start_time)
        except (InputError, SolverFailure) as err:
            self.log(f"nlpmbd: {err}", Fmi2Status.error)
            return False
        return True
