"""Runs refused before their first step: an initial configuration that violates its joints, and
a run too long or too large for the machine (unless forced)."""

from __future__ import annotations

import os

import numpy as np

from ..errors import InputError
from ..io.schema import bytes_per_step
from ..model.symbolic import SymbolicModel
from ..model.system import System
from .options import SimulationOptions

#: A joint may be violated by at most this much at t = 0 (m or rad).
ASSEMBLY_TOL = 1e-6
#: More steps than this (estimated as t_end / h_min) is refused unless forced: at ~1-10 us per
#: step and ~250 bytes per step it is hours of run time and tens of GB of results.
MAX_STEPS = 1e8
#: The result is held twice while a checkpoint or the final result is assembled (the stored
#: blocks and their concatenation), so a run needs this many times its result size in memory.
MEMORY_FACTOR = 2.0


def check_assembly(system: System, model: SymbolicModel, q: np.ndarray) -> None:
    """InputError when the initial configuration violates a joint or a contact."""
    eq = np.abs(np.asarray(model.Phi_eq(q, 0.0)).ravel())
    if eq.size and eq.max() > ASSEMBLY_TOL:
        worst = system.eq_labels[int(np.argmax(eq))]
        raise InputError(
            f"initial configuration violates joint constraint {worst} by "
            f"{eq.max():.3g} (allowed {ASSEMBLY_TOL})"
        )
    gap = np.asarray(model.Phi(q)).ravel()
    if gap.size and gap.max() > ASSEMBLY_TOL:
        worst = system.gap_labels[int(np.argmax(gap))]
        raise InputError(
            f"bodies start penetrating at contact {worst} by {gap.max():.3g} m "
            f"(allowed {ASSEMBLY_TOL})"
        )


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation: MemAvailable of /proc/meminfo, else the
    free physical pages (os.sysconf), else None (unknown)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, AttributeError):
        return None


def _size(n_bytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes:.0f} B"


def check_run_size(model: SymbolicModel, options: SimulationOptions, force: bool) -> None:
    """Refuse (InputError) a run of more than MAX_STEPS steps, or whose result would not fit in
    the available memory (MEMORY_FACTOR), unless `force`. Steps are estimated as t_end / h_min,
    an upper bound for every step control."""
    if force:
        return
    n = options.time.t_end / options.time.h_min
    size = n * bytes_per_step(model.sizes)
    free = available_memory()
    have = f", {_size(free)} available" if free is not None else ""
    advice = "pass force=True (--force) to run anyway"
    if n > MAX_STEPS:
        raise InputError(
            f"t_end / h_min = {n:.3g} steps exceeds the limit {MAX_STEPS:.3g} "
            f"(about {_size(size)} of results{have}); {advice}"
        )
    if free is not None and MEMORY_FACTOR * size > free:
        raise InputError(
            f"t_end / h_min = {n:.3g} steps need about {_size(size)} of results "
            f"({_size(MEMORY_FACTOR * size)} while the result is assembled), more than the "
            f"{_size(free)} available; {advice}"
        )


#: Most bytes of result rows reserved before the first step (address space, whose pages are
#: touched as rows arrive); a longer run's rows go on in blocks (run/storage.py).
RESERVE_BYTES = 64 << 20
#: Most bytes of them touched before the first step (the rows every step control fills).
TOUCH_BYTES = 16 << 20


def expected_points(model: SymbolicModel, options: SimulationOptions) -> tuple[int, int]:
    """(reserved, touched): the time points to reserve, t_end / h_min (an upper bound of the
    steps of every step control, exact at a fixed h) plus the first point and a landing pair,
    at most RESERVE_BYTES of rows; and those of them to touch before the first step, where
    the steps of t_end / h_max (each step is at most h_max) will write, at most TOUCH_BYTES:
    their first-touch page faults are part of the setup, not of the steps."""
    grid, row = options.time, max(bytes_per_step(model.sizes), 1)
    reserved = int(min(grid.t_end / grid.h_min + 3, RESERVE_BYTES // row))
    return reserved, int(min(grid.t_end / grid.h_max + 1, TOUCH_BYTES // row, reserved))
