"""Ctrl-C and SIGTERM as a request to stop between steps (or between runs of a study)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any


class StopFlag:
    """`kill PID` or Ctrl-C: the run finishes its current step, then stops and writes what it
    computed (raising from the handler could land inside CasADi or between two history rows);
    a second signal aborts at once. The previous handlers come back on leaving `installed`."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self) -> bool:
        return self.requested

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    @contextlib.contextmanager
    def installed(self) -> Iterator[StopFlag]:
        saved = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            yield self
        finally:
            for sig, handler in saved.items():
                signal.signal(sig, handler)
