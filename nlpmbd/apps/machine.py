"""The machine a benchmark ran on, and BLAS pinned to one thread (timings of one core)."""

from __future__ import annotations

import ctypes
import datetime
import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

#: Environment variables that pin BLAS (OpenBLAS, MKL, OpenMP) to one thread.
BLAS_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pin_blas_threads() -> None:
    """One BLAS thread: the environment for libraries loaded from now on (CasADi loads its
    OpenBLAS with the IPOPT plugin), a call for any OpenBLAS already loaded (NumPy's when the
    suite is started from the nlpmbd CLI rather than from `python -m benchmarks`)."""
    for var in BLAS_ENV:
        os.environ[var] = "1"
    for lib in _loaded_openblas():
        setter = _symbol(lib, "openblas_set_num_threads", "scipy_openblas_set_num_threads64_")
        if setter is not None:
            setter(ctypes.c_int(1))


def blas_threads() -> dict[str, int]:
    """Threads of each loaded OpenBLAS, by file name (Linux only; {} elsewhere)."""
    found = {}
    for lib in _loaded_openblas():
        getter = _symbol(lib, "openblas_get_num_threads", "scipy_openblas_get_num_threads64_")
        if getter is not None:
            found[Path(lib).name] = int(getter())
    return found


def _loaded_openblas() -> list[str]:
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split()[-1] for line in fh if "openblas" in line.lower()}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/"))


def _symbol(lib: str, *names: str) -> Any:
    try:
        handle = ctypes.CDLL(lib)
    except OSError:
        return None
    return next((getattr(handle, n) for n in names if hasattr(handle, n)), None)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    import casadi

    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "processor": platform.processor(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "casadi": casadi.__version__,
        "numpy": np.__version__,
        "blas_env": {var: os.environ.get(var) for var in BLAS_ENV},
        "blas_threads": blas_threads(),
    }
