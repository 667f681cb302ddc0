"""The progress bar of a run (tqdm), or nothing."""

from __future__ import annotations

from typing import Any


class Progress:
    def __init__(self, enabled: bool, total: float, initial: float) -> None:
        self._bar: Any = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                unit="s",
                mininterval=0.5,
                bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} s [{elapsed}<{remaining}]",
                initial=initial,
            )

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, dt: float) -> None:
        if self._bar is not None:
            self._bar.update(dt)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
