"""The symbolic pieces of friction inside ideal joints (Joint.friction_rates and
friction_losses; the step's rows: step/rows/joint_friction.py), traced with the model's symbols
by SymbolicModel.build: the Jacobian J (F, 6N) of the rates the friction rows resist, their
constant bounds, and the joint of each row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import casadi as ca
import numpy as np

from ..errors import InputError
from .system import System


@dataclass(frozen=True)
class JointFrictionTerms:
    """The friction rows inside a system's joints."""

    jacobian: ca.Function  # (q) -> (F, 6N): the rates the rows resist
    loss: np.ndarray  # (F,) their constant bounds (N m or N: Joint.friction_losses)
    joint: np.ndarray  # (F,) index in system.joints of each row's joint
    coefficient: np.ndarray  # (F,) mu times the lever: the bound is loss + coefficient * load
    load: ca.Function  # (q, t, lam, lam_eq) -> (F,) the loads N (Joint.friction_normals)

    @property
    def coupled(self) -> bool:
        """Whether a bound grows with its joint's reaction (a fixed point of the step)."""
        return bool(np.any(self.coefficient > 0))

    @property
    def n(self) -> int:
        return int(self.loss.size)


def joint_friction_terms(
    system: System, symbols: tuple, states: dict, poses: Any, reaction: ca.Function
) -> JointFrictionTerms:
    """The friction rows of the system's joints (Joint.friction_rates), traced; `symbols`: q, v,
    t; `reaction`: (q, t, lam, lam_eq) -> (3, J) the joints' forces on their children."""
    q, v, t = symbols
    lam, lam_eq = (ca.SX.sym(n, reaction.size1_in(k)) for k, n in ((2, "lam"), (3, "lam_eq")))
    forces = reaction(q, t, lam, lam_eq)
    rates: list = []
    loads: list = []
    numbers: list[tuple[float, float, int]] = []
    for i, joint in enumerate(system.joints):
        r, loss = joint.friction_rates(states), list(joint.friction_losses)
        coefficient = list(joint.friction_coefficients)
        n = joint.friction_normals(poses, forces[:, i]) if r else []
        if not len(r) == len(loss) == len(coefficient) == len(n):
            raise InputError(
                f"joint {joint.name!r}: friction_rates, friction_losses, friction_coefficients "
                f"and friction_normals must give one entry per friction row, got {len(r)}, "
                f"{len(loss)}, {len(coefficient)}, {len(n)}"
            )
        rates += r
        loads += n
        numbers += [(a, b, i) for a, b in zip(loss, coefficient, strict=True)]
    J = ca.jacobian(ca.vertcat(*rates), v) if rates else ca.SX(0, v.shape[0])
    table = np.array(numbers, dtype=float).reshape(-1, 3)
    load = ca.vertcat(*loads) if loads else ca.SX(0, 1)
    return JointFrictionTerms(
        ca.Function("joint_friction", [q], [J]),
        table[:, 0].copy(),
        table[:, 2].astype(int),
        table[:, 1].copy(),
        ca.Function(
            "friction_load", [q, t, lam, lam_eq], [load], ["q", "t", "lam", "lam_eq"], ["N"]
        ),
    )
