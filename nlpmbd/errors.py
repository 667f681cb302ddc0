"""Exceptions that the CLI maps to exit codes (apps/exit_codes.py: 2 bad input, 3 solver
failure, 4 output not written). This module is the bottom of the package: it imports nothing
of nlpmbd."""

from __future__ import annotations

from typing import Any


class InputError(ValueError):
    """Bad user input. The message is one line naming the parameter and the allowed range."""


class SolverFailure(RuntimeError):
    """A run ended early (a step failed after its retries, the motion diverged, or the user
    interrupted it). `partial` is the SimulationResult up to there (`completed` false), so
    nothing computed is lost."""

    def __init__(self, message: str, partial: Any = None) -> None:
        super().__init__(message)
        self.partial = partial


class OutputFailure(RuntimeError):
    """Output could not be written for a reason that is not the user's input (a full disk, a
    quota, an I/O error, a file-size limit). The message is one line saying what was kept."""
