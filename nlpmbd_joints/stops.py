"""An ideal joint with two stops on one coordinate of its relative motion: the base of the
angle limits and backlash of a revolute (revolute_limits.py) and the travel stops of a
prismatic or cylindrical joint (axial_stops.py)."""

from __future__ import annotations

from abc import abstractmethod

import casadi as ca

from nlpmbd.model.bodies import Body
from nlpmbd.model.contact import ContactLaw
from nlpmbd.model.joint import ContactJoint, IdealJoint, Joint
from nlpmbd.model.pose import Poses


class StoppedJoint(ContactJoint):
    """`ideal`'s equalities, and a coordinate x(q) of the relative motion (the subclass's
    `coordinate`, 0 at t = 0) kept in [lower, upper] by two gaps in metres,

        upper: k (x - upper) <= 0,   lower: k (lower - x) <= 0          (> 0 = penetration)

    with k the stops' lever (m per unit of x: 1 for a length, a radius for an angle); scales
    k (upper - lower) / 2 each."""

    def __init__(
        self,
        name: str,
        parent: Body,
        child: Body,
        contact: ContactLaw | None,
        ideal: IdealJoint,
        limits: tuple[float, float],
        lever: float = 1.0,
    ) -> None:
        super().__init__(name, parent, child, contact)
        self.ideal = ideal
        self.frame = ideal.frame  # type: ignore[attr-defined]
        self.lower, self.upper = limits
        self.lever = lever

    @abstractmethod
    def coordinate(self, poses: Poses) -> ca.SX:
        """x, the stopped coordinate."""

    @property
    def eq_labels(self):
        return self.ideal.eq_labels

    def equalities(self, poses, t):
        return self.ideal.equalities(poses, t)

    @property
    def gap_labels(self):
        return ("upper", "lower")

    @property
    def gap_scales(self):
        return (self.lever * (self.upper - self.lower) / 2,) * 2

    def gaps(self, poses):
        x = self.coordinate(poses)
        return [self.lever * (x - self.upper), self.lever * (self.lower - x)]

    def duplicates(self, other: Joint) -> str | None:
        theirs = other.ideal if isinstance(other, StoppedJoint) else other
        return self.ideal.duplicates(theirs)
