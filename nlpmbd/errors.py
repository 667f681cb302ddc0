"""Exceptions that the CLI maps to exit codes (2 = bad input, 3 = solver failure)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .io.result import SimulationResult


class InputError(ValueError):
    """Bad user input. The message is one line naming the parameter and the allowed range."""


class SolverFailure(RuntimeError):
    """A step could not be solved even after the retry ladder; carries the partial result."""

    def __init__(self, message: str, partial: SimulationResult | None = None) -> None:
        super().__init__(message)
        self.partial = partial
