"""nlpmbd: spatial rigid multibody dynamics with clearance joints, one NLP per time step.

Declare a System of RigidBody objects, joints and loads, then `simulate(system, options)`.
"""

from .errors import InputError, SolverFailure
from .io.result import SimulationResult
from .model.bodies import GROUND, RigidBody
from .model.case import Case, Parameter
from .model.forces import Force, Torque
from .model.joint import Joint
from .model.pose import BodyState, Pose, Poses
from .model.system import System
from .run.options import SimulationOptions
from .run.simulate import simulate
from .step.config import Formulation

__version__ = "0.1.0"

__all__ = [
    "GROUND",
    "BodyState",
    "Case",
    "Force",
    "Formulation",
    "InputError",
    "Joint",
    "Parameter",
    "Pose",
    "Poses",
    "RigidBody",
    "SimulationOptions",
    "SimulationResult",
    "SolverFailure",
    "System",
    "Torque",
    "simulate",
]
