"""Joint library: ideal joints, driving constraints, plane and sphere contact (clearance joints:
one module each), and the joints of flexible bodies' nodes (`nlpmbd_joints.node_joints`)."""

from .axial_stops import CylindricalStops, PrismaticStops
from .cylindrical import CylindricalJoint
from .cylindrical_clearance import CylindricalClearance
from .driving import DrivingAngle, DrivingCoordinate
from .fixed import FixedJoint
from .gear_backlash import GearBacklash
from .node_joints import NodeContact, NodePin
from .planar_prismatic import PlanarPrismaticJoint
from .planar_prismatic_clearance import PlanarPrismaticClearance
from .planar_revolute import PlanarRevoluteJoint
from .planar_revolute_clearance import PlanarRevoluteClearance
from .plane_contact import PlaneContact
from .prismatic import PrismaticJoint
from .prismatic_clearance import PrismaticClearance
from .revolute import RevoluteJoint
from .revolute_clearance import RevoluteClearance
from .revolute_limits import RevoluteBacklash, RevoluteLimits
from .sphere_contact import SphereContact
from .spherical import SphericalJoint
from .spherical_clearance import SphericalClearance
from .universal import UniversalJoint
from .universal_clearance import UniversalClearance

__all__ = [
    "RevoluteLimits",
    "RevoluteBacklash",
    "GearBacklash",
    "PrismaticStops",
    "CylindricalStops",
    "CylindricalClearance",
    "CylindricalJoint",
    "DrivingAngle",
    "DrivingCoordinate",
    "FixedJoint",
    "NodeContact",
    "NodePin",
    "PlanarPrismaticClearance",
    "PlanarPrismaticJoint",
    "PlanarRevoluteClearance",
    "PlanarRevoluteJoint",
    "PlaneContact",
    "PrismaticClearance",
    "PrismaticJoint",
    "RevoluteClearance",
    "RevoluteJoint",
    "SphereContact",
    "SphericalClearance",
    "SphericalJoint",
    "UniversalClearance",
    "UniversalJoint",
]
