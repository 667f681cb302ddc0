"""Compile a CasADi Function to C with the C compiler found on the machine, or fall back.

The fast path's chunk Function (run/chunks.py) is generated as C by CasADi, compiled into a
shared library with `cc -O2` and loaded back with `casadi.external`. Libraries are cached by a
hash of the generated source (in $NLPMBD_CACHE, else ~/.cache/nlpmbd), so a case compiled once
is reused by later runs; each library's SHA-256 is recorded beside it (LIB.sha256) and checked
before loading, because loading a truncated library kills the process (SIGBUS). Without a
compiler, or if compilation fails, the Function is returned unchanged and evaluated by CasADi's
virtual machine (same numbers, slower).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import casadi as ca

#: Compiler flags: -O2 is as fast as -O3 here and compiles faster; no -ffast-math (bitwise
#: reproducible results, NaN checks must hold).
CFLAGS = ("-O2", "-fPIC", "-shared")


def solver_flags(source: str) -> list[str]:
    """Headers and the static library of a QP solver the generated code calls (CasADi's wheel
    ships DAQP's; qrqp is generated inline and needs none)."""
    if "#include <daqp/" not in source:
        return []
    root = Path(ca.__file__).parent
    return [f"-I{root / 'include'}", str(root / "libdaqpstat.a")]


def find_compiler() -> str | None:
    """The C compiler to use ($CC, else cc, gcc or clang on PATH), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def cache_dir() -> Path:
    root = os.environ.get("NLPMBD_CACHE") or Path.home() / ".cache" / "nlpmbd"
    return Path(root)


#: How CasADi's generated qrqp ends when the QP was not solved (CasADi 3.6-3.8).
_QP_FAILURE_RETURN = re.compile(
    r"(\} else if \(d\.status == QP_NO_SEARCH_DIR\) \{\s*)return 4;(\s*\} else \{\s*)return -1;"
)


def _nonfatal_qp(source: str) -> str:
    """A generated QP that fails returns nonzero, which aborts the whole chunk; the VM instead
    returns the last iterate (error_on_fail = False). Make the C code do the same: the chunk
    checks every step's KKT conditions itself and hands failed steps back to Python. If the
    pattern is not found (another CasADi version), the source is unchanged and a failing chunk
    is evaluated again by the VM (fast_loop.py)."""
    return _QP_FAILURE_RETURN.sub(r"\1return 0;\2return 0;", source)


def _digest_path(lib: Path) -> Path:
    return lib.with_name(lib.name + ".sha256")


def _intact(lib: Path) -> bool:
    """The cached library exists and its bytes have the SHA-256 recorded when it was built."""
    try:
        expected = _digest_path(lib).read_text().strip()
        return hashlib.sha256(lib.read_bytes()).hexdigest() == expected
    except OSError:
        return False


def compile_function(f: ca.Function, timeout: float = 600.0) -> tuple[ca.Function, str]:
    """(compiled f, how): how is "compiled", "cached", or why f is returned unchanged."""
    cc = find_compiler()
    if cc is None:
        return f, "no C compiler found"
    with tempfile.TemporaryDirectory(prefix="nlpmbd-cg-") as tmp:
        gen = ca.CodeGenerator("nlpmbd_chunk.c", {"with_header": False})
        gen.add(f)
        gen.generate(tmp + os.sep)
        source = _nonfatal_qp(Path(tmp, "nlpmbd_chunk.c").read_text())
    key = hashlib.sha256((source + " ".join(CFLAGS) + cc).encode()).hexdigest()[:20]
    lib = cache_dir() / f"{f.name()}_{key}.so"
    how = "cached"
    if not _intact(lib):
        how = "compiled"
        try:
            lib.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix="nlpmbd-cc-", dir=lib.parent) as tmp:
                src = Path(tmp, "chunk.c")
                src.write_text(source)
                out = Path(tmp, lib.name)
                subprocess.run(
                    [cc, *CFLAGS, str(src), "-o", str(out), *solver_flags(source), "-lm"],
                    check=True,
                    capture_output=True,
                    timeout=timeout,
                )
                digest = hashlib.sha256(out.read_bytes()).hexdigest()
                os.replace(out, lib)  # atomic: a concurrent run sees the whole library or none
                sums = Path(tmp, "lib.sha256")
                sums.write_text(digest)
                os.replace(sums, _digest_path(lib))
        except (OSError, subprocess.SubprocessError) as err:
            return f, f"compilation failed ({type(err).__name__})"
    try:
        return ca.external(f.name(), str(lib)), how
    except RuntimeError:
        return f, "compiled library could not be loaded"
