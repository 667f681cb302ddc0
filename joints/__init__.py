"""Joint library: ideal joints and driving constraints (clearance joints: one module each)."""

from .cylindrical import CylindricalJoint
from .driving import DrivingAngle, DrivingCoordinate
from .fixed import FixedJoint
from .prismatic import PrismaticJoint
from .revolute import RevoluteJoint
from .spherical import SphericalJoint

__all__ = [
    "CylindricalJoint",
    "DrivingAngle",
    "DrivingCoordinate",
    "FixedJoint",
    "PrismaticJoint",
    "RevoluteJoint",
    "SphericalJoint",
]
