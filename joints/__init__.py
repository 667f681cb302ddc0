"""Joint library: ideal joints, driving constraints, plane contact (clearance joints: one module
each)."""

from .cylindrical import CylindricalJoint
from .driving import DrivingAngle, DrivingCoordinate
from .fixed import FixedJoint
from .plane_contact import PlaneContact
from .prismatic import PrismaticJoint
from .revolute import RevoluteJoint
from .spherical import SphericalJoint

__all__ = [
    "CylindricalJoint",
    "DrivingAngle",
    "DrivingCoordinate",
    "FixedJoint",
    "PlaneContact",
    "PrismaticJoint",
    "RevoluteJoint",
    "SphericalJoint",
]
