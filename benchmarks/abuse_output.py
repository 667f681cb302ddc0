"""The adversarial corpus's cases of issue 34 ("nothing mixed, nothing overwritten"): what a
bad input or a damaged result directory needs beyond its command line. benchmarks/abuse.py
lists them (BAD_OUTPUT, DAMAGE_OUTPUT) and runs them.

A `Probe` prepares the temporary directory a command runs in (`setup(d)`: plant a link, a
pipe, a file) and may judge the outcome itself (`check(d, proc, python)` -> (ok, what)) where
the right outcome is not a clean refusal, e.g. a planted link that is simply not followed: exit
0 and the link's target untouched. A damaged result directory may have such a check too,
`check(d, procs, python)`, given the processes of `plot DIR` and `run revolute --resume DIR`.
"""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: What a planted link points at: a file of the user's that nothing may change.
VICTIM = "VICTIM"
SECRET = "a file of the user's\n"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum.toml"


@dataclass(frozen=True)
class Probe:
    setup: Callable[[Path], None] | None = None
    check: Callable[[Path, subprocess.CompletedProcess, str], tuple[bool, str]] | None = None


def _victim(d: Path) -> Path:
    victim = d / VICTIM
    if not victim.exists():
        victim.write_text(SECRET)
    return victim


def _untouched(d: Path) -> bool:
    return _same(d / VICTIM)


def _same(path: Path) -> bool:
    """`path` still holds the victim's content (False if removed or replaced)."""
    try:
        return path.read_bytes() == SECRET.encode()
    except OSError:
        return False


def _outcome(proc: subprocess.CompletedProcess) -> str:
    lines = proc.stderr.strip().splitlines()
    return f"exit {proc.returncode}: {lines[-1][:120] if lines else ''}"


def link(where: str, *, folder: bool = False) -> Callable[[Path], None]:
    """A symbolic link at d/where to the victim file (or to a folder holding it)."""

    def setup(d: Path) -> None:
        target = _victim(d)
        if folder:
            target = d / "VICTIM_DIR"
            target.mkdir(exist_ok=True)
            (target / "bodies_0.vtu").write_text(SECRET)
        path = d / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        path.symlink_to(target)

    return setup


def hard_link(where: str) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        path = d / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        os.link(_victim(d), path)

    return setup


def directory(where: str) -> Callable[[Path], None]:
    return lambda d: (d / where).mkdir(parents=True, exist_ok=True)


def fifo(where: str) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        (d / where).parent.mkdir(parents=True, exist_ok=True)
        (d / where).unlink(missing_ok=True)
        os.mkfifo(d / where)

    return setup


def predictable_temporaries(where: str, count: int = 400) -> Callable[[Path], None]:
    """Links at d/where/.result.h5.PID.tmp for the next `count` process ids (the name the HDF5
    export used to write through)."""

    def setup(d: Path) -> None:
        last = int(Path("/proc/sys/kernel/ns_last_pid").read_text())
        (d / where).mkdir(parents=True, exist_ok=True)
        for pid in range(last + 1, last + 1 + count):
            (d / where / f".result.h5.{pid}.tmp").symlink_to(_victim(d))

    return setup


def setups(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        for step in steps:
            step(d)

    return setup


def victim_kept(exit_code: int = 0) -> Callable[..., tuple[bool, str]]:
    """The command exits `exit_code` (2: refused in one clean line) and the victim (and the
    folder of victims) is unchanged."""

    def check(d: Path, proc: subprocess.CompletedProcess, python: str) -> tuple[bool, str]:
        lines = proc.stderr.strip().splitlines()
        ok = proc.returncode == exit_code and _untouched(d) and "Traceback" not in proc.stderr
        if exit_code == 2:
            ok = ok and len(lines) == 1 and lines[0].startswith("nlpmbd: error:")
        folder = d / "VICTIM_DIR"
        if folder.exists():
            ok = ok and [p.name for p in folder.iterdir()] == ["bodies_0.vtu"]
            ok = ok and _same(folder / "bodies_0.vtu")
        return ok, f"{_outcome(proc)}; victim {'kept' if _untouched(d) else 'CHANGED'}"

    return check


def quiet_success(d: Path, proc: subprocess.CompletedProcess, python: str) -> tuple[bool, str]:
    """Exit 0 and nothing printed (a --quiet run)."""
    ok = proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    return ok, f"{_outcome(proc)}; {len(proc.stdout.splitlines())} stdout lines"


def no_ipopt_log(d: Path, proc: subprocess.CompletedProcess, python: str) -> tuple[bool, str]:
    ok = proc.returncode == 0 and not (d / "ipopt-log.txt").exists() and proc.stdout == ""
    return ok, f"{_outcome(proc)}; ipopt.opt's log {'written' if not ok else 'not written'}"


def ipopt_opt(d: Path) -> None:
    (d / "ipopt.opt").write_text(f"output_file {d / 'ipopt-log.txt'}\nprint_level 12\n")


#: Two bodies on pins; their names are filled in.
NAMED = """[model]
name = "named"
[[bodies]]
name = "{0}"
mass = 1.0
inertia = [0.002, 0.085, 0.085]
position = [0.5, 0.0, 0.0]
[[bodies]]
name = "{1}"
mass = 1.0
inertia = [0.002, 0.085, 0.085]
position = [1.5, 0.0, 0.0]
[[joints]]
type = "revolute"
name = "pin"
parent = "GROUND"
child = "{0}"
point = [0, 0, 0]
axis = [0, 0, 1]
[[joints]]
type = "revolute"
name = "elbow"
parent = "{0}"
child = "{1}"
point = [1, 0, 0]
axis = [0, 0, 1]
"""


def named_model(first: str, second: str) -> Callable[[Path], None]:
    return lambda d: (d / "named.toml").write_text(NAMED.format(first, second))


def _export(d: Path, python: str, fmt: str) -> subprocess.CompletedProcess:
    argv = ["-m", "nlpmbd", "export", "R", "--format", fmt, "--out", fmt]
    return subprocess.run([python, *argv], cwd=d, capture_output=True, text=True, timeout=600)


def csv_headers_safe(d: Path, proc: subprocess.CompletedProcess, python: str) -> tuple[bool, str]:
    """After `run named.toml --out R`: the CSV export's headers start with no = + - @."""
    if proc.returncode != 0:
        return False, _outcome(proc)
    export = _export(d, python, "csv")
    if export.returncode != 0:
        return False, f"export {_outcome(export)}"
    header = (d / "csv" / "q.csv").read_text().splitlines()[0]
    bad = [c for c in header.split(",") if c[:1] in "=+-@"]
    return not bad, f"exit 0; formula-like headers: {bad[:2]}"


def pvd_valid(d: Path, proc: subprocess.CompletedProcess, python: str) -> tuple[bool, str]:
    """After `run named.toml --out R`: the VTK export's .pvd is well-formed XML."""
    if proc.returncode != 0:
        return False, _outcome(proc)
    export = _export(d, python, "vtk")
    if export.returncode != 0:
        return False, f"export {_outcome(export)}"
    try:
        ET.parse(d / "vtk" / "result.pvd")
    except ET.ParseError as err:
        return False, f"result.pvd is not XML: {err}"
    return True, "exit 0; result.pvd parses"


def edit_model(old: str, new: str) -> Callable[[Path], None]:
    """The model file pendulum.toml edited after its run PARTIAL_FILE was interrupted."""

    def setup(d: Path) -> None:
        path = d / "pendulum.toml"
        path.write_text(path.read_text().replace(old, new, 1))

    return setup


# ---- damaged result directories --------------------------------------------------------------


def figure_list(content: bytes) -> Callable[[Path], None]:
    """DIR/.nlpmbd-figures with this content, and a victim beside DIR."""

    def damage(d: Path) -> None:
        _victim(d.parent)
        (d / ".nlpmbd-figures").write_bytes(content)

    return damage


def in_result(make: Callable[[str], Callable[[Path], None]], name: str) -> Callable[[Path], None]:
    """`make(NAME)`'s setup planted in the result folder d, its victim beside d."""
    return lambda d: make(f"{d.name}/{name}")(d.parent)


def plot_keeps_everything(
    d: Path, procs: list[subprocess.CompletedProcess], python: str
) -> tuple[bool, str]:
    """`plot DIR` exits 0 and removes neither the result nor the victim beside DIR."""
    plot = procs[0]
    kept = (d / "result.npz").exists() and (d / "meta.json").exists() and _untouched(d.parent)
    ok = plot.returncode == 0 and kept and "Traceback" not in plot.stderr
    return ok, f"plot {_outcome(plot)}; result and victim {'kept' if kept else 'NOT kept'}"


def plot_refused_victim_kept(
    d: Path, procs: list[subprocess.CompletedProcess], python: str
) -> tuple[bool, str]:
    """Both commands refused in one clean line; the victim beside DIR unchanged."""
    ok = _untouched(d.parent)
    for proc in procs:
        lines = proc.stderr.strip().splitlines()
        ok = ok and proc.returncode == 2 and len(lines) == 1
        ok = ok and lines[0].startswith("nlpmbd: error:") and "Traceback" not in proc.stderr
    return ok, "; ".join(_outcome(p) for p in procs)


def resume_refused(
    d: Path, procs: list[subprocess.CompletedProcess], python: str
) -> tuple[bool, str]:
    """A valid result (plot exits 0) that `--resume` must refuse in one clean line."""
    plot, resume = procs
    lines = resume.stderr.strip().splitlines()
    ok = plot.returncode == 0 and resume.returncode == 2 and len(lines) == 1
    ok = ok and lines[0].startswith("nlpmbd: error:") and "Traceback" not in resume.stderr
    return ok, "; ".join(_outcome(p) for p in procs)


#: Rewrites a result with its metadata changed and a matching checksum (what a careful editor
#: would do), run by the interpreter under test: argv = DIR, JSON {key: value or null}.
RESEAL = """
import json, sys
import numpy as np
from nlpmbd.io.files import EMBEDDED_META, checksum
d, changes = sys.argv[1], json.loads(sys.argv[2])
with np.load(d + "/result.npz", allow_pickle=False) as data:
    arrays = {k: data[k] for k in data.files}
meta = json.loads(str(arrays.pop(EMBEDDED_META)))
for key, value in changes.items():
    if value is None:
        meta.pop(key, None)
    else:
        meta[key] = value
if "resume" in changes:
    meta["completed"] = False
meta.pop("digest", None)
meta["digest"] = checksum(meta, arrays)
text = json.dumps(meta, indent=2, sort_keys=True)
np.savez_compressed(d + "/result.npz", **arrays, **{EMBEDDED_META: np.array(text)})
open(d + "/meta.json", "w").write(text)
"""


def resealed(python: list[str], **changes: object) -> Callable[[Path], None]:
    """A partial result (a resume block) with these metadata changes, its checksum matching;
    `python` holds the interpreter under test (set by abuse.main)."""

    def damage(d: Path) -> None:
        meta = json.loads((d / "meta.json").read_text())
        steps = meta["summary"]["steps"]
        full = {"resume": {"n_steps": steps, "h_next": 1e-3, "counters": {}}, **changes}
        cmd = [python[0], "-c", RESEAL, str(d), json.dumps(full)]
        subprocess.run(cmd, cwd=d.parent, check=True, capture_output=True, timeout=300)

    return damage
