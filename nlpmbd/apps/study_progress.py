"""The progress bar of a study (tqdm), or nothing."""

from __future__ import annotations

from typing import Any

from .study import RunOutcome


class StudyProgress:
    def __init__(self, enabled: bool, total: int, initial: int) -> None:
        self._bar: Any = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, initial=initial, unit="run")

    def __enter__(self) -> StudyProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()

    def update(self, outcome: RunOutcome) -> None:
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix_str(f"{outcome.label}: {outcome.status}")
