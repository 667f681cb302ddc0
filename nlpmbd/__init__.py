"""nlpmbd: spatial rigid multibody dynamics with clearance joints, one NLP per time step.

Declare a System of RigidBody objects, joints and loads, then `simulate(system, options)`.
"""

from .model.bodies import GROUND, RigidBody
from .model.case import Case, Parameter
from .errors import InputError, SolverFailure
from .model.forces import Force, Torque
from .model.joint import Joint
from .run.options import SimulationOptions
from .step.config import Formulation
from .model.pose import BodyState, Pose, Poses
from .io.result import SimulationResult
from .run.simulate import simulate
from .model.system import System

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
