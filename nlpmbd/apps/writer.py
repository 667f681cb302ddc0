"""Writing a run's result and figures without losing it: a write that fails (read-only
directory, full disk, file-size limit) leaves the last good files in place, and the result in
memory goes to a rescue directory instead."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..io.figure_list import record_figures, remove_recorded_figures
from ..io.result import SimulationResult


class ResultWriter:
    """Saves into one directory; `error` is the first write error, `saved_t` the end time of the
    last result written there (None before the first)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.error: OSError | None = None
        self.saved_t: float | None = None
        self._first = True

    def save(self, result: SimulationResult) -> bool:
        """Write the result; False (and `error` set) if the write failed."""
        try:
            if self._first:  # the new result replaces an earlier one: so do its figures
                remove_recorded_figures(self.out)
                self._first = False
            result.save(self.out)
        except OSError as err:
            self.error = self.error or err
            return False
        self.saved_t = float(result.t[-1])
        return True

    def figures(
        self,
        result: SimulationResult,
        overlay: tuple[SimulationResult | None, str],
        figures: str = "standard",
    ) -> None:
        """Draw the figures (OSError if they cannot be written)."""
        from ..plots.figures import plot_result

        paths = plot_result(
            result, self.out, overlay=overlay[0], overlay_label=overlay[1], figures=figures
        )
        record_figures(self.out, paths)

    def rescue(self, result: SimulationResult) -> Path | None:
        """Save the result in a new directory under the temporary directory; None if that
        fails too (and then no directory is left behind)."""
        try:
            d = Path(tempfile.mkdtemp(prefix="nlpmbd-rescue-"))
        except OSError:
            return None
        try:
            result.save(d)
        except OSError:
            shutil.rmtree(d, ignore_errors=True)
            return None
        return d

    def failure(self, result: SimulationResult | None, case: str) -> str:
        """One line: what could not be written, and where the data is."""
        reason = os.strerror(self.error.errno) if self.error and self.error.errno else "error"
        parts = [f"could not write results to {self.out} ({reason})"]
        if self.saved_t is not None:
            parts.append(
                f"the last good result (t = {self.saved_t:.6g} s) is in {self.out}; continue "
                f"with: nlpmbd run {case} --resume {self.out}"
            )
        rescued = self.rescue(result) if result is not None else None
        if rescued is not None and result is not None:
            parts.append(f"the run up to t = {result.t[-1]:.6g} s is saved in {rescued}")
        elif self.saved_t is None:
            parts.append("nothing could be saved")
        return "; ".join(parts)
