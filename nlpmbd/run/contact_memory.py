"""Compliant contacts in the run loop: their force is explicit (evaluated at the start of each
step, like every applied force) and their law remembers, per contact, the penetration speed at
which it began (model/contact.py); the memory lives in RunState.impact_speed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.symbolic import SymbolicModel
from ..step.numeric import Numeric
from .state import RunState


@dataclass(frozen=True)
class Evaluation:
    """The compliant contacts at one state: generalised force (6N), gaps (C), penetration
    rates (C), force vectors on the moving bodies (3, C)."""

    Q: np.ndarray
    gap: np.ndarray
    rate: np.ndarray
    force: np.ndarray


class CompliantContacts:
    def __init__(self, model: SymbolicModel) -> None:
        self.model = model
        self.n = model.n_compliant
        self.current: Evaluation | None = None
        # called after every chunk and 1-2 times per Python step: no DM conversions
        self._force = Numeric(model.compliant_force)

    def at(self, t: float, q: np.ndarray, v: np.ndarray, impact_speed: np.ndarray) -> Evaluation:
        Q, gap, rate, _, force, _ = self._force(t, q, v, impact_speed)
        # Numeric gives a float for a 1 x 1 output and a 1-D array for a column
        return Evaluation(
            np.ravel(Q), np.ravel(gap), np.ravel(rate), np.reshape(force, (3, self.n))
        )

    def start(self, state: RunState) -> None:
        """Evaluate at the run's current state (its start, a resumed checkpoint, the end of a
        chunk). Without compliant contacts the evaluation is the same at every state."""
        if self.n or self.current is None:
            self.current = self.at(state.t, state.q, state.v, state.impact_speed)

    def applied(self) -> np.ndarray | None:
        """The generalised force the next step holds constant (None without contacts)."""
        return self.current.Q if self.n and self.current is not None else None

    def after_step(self, state: RunState) -> np.ndarray | None:
        """Update the memory and the evaluation after a step to `state`; returns the force
        vectors (3, C) the step used (its start's), for the result."""
        if not self.n or self.current is None:
            return None
        used, was = self.current.force, self.current.gap
        new = self.at(state.t, state.q, state.v, state.impact_speed)
        # a contact that begins now keeps its penetration speed; an open one forgets it
        speed = np.where(
            new.gap > 0, np.where(was > 0, state.impact_speed, np.maximum(new.rate, 0.0)), 0.0
        )
        if not np.array_equal(speed, state.impact_speed):  # the force depends on it
            state.impact_speed = speed
            new = self.at(state.t, state.q, state.v, state.impact_speed)
        self.current = new
        return used
