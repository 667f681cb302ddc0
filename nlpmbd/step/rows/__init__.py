"""The row kinds of a step's contacts, one module each (rows/base.py has the interface), and
GapRows: a model's rows gap by gap, as the step backends assemble them.

Built in: HardContact's gaps take HardGap and Tresca rows, SpringDamperContact's SoftGap and
Tresca rows."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from ...model.contact import HardContact, SpringDamperContact
from .base import FrictionRow, GapRow, kinds_of, register
from .hard_gap import HardGap
from .soft_gap import SoftGap
from .tresca import Tresca

__all__ = [
    "FrictionRow",
    "GapRow",
    "GapRows",
    "HardGap",
    "SoftGap",
    "Tresca",
    "nlp_omits",
    "register",
]

register(HardContact, lambda law: HardGap(), lambda law: Tresca(law.mu, law.mu_static))
register(
    SpringDamperContact,
    lambda law: SoftGap(law.stiffness, law.damping),
    lambda law: Tresca(law.mu, law.mu_static),
)


class GapRows:
    """Per gap of a model (SymbolicModel.gap_laws) its normal and friction rows, and their
    terms stacked in gap order."""

    def __init__(self, laws: Any) -> None:
        kinds = [kinds_of(law) for law in laws]
        self.normal: list[GapRow] = [n for n, _ in kinds]
        self.friction: list[FrictionRow] = [f for _, f in kinds]
        #: (M,) True for the compliant rows (GapRow.compliant)
        self.compliant = np.array([n.compliant for n in self.normal], dtype=bool)
        self.any_compliant = bool(np.any(self.compliant))

    def scale(self, h: Any) -> Any:
        """(M,) a of every gap's row."""
        return ca.vertcat(*[n.scale(h) for n in self.normal])

    def compliance(self, h: Any) -> Any:
        """(M,) k of every gap's row (m/N)."""
        return ca.vertcat(*[n.compliance(h) for n in self.normal])

    def slack_weights(self, h: Any) -> Any:
        """The compliant rows' slack weights w (kg), in gap order."""
        return ca.vertcat(*[n.slack_weight(h) for n in self.normal if n.compliant])

    def coefficients(self, slip_speed: Any, stick_speed: float) -> Any:
        """(M,) mu_j of a step from the slip speeds |D_j vm| (M,) at its start."""
        rows = self.friction
        return ca.vertcat(*[r.coefficient(slip_speed[j], stick_speed) for j, r in enumerate(rows)])


def nlp_omits(model: Any) -> str:
    """What of the model the NLP path takes in part only, or "": the joints' friction without
    its load part (rows/joint_friction.py), Newton's law for the process impact laws."""
    from .impact import ImpactLaws

    parts = ["the joints' friction without its load part"] if model.joint_friction.coupled else []
    if ImpactLaws(model.gap_laws).process:
        parts.append("Newton's impact law in place of Poisson's or the energetic one")
    return " and ".join(parts)
