"""nlpmbd: spatial rigid multibody dynamics with clearance joints, one NLP per time step.

Declare a System of RigidBody objects, joints and loads, then `simulate(system, options)`.
"""

from .bodies import GROUND, RigidBody
from .case import Case, Parameter
from .errors import InputError, SolverFailure
from .forces import Force, Torque
from .joint import Joint
from .options import Formulation, SimulationOptions
from .pose import BodyState, Pose, Poses
from .results import SimulationResult
from .stepper import simulate
from .system import System

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
