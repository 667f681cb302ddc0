"""Loads on a flexible body (model/flexible.py): a force at a material point of the strip.

The point is given in the strip's reference coordinates (m from its lower-left corner); between
nodes it moves with the bilinear interpolation of its element, x(point) = sum_k w_k x_k, and the
force is shared out in the same weights, f_k = w_k f (its virtual work is f . dx(point)).
`value` is a constant in-plane force (fx, fy) or a function f(t, state) of CasADi expressions
returning one, where state is the point's BodyState: position (x, y, z), velocity, no rotation.
Like rigid bodies' forces (forces.py) it is evaluated at the step's start. Gravity is not a load:
the engine distributes it with the mass matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from ..errors import InputError
from ..validation import error_reason, finite_array, name_string, short_repr
from .flexible import FlexibleBody
from .pose import BodyState, Pose


@dataclass(frozen=True)
class PointLoad:
    """A force (N) on a FlexibleBody at `point` (reference coordinates, m)."""

    body: FlexibleBody
    point: Sequence[float] | np.ndarray
    value: Sequence[float] | np.ndarray | Callable[[ca.SX, BodyState], Any]
    name: str = field(default="point_load")

    def __post_init__(self) -> None:
        name_string("load name", self.name)
        if not isinstance(self.body, FlexibleBody):
            raise InputError(
                f"{self.name}.body must be a FlexibleBody, got {short_repr(self.body)}"
            )
        object.__setattr__(self, "point", finite_array(f"{self.name}.point", self.point, (2,)))
        self.weights()  # the point lies on the strip
        if not callable(self.value):
            object.__setattr__(self, "value", finite_array(f"{self.name}.value", self.value, (2,)))
            return
        x, v, t = ca.SX.sym("x", 2), ca.SX.sym("v", 2), ca.SX.sym("t")
        try:
            out = self._force(t, x, v)
            probe = ca.Function("probe", [t, x, v], [out])
            start = self.body.reference.T @ np.array([w for _, w in self._dense()])
            value = np.asarray(probe(0.0, start, self.body.velocity), float).ravel()
        except InputError:
            raise
        except Exception as err:
            raise InputError(
                f"{self.name}.value must be a function f(t, state) of CasADi expressions "
                f"returning (fx, fy); calling it raised {type(err).__name__}: {error_reason(err)}"
            ) from None
        if not np.all(np.isfinite(value)):
            raise InputError(f"{self.name}.value must be finite at t = 0, got {value.tolist()}")

    def weights(self) -> list[tuple[int, float]]:
        return self.body.point_weights(self.point)

    def _dense(self) -> list[tuple[int, float]]:
        w = dict(self.weights())
        return [(k, w.get(k, 0.0)) for k in range(self.body.n_nodes)]

    def _force(self, t: Any, x: Any, v: Any) -> Any:
        if not callable(self.value):
            return ca.DM(self.value)
        z = float(self.body.position[2])
        pose = Pose(ca.vertcat(x[0], x[1], z), ca.SX.eye(3))
        state = BodyState(pose, ca.vertcat(v[0], v[1], 0), ca.SX.zeros(3, 1))
        out = self.value(t, state)
        n = out.numel() if isinstance(out, (ca.SX, ca.DM)) else len(out)
        if n not in (2, 3):
            raise InputError(f"{self.name}.value must return (fx, fy), got {n} entries")
        return ca.vertcat(out[0], out[1])

    def nodal(self, t: Any, positions: Any, velocities: Any) -> list[tuple[int, Any]]:
        """(node, force (2,)) pairs at time t, given the nodes' positions and velocities as
        (n_nodes, 2) lists of 2-vectors (symbolic)."""
        pairs = self.weights()
        x = sum((w * positions[k] for k, w in pairs), ca.SX.zeros(2, 1))
        v = sum((w * velocities[k] for k, w in pairs), ca.SX.zeros(2, 1))
        f = self._force(t, x, v)
        return [(k, w * f) for k, w in pairs]
