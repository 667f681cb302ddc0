"""Compiling a chunk Function while the run goes on (codegen auto): a user never waits for a
compiler.

The chunks start on CasADi's virtual machine. After the first chunk the run knows what a step
costs there; when the rest of the run would take longer on the VM than COMPILE_PAYS, the C
version is built in a thread (the compiler runs in child processes, on another core where there
is one) and the runner switches to it at the next chunk boundary: the same numbers, bit for bit
(codegen.py). A library built once is cached by content, so a later run of the same model loads
it before its first step. A run that ends first cancels the build (its compiler processes are
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

from .codegen import compile_function

#: Seconds of VM stepping left in a run above which the chunk is compiled in the background.
COMPILE_PAYS = 5.0


class BackgroundCompile:
    """compile_function(f) in a daemon thread; `result()` polls, `cancel()` stops it."""

    def __init__(self, f: ca.Function) -> None:
        self._cancel = threading.Event()
        self._result: tuple[ca.Function, str] | None = None
        self._thread = threading.Thread(target=self._work, args=(f,), daemon=True)
        self._thread.start()

    def _work(self, f: ca.Function) -> None:
        self._result = compile_function(f, cancel=self._cancel)

    def result(self) -> tuple[ca.Function, str] | None:
        """(the compiled Function, how) once the build ended, else None."""
        return None if self._thread.is_alive() else self._result

    def cancel(self) -> None:
        self._cancel.set()
        self._thread.join(timeout=5.0)
