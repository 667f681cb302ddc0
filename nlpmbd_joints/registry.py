"""The joint types of model files (`type = "..."` in [[joints]], nlpmbd/io/model_parts.py).

The engine finds this mapping through the entry point group "nlpmbd.joints" (pyproject.toml),
so it never imports the joint library by name; another package can register its own joint
classes the same way. A type name is the class's name in snake_case without a "Joint" suffix
(RevoluteJoint: "revolute", DrivingAngle: "driving_angle"); the constructor's keywords are the
keys of its [[joints]] entry.
"""

from __future__ import annotations

from nlpmbd.model.joint import Joint

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

JOINTS: dict[str, type[Joint]] = {
    # ideal joints
    "revolute": RevoluteJoint,
    "spherical": SphericalJoint,
    "cylindrical": CylindricalJoint,
    "prismatic": PrismaticJoint,
    "planar_revolute": PlanarRevoluteJoint,
    "planar_prismatic": PlanarPrismaticJoint,
    "universal": UniversalJoint,
    "fixed": FixedJoint,
    # driving constraints
    "driving_angle": DrivingAngle,
    "driving_coordinate": DrivingCoordinate,
    # clearance joints and contacts
    "revolute_clearance": RevoluteClearance,
    "cylindrical_clearance": CylindricalClearance,
    "spherical_clearance": SphericalClearance,
    "universal_clearance": UniversalClearance,
    "planar_revolute_clearance": PlanarRevoluteClearance,
    "planar_prismatic_clearance": PlanarPrismaticClearance,
    "prismatic_clearance": PrismaticClearance,
    "plane_contact": PlaneContact,
    "sphere_contact": SphereContact,
    # joints of a flexible body's nodes ([[flexible_bodies]])
    "node_contact": NodeContact,
    "node_pin": NodePin,
    # stops and backlash on ideal joints
    "revolute_limits": RevoluteLimits,
    "revolute_backlash": RevoluteBacklash,
    "prismatic_stops": PrismaticStops,
    "cylindrical_stops": CylindricalStops,
    "gear_backlash": GearBacklash,
}
