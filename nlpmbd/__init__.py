"""nlpmbd: spatial rigid multibody dynamics with clearance joints, one NLP per time step.

Declare a System of RigidBody objects, joints and loads, then `simulate(system, options)`.
The names below are imported on first use (PEP 562), so `import nlpmbd` is cheap and loads no
numerical package until one is needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

#: Public name -> module that defines it.
_EXPORTS = {
    "GROUND": "model.bodies",
    "RigidBody": "model.bodies",
    "Case": "model.case",
    "Parameter": "model.case",
    "HardContact": "model.contact",
    "ForceLaw": "model.contact",
    "CompliantContact": "model.compliant",
    "InputError": "errors",
    "SolverFailure": "errors",
    "Force": "model.forces",
    "Torque": "model.forces",
    "SpringDamper": "model.springs",
    "RotationalSpringDamper": "model.springs",
    "Joint": "model.joint",
    "IdealJoint": "model.joint",
    "ContactJoint": "model.joint",
    "SimulationOptions": "run.options",
    "Formulation": "step.config",
    "GapCorrection": "step.config",
    "BodyState": "model.pose",
    "Pose": "model.pose",
    "Poses": "model.pose",
    "SimulationResult": "io.result",
    "simulate": "run.simulate",
    "animate": "apps.notebook",
    "System": "model.system",
}
__all__ = [
    "BodyState",
    "Case",
    "CompliantContact",
    "ContactJoint",
    "Force",
    "ForceLaw",
    "Formulation",
    "GROUND",
    "GapCorrection",
    "HardContact",
    "IdealJoint",
    "InputError",
    "Joint",
    "Parameter",
    "Pose",
    "Poses",
    "RigidBody",
    "RotationalSpringDamper",
    "SimulationOptions",
    "SimulationResult",
    "SolverFailure",
    "SpringDamper",
    "System",
    "Torque",
    "animate",
    "simulate",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nlpmbd' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


if TYPE_CHECKING:
    from .apps.notebook import animate
    from .errors import InputError, SolverFailure
    from .io.result import SimulationResult
    from .model.bodies import GROUND, RigidBody
    from .model.case import Case, Parameter
    from .model.compliant import CompliantContact
    from .model.contact import ForceLaw, HardContact
    from .model.forces import Force, Torque
    from .model.joint import ContactJoint, IdealJoint, Joint
    from .model.pose import BodyState, Pose, Poses
    from .model.springs import RotationalSpringDamper, SpringDamper
    from .model.system import System
    from .run.options import SimulationOptions
    from .run.simulate import simulate
    from .step.config import Formulation, GapCorrection
