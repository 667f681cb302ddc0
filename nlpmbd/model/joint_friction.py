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

    @property
    def n(self) -> int:
        return int(self.loss.size)


def joint_friction_terms(system: System, states: dict, q: Any, v: Any) -> JointFrictionTerms:
    """The friction rows of the system's joints (Joint.friction_rates), traced."""
    rates: list = []
    losses: list[float] = []
    owners: list[int] = []
    for i, joint in enumerate(system.joints):
        r, loss = joint.friction_rates(states), list(joint.friction_losses)
        if len(r) != len(loss):
            raise InputError(
                f"joint {joint.name!r}: friction_rates must give one rate per friction loss "
                f"({len(loss)}), got {len(r)}"
            )
        rates += r
        losses += loss
        owners += [i] * len(r)
    J = ca.jacobian(ca.vertcat(*rates), v) if rates else ca.SX(0, v.shape[0])
    return JointFrictionTerms(
        ca.Function("joint_friction", [q], [J]),
        np.array(losses, dtype=float),
        np.array(owners, dtype=int),
    )
