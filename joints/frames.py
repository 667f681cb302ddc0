"""Joint geometry given globally at t = 0, turned into body-fixed points and triads."""

from __future__ import annotations

import numpy as np

from nlpmbd.bodies import Body, initial_local_point, initial_local_vector
from nlpmbd.errors import InputError
from nlpmbd.validation import finite_array, unit_vector


def perpendicular_pair(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors a, b with (a, b, u) right-handed and orthonormal."""
    helper = np.eye(3)[int(np.argmin(np.abs(u)))]
    a = np.cross(u, helper)
    a /= np.linalg.norm(a)
    return a, np.cross(u, a)


class AxisFrame:
    """A global point and unit axis at t = 0, with its perpendicular pair, expressed in the
    body-fixed coordinates of a parent and a child body."""

    def __init__(self, joint_name: str, parent: Body, child: Body, point, axis) -> None:
        try:
            self.point = finite_array("point", point, (3,))
            self.axis = unit_vector("axis", axis)
        except InputError as err:
            raise InputError(f"{joint_name}.{err}") from None
        self.perp = perpendicular_pair(self.axis)
        self.s_parent = initial_local_point(parent, self.point)
        self.s_child = initial_local_point(child, self.point)
        self.u_parent = initial_local_vector(parent, self.axis)
        self.u_child = initial_local_vector(child, self.axis)
        self.perp_parent = [initial_local_vector(parent, a) for a in self.perp]
        self.perp_child = [initial_local_vector(child, a) for a in self.perp]
