"""Compile a CasADi Function to C with the C compiler found on the machine, or fall back.

The fast path's chunk Function (run/chunks.py) is generated as C by CasADi, compiled into a
shared library and loaded back with `casadi.external`. Libraries are cached by a hash of the
generated source (in $NLPMBD_CACHE, else ~/.cache/nlpmbd), so a case compiled once is reused by
later runs; each library's SHA-256 is recorded beside it (LIB.sha256) and checked before
loading, because loading a truncated library kills the process (SIGBUS). Without a compiler,
or if compilation fails, the Function is returned unchanged and evaluated by CasADi's virtual
machine (same numbers, slower).

Compile time. Most of the generated code is a few huge straight-line SX functions (Phi_curv,
Phi_v, report, Phi_eq_v: 1.4 of 2.1 MB for the 32-link chain with clearance pins); `cc -O2` on
the one file took 23-29 s there. Measured, gcc 12, chain N = 32, CPU seconds of one file: -O2
25, -Os 20, -O1 14, -Og 11.5, -O0 6; no single flag on top of -O1/-Og (register allocation,
DSE, IPA, -pipe, -g0) saved more than noise, and LTO (parallel partitions) still took 21 s.
Runtime barely depends on the level at N = 32 (DAQP, compiled once by CasADi, takes ~75 % of
a step): all within 5 % of -O2 except -O0 (+20 %). At N = 8 the generated code matters: -O1
+8-16 %, -Og +20-25 %, -O0 +85 %, and what needs -O2 is CasADi's small runtime helpers
(densify, trans, copy, mtimes), not the generated functions (the huge ones: as fast at -Og).
Hence:

* `split_source` moves each big self-contained function (a "leaf": it calls only the runtime
  helpers, no other generated function, no static data) to a translation unit of its own,
  compiled at -Og with hidden symbols; the main unit keeps a forwarding stub;
* the main unit is compiled at -O2 with `#pragma GCC optimize ("Og")` before its first
  generated function, so only the helpers get -O2;
* the units are compiled in parallel, one process per available core, then linked.

compile_function at N = 32: 11 CPU s instead of 25; 6.3 s wall with both cores free (14.9 s
while another process holds one), was 25-26 s. N = 8: 1.9 s wall (3.1 CPU s), was 5.8 s. The
runtime stays within noise of the -O2 build at N = 8 and N = 32, with the same bits: every
level gives the same numbers here (no -ffast-math; -ffp-contract=off keeps FMA contraction
out on targets that have FMA). If the split units do not compile (another CasADi version's
layout), the unsplit source is compiled at -O2 as before. One edit changes numbers at
round-off: DAQP starts from a working set in compiled chunks (codegen_source.warm_daqp), from
none in the VM, so the two reach the same QP optimum by different paths (8.8e-13 m apart
after 0.3 s of the revolute case's chatter, tests/test_qp.py).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import casadi as ca

from .codegen_source import nonfatal_qp, split_source, warm_daqp

#: Flags of the main unit (and of an unsplit source). -O2 is as fast as -O3 here and compiles
#: faster; no -ffast-math, no contraction into FMA (bitwise reproducible results; NaN checks
#: must hold). Generated functions in it get -Og through a pragma (see above).
CFLAGS: tuple[str, ...] = ("-O2", "-fPIC", "-ffp-contract=off")
#: Flags of the units holding the big leaf functions: -Og takes 0.46 of the -O2 time and 0.72
#: of the -O1 one there and runs as fast as -O2; hidden symbols (no clash with other libraries).
PART_FLAGS: tuple[str, ...] = ("-Og", "-fPIC", "-ffp-contract=off", "-fvisibility=hidden")
#: Largest cached library read (bytes); the 32-link chain's is a few MB.
MAX_LIBRARY = 1 << 30


def solver_flags(source: str) -> tuple[list[str], list[str]]:
    """(compile flags, link inputs) of a QP solver the generated code calls (CasADi's wheel
    ships DAQP's headers and static library; qrqp is generated inline and needs none)."""
    if "#include <daqp/" not in source:
        return [], []
    root = Path(ca.__file__).parent
    return [f"-I{root / 'include'}"], [str(root / "libdaqpstat.a")]


def find_compiler() -> str | None:
    """The C compiler to use ($CC, else cc, gcc or clang on PATH), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def cache_dir() -> Path:
    root = os.environ.get("NLPMBD_CACHE") or Path.home() / ".cache" / "nlpmbd"
    return Path(root)


def _workers() -> int:
    """Compiler processes to run at once: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _digest_path(lib: Path) -> Path:
    return lib.with_name(lib.name + ".sha256")


def _intact(lib: Path) -> bool:
    """The cached library exists and its bytes have the SHA-256 recorded when it was built.
    Both must be regular files (no links: a link to /dev/zero was read without end) of sane
    sizes; anything else is rebuilt (os.replace then replaces the entry itself)."""
    try:
        expected = _cache_file(_digest_path(lib), 128)
        with _open_regular(lib, MAX_LIBRARY) as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        return digest == expected.decode("ascii", "replace").strip()
    except OSError:
        return False


def _open_regular(path: Path, limit: int) -> io.BufferedReader:
    """`path` opened for reading if it is a regular file (not a link) of at most `limit` bytes;
    OSError otherwise. Checked on the open file, so it cannot be swapped in between."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        raise OSError(f"{path} is not a regular file of at most {limit} bytes")
    return os.fdopen(fd, "rb")


def _cache_file(path: Path, limit: int) -> bytes:
    with _open_regular(path, limit) as fh:
        return fh.read(limit)


class Cancelled(Exception):
    """The build was cancelled (its run ended first, chunks.py)."""


def _command(command: list[str], timeout: float, cancel: threading.Event | None) -> None:
    """Run one compiler command; killed (Cancelled) as soon as `cancel` is set."""
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        waited = 0.0
        while True:
            try:
                code = proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                waited += 0.05
                if (cancel is not None and cancel.is_set()) or waited > timeout:
                    proc.kill()
                    proc.wait()
                    if waited > timeout:
                        raise subprocess.TimeoutExpired(command, timeout) from None
                    raise Cancelled from None
    if code:
        raise subprocess.CalledProcessError(code, command)


def _build(
    cc: str,
    units: list[tuple[str, tuple[str, ...]]],
    lib: Path,
    timeout: float,
    cancel: threading.Event | None = None,
) -> None:
    """Compile the (source, flags) units in parallel, link them and put the library at lib
    (atomically, with its SHA-256 beside it)."""
    includes, libraries = solver_flags(units[0][0])
    lib.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="nlpmbd-cc-", dir=lib.parent) as tmp:
        jobs, objects = [], []
        for k, (text, flags) in enumerate(units):
            src, obj = Path(tmp, f"unit{k}.c"), Path(tmp, f"unit{k}.o")
            src.write_text(text)
            jobs.append([cc, *flags, *includes, "-c", str(src), "-o", str(obj)])
            objects.append(str(obj))

        def run(command: list[str]) -> None:
            _command(command, timeout, cancel)

        with ThreadPoolExecutor(min(_workers(), len(jobs))) as pool:
            list(pool.map(run, jobs))  # raises the first failure
        out = Path(tmp, lib.name)
        run([cc, "-shared", *objects, "-o", str(out), *libraries, "-lm"])
        digest = hashlib.sha256(out.read_bytes()).hexdigest()
        os.replace(out, lib)  # atomic: a concurrent run sees the whole library or none
        sums = Path(tmp, "lib.sha256")
        sums.write_text(digest)
        os.replace(sums, _digest_path(lib))


def _key(generated: str, cc: str) -> str:
    """The cache key of a library: the generated source, the compiler, and this module and
    codegen_source.py (the flags and how the source is edited and split before compiling: a
    cached library is found without those edits, ~0.1 s of a warm start at N = 32)."""
    modules = (Path(__file__), Path(__file__).with_name("codegen_source.py"))
    here = [hashlib.sha256(p.read_bytes()).hexdigest() for p in modules]
    return hashlib.sha256("\0".join([generated, cc, *here]).encode()).hexdigest()


@dataclass(frozen=True)
class Source:
    """A Function's generated C and the library it builds (`prepare`): plain data, so that a
    build may run in another thread while CasADi is busy in this one (CasADi releases the GIL
    in its calls, and its reference counts are not atomic: no CasADi object may be used in two
    threads at once)."""

    name: str
    generated: str
    lib: Path
    cc: str


def prepare(f: ca.Function) -> Source | str:
    """f's C source and library path, or why there is none (no compiler). CasADi: call it in
    the thread that evaluates f."""
    cc = find_compiler()
    if cc is None:
        return "no C compiler found"
    with tempfile.TemporaryDirectory(prefix="nlpmbd-cg-") as tmp:
        gen = ca.CodeGenerator("nlpmbd_chunk.c", {"with_header": False})
        gen.add(f)
        gen.generate(tmp + os.sep)
        generated = Path(tmp, "nlpmbd_chunk.c").read_text()
    return Source(
        f.name(), generated, cache_dir() / f"{f.name()}_{_key(generated, cc)[:20]}.so", cc
    )


def build_library(
    src: Source, timeout: float = 600.0, cancel: threading.Event | None = None
) -> str:
    """Compile src into its library unless the cache holds it: "cached", "compiled",
    "cancelled" or why it failed. No CasADi: safe in a thread of its own."""
    if _intact(src.lib):
        return "cached"
    source = warm_daqp(nonfatal_qp(src.generated))
    main, parts = split_source(source)
    split = [(main, CFLAGS), *((p, PART_FLAGS) for p in sorted(parts, key=len, reverse=True))]
    try:
        try:
            _build(src.cc, split, src.lib, timeout, cancel)
        except subprocess.CalledProcessError:  # the split did not compile: the whole file
            _build(src.cc, [(source, CFLAGS)], src.lib, timeout, cancel)
    except Cancelled:
        return "cancelled"
    except (OSError, subprocess.SubprocessError) as err:
        return f"compilation failed ({type(err).__name__})"
    return "compiled"


def load_library(f: ca.Function, src: Source, how: str) -> tuple[ca.Function, str]:
    """(the library's Function, how) where `how` built or found it, else (f, how). CasADi:
    call it in the thread that evaluates f."""
    if how not in ("compiled", "cached"):
        return f, how
    try:
        return ca.external(src.name, str(src.lib)), how
    except RuntimeError:
        return f, "compiled library could not be loaded"


def compile_function(
    f: ca.Function,
    timeout: float = 600.0,
    *,
    build: bool = True,
    cancel: threading.Event | None = None,
) -> tuple[ca.Function, str]:
    """(compiled f, how): how is "compiled", "cached", or why f is returned unchanged; with
    `build` False only a cached library is loaded ("not cached" otherwise); setting `cancel`
    stops a build ("cancelled")."""
    src = prepare(f)
    if isinstance(src, str):
        return f, src
    if not build and not _intact(src.lib):
        return f, "not cached"
    return load_library(f, src, build_library(src, timeout, cancel))
