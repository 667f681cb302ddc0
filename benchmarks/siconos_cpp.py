"""The C++ driver of benchmarks/siconos_slider_crank.py (`--driver cpp`): the same Siconos model
with the time loop in C++ (benchmarks/siconos_slider_crank.cpp).

Run by the system interpreter as a sibling of siconos_slider_crank.py, which feeds it the
parameters and the compiled plugin and turns its per-step records into the same --physics
numbers as its own loop's. The driver is compiled with g++ against Debian's Siconos
(libsiconos-kernel-dev, libsiconos-numerics-dev, libboost-dev) once, into a temporary folder
named by a hash of its source and command; it times its own setup and loop (wall and CPU).
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "siconos_slider_crank.cpp")
INCLUDE = "/usr/include/siconos"
CXXFLAGS = ["-O2", "-std=c++17", f"-I{INCLUDE}", f"-I{INCLUDE}/kernel", f"-I{INCLUDE}/numerics"]
LIBS = ["-lsiconos_kernel", "-lsiconos_numerics"]
#: The order of the numbers on the driver's command line (its enum).
ARGS = ("l1", "l2", "a", "b", "c", "m1", "m2", "m3", "J1", "J2", "J3", "g", "omega0",
        "e", "mu", "h", "t_end", "theta", "newton_tol")  # fmt: skip
#: One record per step: t, q (3), v (3), the largest normal impulse over the corners.
RECORD = 8


def missing() -> str | None:
    """Why the C++ driver cannot be built here, or None when it can."""
    if shutil.which("g++") is None:
        return "g++ is not on PATH (apt-get install g++)"
    header = os.path.join(INCLUDE, "kernel", "SiconosKernel.hpp")
    if not os.path.exists(header):
        return f"{header} is absent (apt-get install libsiconos-kernel-dev)"
    return None


def build_driver() -> str:
    """Compile the driver once into a cached executable; its path."""
    with open(SOURCE, "rb") as fh:
        source = fh.read()
    digest = hashlib.sha256(source + " ".join(CXXFLAGS + LIBS).encode()).hexdigest()[:12]
    folder = os.path.join(tempfile.gettempdir(), f"siconos_slider_crank_cpp_{digest}")
    exe = os.path.join(folder, "driver")
    if not os.path.exists(exe):
        os.makedirs(folder, exist_ok=True)
        tmp = f"{exe}.{os.getpid()}"
        cmd = ["g++", *CXXFLAGS, SOURCE, "-o", tmp, *LIBS]
        subprocess.run(cmd, check=True)
        os.replace(tmp, exe)
    return exe


def run_cpp(p: dict, lib: str, physics: bool) -> tuple[dict, np.ndarray | None]:
    """The driver's JSON line for parameters p and the plugin `lib`, and with `physics` its
    records ((steps + 1, RECORD): the initial state, then one row per step)."""
    exe = build_driver()
    with tempfile.TemporaryDirectory(prefix="siconos_cpp_") as tmp:
        records = os.path.join(tmp, "records.bin") if physics else "-"
        cmd = [exe, lib, records, *(repr(float(p[k])) for k in ARGS)]
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        out = json.loads([s for s in r.stdout.splitlines() if s.startswith("{")][-1])
        rec = np.fromfile(records).reshape(-1, RECORD) if physics else None
    return out, rec
