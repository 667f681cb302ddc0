"""Compiling a chunk Function while the run goes on (codegen auto): a user never waits for a
compiler.

The chunks start on CasADi's virtual machine. After the first chunk the run knows what a step
costs there; when the rest of the run would take longer on the VM than COMPILE_PAYS, the C
version is built in a thread (the compiler runs in child processes, on another core where there
is one) and the runner switches to it at the next chunk boundary: the same numbers, bit for bit
(codegen.py). The thread runs no CasADi: the C source is generated before it starts and the
library loaded after it ends, both in the run's thread (CasADi 3.8 releases the GIL in its
calls and its reference counts are not atomic: a Function generated in one thread while it is
evaluated in another may corrupt the heap; a CI test session once aborted at its very end with
a corrupted heap). A library built once is cached by content, so a later run of the same model
loads it before its first step. A run that ends first cancels the build (its compiler processes are
killed, nothing is left in the cache).

COMPILE_PAYS: measured 2026-11-27 on the 2-core machine of docs/benchmarks (gcc 12): compiling a
chunk took 1.9-5.5 s wall (box_drop 1.9, chain N=4 2.1, slider_crank 2.3, pendulum with a
clearance pin 3.9, spatial slider-crank with clearance at every joint 5.5), while a step on the
VM costs 15-30x its compiled cost (130-1240 us against 7-81 us): a build pays when the VM would
need more than about twice the compile time.
"""

from __future__ import annotations

import threading

import casadi as ca

from .codegen import build_library, load_library, prepare

#: Seconds of VM stepping left in a run above which the chunk is compiled in the background.
COMPILE_PAYS = 5.0


class BackgroundCompile:
    """build_library in a daemon thread, the source prepared and the library loaded in the
    caller's (module docstring); `result()` polls, `cancel()` stops it."""

    def __init__(self, f: ca.Function) -> None:
        self._cancel = threading.Event()
        self._f, self._how = f, ""
        self._src = prepare(f)
        self._thread = threading.Thread(target=self._work, daemon=True)
        self._thread.start()

    def _work(self) -> None:
        if not isinstance(self._src, str):
            self._how = build_library(self._src, cancel=self._cancel)

    def result(self) -> tuple[ca.Function, str] | None:
        """(the compiled Function, how) once the build ended, else None."""
        if self._thread.is_alive():
            return None
        if isinstance(self._src, str):
            return self._f, self._src
        return load_library(self._f, self._src, self._how)

    def cancel(self) -> None:
        self._cancel.set()
        self._thread.join(timeout=5.0)
