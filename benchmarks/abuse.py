"""`python -m benchmarks.abuse [--python PYTHON] [--jobs N]`: bad inputs and damaged result files
against the command line, counted (issue 12's closing note). Not a test: it prints a table.

Each bad invocation runs `PYTHON -m nlpmbd ...` in a fresh temporary directory; it is CLEAN when
it exits 2 with exactly one stderr line "nlpmbd: error: ..." of fewer than 500 characters and no
traceback. Each damaged result directory (a short good run, then one damage) is REFUSED when
`plot DIR` (and, for a partial result, `run revolute --resume DIR`) exits 2 the same way.
--python selects the interpreter, so the code of another checkout (installed in its own
virtual environment) can be measured the same way. An entry may have a setup hook that writes
its input (a model file) into the temporary directory first. GOOD_LIMITS are inputs that must
run (exit 0). Each command gets at most MEMORY of address space and 600 s, so a reader that
allocates without limit fails instead of taking the machine.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

RUN = ["--t-end", "0.002", "--no-plot", "--quiet"]
#: Address space of each command (bytes).
MEMORY = 8 << 30
LONG = "x" * 100000

BAD: list[tuple[str, list[str]]] = [
    ("no command", []),
    ("unknown command", ["fly"]),
    ("run without case", ["run"]),
    ("unknown case", ["run", "no_such_case"]),
    ("huge case name", ["run", LONG]),
    ("--h negative", ["run", "pendulum", "--h", "-1e-3", *RUN]),
    ("--h zero", ["run", "pendulum", "--h", "0", *RUN]),
    ("--h nan", ["run", "pendulum", "--h", "nan", *RUN]),
    ("--h inf", ["run", "pendulum", "--h", "inf", *RUN]),
    ("--h text", ["run", "pendulum", "--h", "abc", *RUN]),
    ("--h with --h-min", ["run", "pendulum", "--h", "1e-3", "--h-min", "1e-3", *RUN]),
    ("--t-end 1e400", ["run", "pendulum", "--t-end", "1e400", "--no-plot", "--quiet"]),
    ("--t-end zero", ["run", "pendulum", "--t-end", "0", "--no-plot", "--quiet"]),
    ("--t-end negative", ["run", "pendulum", "--t-end", "-1", "--no-plot", "--quiet"]),
    ("--h-min > --h-max", ["run", "pendulum", "--h-min", "2e-3", "--h-max", "1e-3", *RUN]),
    ("--h-max > t_end", ["run", "pendulum", "--h", "5", *RUN]),
    ("--h-max inf", ["run", "pendulum", "--h-max", "inf", *RUN]),
    ("--formulation bad", ["run", "pendulum", "--formulation", "magic", *RUN]),
    ("--gap-correction bad", ["run", "pendulum", "--gap-correction", "some", *RUN]),
    ("--solver bad", ["run", "pendulum", "--solver", "lp", *RUN]),
    ("--solver qp variable h", ["run", "pendulum", "--solver", "qp", *RUN]),
    (
        "--qp-solver bad",
        ["run", "pendulum", "--h", "1e-3", "--solver", "qp", "--qp-solver", "gurobi", *RUN],
    ),
    ("--codegen bad", ["run", "pendulum", "--codegen", "yes", *RUN]),
    ("--codegen on with nlp", ["run", "pendulum", "--codegen", "on", *RUN]),
    ("--checkpoint-every 0", ["run", "pendulum", "--checkpoint-every", "0", *RUN]),
    ("--checkpoint-every -1", ["run", "pendulum", "--checkpoint-every", "-1", *RUN]),
    ("--checkpoint-every nan", ["run", "pendulum", "--checkpoint-every", "nan", *RUN]),
    ("--ipopt junk", ["run", "pendulum", "--ipopt", "junk", *RUN]),
    ("--ipopt max_iter=abc", ["run", "pendulum", "--ipopt", "max_iter=abc", *RUN]),
    ("--ipopt max_iter=2^32+1", ["run", "pendulum", "--ipopt", "max_iter=4294967297", *RUN]),
    ("--ipopt max_iter=1.5", ["run", "pendulum", "--ipopt", "max_iter=1.5", *RUN]),
    (
        "--ipopt max_iter=1e20",
        ["run", "pendulum", "--ipopt", "max_iter=99999999999999999999", *RUN],
    ),
    ("--ipopt linear_solver=ma57", ["run", "pendulum", "--ipopt", "linear_solver=ma57", *RUN]),
    ("--ipopt unknown", ["run", "pendulum", "--ipopt", "no_such_option=1", *RUN]),
    ("--ipopt tol=-1", ["run", "pendulum", "--ipopt", "tol=-1", *RUN]),
    ("--set malformed", ["run", "pendulum", "--set", "mass", *RUN]),
    ("--set empty", ["run", "pendulum", "--set", "mass=", *RUN]),
    ("--set twice", ["run", "pendulum", "--set", "mass=1", "--set", "mass=2", *RUN]),
    ("--set unknown", ["run", "pendulum", "--set", "lenght=1", *RUN]),
    ("--set huge key", ["run", "pendulum", "--set", LONG + "=1", *RUN]),
    ("--set huge value", ["run", "pendulum", "--set", "joint=" + LONG, *RUN]),
    ("clearance with ideal", ["run", "pendulum", "--set", "clearance=1e-4", *RUN]),
    ("axial_play with ideal", ["run", "pendulum", "--set", "axial_play=1e-4", *RUN]),
    (
        "pin_radius 1e300",
        ["run", "pendulum", "--set", "joint=clearance", "--set", "pin_radius=1e300", *RUN],
    ),
    (
        "restitution with ideal guide",
        ["run", "slider_crank_driven", "--set", "guide=ideal", "--set", "restitution=0.5", *RUN],
    ),
    ("--out is a file", ["run", "pendulum", *RUN, "--out", "FILE"]),
    ("--out under a file", ["run", "pendulum", *RUN, "--out", "FILE/run"]),
    ("--resume missing", ["run", "pendulum", "--resume", "missing", "--quiet"]),
    ("--resume not a result", ["run", "pendulum", "--resume", "EMPTY", "--quiet"]),
    ("--resume complete", ["run", "pendulum", "--resume", "GOOD", "--quiet"]),
    ("--resume with --set", ["run", "pendulum", "--resume", "GOOD", "--set", "mass=2"]),
    ("--overlay missing", ["run", "pendulum", *RUN, "--overlay", "missing"]),
    ("--overlay other case", ["run", "box_drop", *RUN, "--overlay", "GOOD"]),
    ("plot missing", ["plot", "missing"]),
    ("plot a file", ["plot", "FILE"]),
    ("plot not a result", ["plot", "EMPTY"]),
    ("study unknown", ["study", "nope"]),
    ("study bad set", ["study", "clearance-sweep", "--set", "clearances=a,b", "--out", "s"]),
    ("study unknown set", ["study", "step-ranges", "--set", "nope=1", "--out", "s"]),
    ("study --workers 0", ["study", "step-ranges", "--workers", "0", "--out", "s"]),
    ("study --workers -1", ["study", "step-ranges", "--workers", "-1", "--out", "s"]),
    ("study --out a file", ["study", "step-ranges", "--t-end", "0.01", "--out", "FILE"]),
    ("bench --repeats 0", ["bench", "--repeats", "0", "--out", "b"]),
    ("bench unknown case", ["bench", "--cases", "nope", "--out", "b"]),
    ("bench --t-end 0", ["bench", "--t-end", "0", "--out", "b"]),
]
#: Every case parameter: out of range, wrong type, not finite.
PARAMETER_VALUES = ("-1e300", "1e300", "nan", "inf", "abc", "")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: A model file (`run m.toml`): a pendulum on a pin with radial clearance and a torque; the
#: fields are replaced by the entries below. Names are TOML literal strings (no escapes).
MODEL = """[model]
name = "m"
[[bodies]]
name = '{body}'
mass = 1.0
inertia = [2e-3, 0.085, 0.085]
position = {position}
[[joints]]
type = "{joint_type}"
name = '{joint}'
hole = '{body}'
pin = "GROUND"
center = {center}
axis = [0.0, 0.0, 1.0]
length = {length}
hole_radius = {hole_radius}
pin_radius = 0.01
axial_play = {axial_play}
[[loads]]
type = "torque"
name = '{load}'
body = '{body}'
value = [0.0, 0.0, "{torque}"]
{extra}
[options]
t_end = 0.002
h_min = 0.001
h_max = 0.001
solver = "qp"
"""
MODEL_FIELDS = {
    "body": "arm", "position": "[0.5, 0.0, 0.0]", "joint_type": "revolute_clearance",
    "joint": "pin", "center": "[0.0, 0.0, 0.0]", "length": "0.05", "hole_radius": "0.0101",
    "axial_play": "0.0", "load": "push", "torque": "0.5 * sin(2 * pi * t)", "extra": "",
}  # fmt: skip
SPRING = """[[loads]]
type = "spring_damper"
name = "spring"
parent = "GROUND"
child = "arm"
point_parent = [0.5, 0.5, 0.0]
point_child = {point}
stiffness = 10.0
length0 = {length0}
"""
FORCE = '[[loads]]\ntype = "force"\nname = "f"\nbody = "arm"\nvalue = [{value}]\npoint = {point}\n'
RUN_M = ["run", "m.toml", "--no-plot", "--quiet"]


def _model(**fields):
    """A setup hook writing m.toml: MODEL with `fields` replaced."""
    text = MODEL.format(**(MODEL_FIELDS | fields))
    return lambda d: (d / "m.toml").write_text(text)


def _example(case: str, old: str, new: str):
    """A setup hook writing m.toml: examples/CASE.toml with `old` replaced by `new`."""

    def setup(d: Path) -> None:
        text = (EXAMPLES / f"{case}.toml").read_text()
        assert old in text, (case, old)
        (d / "m.toml").write_text(text.replace(old, new))

    return setup


def _many(section: str, count: int):
    """A setup hook writing m.toml with `count` [[bodies]] (or 2 bodies and `count` joints or
    loads): setting up 3000 bodies took minutes and GBs."""
    body = '[[bodies]]\nname = "b{k}"\nmass = 1.0\ninertia = [1e-3, 1e-3, 1e-3]\n'
    entry = {
        "joints": '[[joints]]\ntype = "spherical"\nname = "j{k}"\nparent = "GROUND"\n'
        'child = "b0"\npoint = [0.0, 0.0, 0.0]\n',
        "loads": '[[loads]]\ntype = "force"\nname = "f{k}"\nbody = "b0"\nvalue = [0.0, 1.0, 0.0]\n',
    }
    n_bodies = count if section == "bodies" else 2
    text = "".join(body.format(k=k) for k in range(n_bodies))
    if section != "bodies":
        text += "".join(entry[section].format(k=k) for k in range(count))
    return lambda d: (d / "m.toml").write_text(text + "[options]\nt_end = 0.002\n")


DRIVEN = ("slider_crank_driven", 'motion = "5000 * 2 * pi / 60 * t"')
#: Model files, study options (issue 34, items 6, 7, 9): model sizes, expression domain
#: errors, absurd geometry; entries with a setup hook that writes the model file first.
BAD_STUDY_LIMITS: list[tuple] = [
    ("model 3000 bodies", RUN_M, _many("bodies", 3000)),
    ("model 501 joints", RUN_M, _many("joints", 501)),
    ("model 501 loads", RUN_M, _many("loads", 501)),
    ("expression (-8)**(1/3)", RUN_M, _model(torque="(-8)**(1/3)")),
    ("expression (-1)**0.5", RUN_M, _model(torque="(-1)**0.5")),
    ("expression t*(-2.5)**1.5", RUN_M, _model(torque="t * (-2.5)**1.5")),
    ("expression max(t, (-2)**0.5)", RUN_M, _model(torque="max(t, (-2)**0.5)")),
    ("expression 1e200*1e200 - t", RUN_M, _model(torque="1e200 * 1e200 - t")),
    ("expression exp(1000)*t", RUN_M, _model(torque="exp(1000) * t")),
    ("expression log(-1)", RUN_M, _model(torque="log(-1)")),
    ("expression 10**400", RUN_M, _model(torque="10**400")),
    ("expression x*(-1)**0.5 (force)", RUN_M,
     _model(extra=FORCE.format(value='"x * (-1)**0.5", 0.0, 0.0', point="[0.0, 0.0, 0.0]"))),
    ("motion (-8)**(1/3)*t", RUN_M, _example(*DRIVEN, 'motion = "(-8)**(1/3) * t"')),
    ("motion sqrt(t - 1)", RUN_M, _example(*DRIVEN, 'motion = "sqrt(t - 1)"')),
    ("hole_radius 1e300", RUN_M, _model(hole_radius="1e300")),
    ("hole_radius 1e10", RUN_M, _model(hole_radius="1e10")),
    ("length 1e300", RUN_M, _model(length="1e300")),
    ("center 1e300", RUN_M, _model(center="[1e300, 0.0, 0.0]")),
    ("axial_play 1e300", RUN_M, _model(axial_play="1e300")),
    ("body position 1e300", RUN_M, _model(position="[1e300, 0.0, 0.0]")),
    ("body position -1e6", RUN_M, _model(position="[0.5, -1e6, 0.0]")),
    ("ideal pin point 1e300", RUN_M,
     _example("pendulum", "point = [0, 0, 0]", "point = [0, 1e300, 0]")),
    ("spring point 1e300", RUN_M, _model(extra=SPRING.format(point="[1e300, 0.0, 0.0]", length0=0.5))),
    ("spring length0 1e300", RUN_M, _model(extra=SPRING.format(point="[0.5, 0.0, 0.0]", length0="1e300"))),
    ("force point 1e300", RUN_M,
     _model(extra=FORCE.format(value="0.0, 1.0, 0.0", point="[1e300, 0.0, 0.0]"))),
    ("plane_contact point 1e300", RUN_M,
     _example("box_drop", "[-0.1, -0.05, -0.05],", "[-1e300, -0.05, -0.05],")),
    ("slider width 1e300", RUN_M, _example("slider_crank", "width = 0.05", "width = 1e300")),
    ("slider clearance 1e300", RUN_M,
     _example("slider_crank", "clearance = 0.001  # m", "clearance = 1e300")),
    ("prismatic length 1e300", RUN_M, _example("prismatic", "length = 0.1", "length = 1e300")),
    ("study --cluster notanaddress", ["study", "step-ranges", "--cluster", "notanaddress", "--out", "s"]),
    ("study --cluster empty", ["study", "step-ranges", "--cluster", "", "--out", "s"]),
    ("study --cluster nobody listening",
     ["study", "step-ranges", "--cluster", "tcp://127.0.0.1:1", "--out", "s"]),
    ("study --workers 1.5", ["study", "step-ranges", "--workers", "1.5", "--out", "s"]),
    ("study --workers abc", ["study", "step-ranges", "--workers", "abc", "--out", "s"]),
    ("study --workers and --cluster",
     ["study", "step-ranges", "--workers", "2", "--cluster", "tcp://127.0.0.1:1", "--out", "s"]),
    ("study --t-end nan", ["study", "step-ranges", "--t-end", "nan", "--out", "s"]),
    ("study --t-end -1", ["study", "step-ranges", "--t-end", "-1", "--out", "s"]),
    ("study --set clearances=-1", ["study", "clearance-sweep", "--set", "clearances=-1", "--out", "s"]),
]  # fmt: skip
#: Not bad: must run (exit 0) and draw their figures. Names with Matplotlib's $...$ markup
#: stopped the drawing with a traceback after the result was saved.
GOOD_LIMITS: list[tuple] = [
    ("body named $\\frac{a}$", ["run", "m.toml", "--quiet"], _model(body="$\\frac{a}$ arm")),
    ("joint named $\\sqrt{$", ["run", "m.toml", "--quiet"], _model(joint="$\\sqrt{$ pin")),
    ("load named $^$", ["run", "m.toml", "--quiet"], _model(load="$^$")),
    ("all named $x$", ["run", "m.toml", "--quiet"], _model(body="$x$", joint="$y$", load="$z$")),
]


def _parameters(python: str) -> list[tuple[str, list[str]]]:
    code = (
        "import json\n"
        "try:\n from nlpmbd.apps.registry import load_cases\n"
        "except ImportError:\n from nlpmbd.registry import load_cases\n"
        "print(json.dumps({n: [[p.name, p.kind.__name__] for p in c.parameters]"
        " for n, c in load_cases().items()}))"
    )
    cases = json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True,
                                      check=True).stdout)  # fmt: skip
    out = []
    for case in ("pendulum", "box_drop", "stick_slip", "slider_crank"):
        for name, kind in cases[case]:
            values = ("maybe", "") if kind == "str" else PARAMETER_VALUES
            if kind == "bool":
                values = ("maybe",)
            for value in values:
                out.append((f"{case} {name}={value[:8]}", ["run", case, "--set", f"{name}={value}",
                                                          *RUN]))  # fmt: skip
    return out


def _classify(proc: subprocess.CompletedProcess) -> tuple[bool, str]:
    lines = proc.stderr.strip().splitlines()
    clean = (
        proc.returncode == 2
        and len(lines) == 1
        and lines[0].startswith("nlpmbd: error:")
        and len(lines[0]) < 500
        and "Traceback" not in proc.stderr
    )
    last = lines[-1][:120] if lines else ""
    return clean, f"exit {proc.returncode}: {last}"


def _fixture(python: str, root: Path) -> None:
    """FILE, EMPTY and GOOD in root: a file, an empty directory and a completed result."""
    (root / "FILE").write_text("not a directory")
    (root / "EMPTY").mkdir()
    cmd = [python, "-m", "nlpmbd", "run", "revolute", "--t-end", "0.01", "--out", "GOOD", *RUN[2:]]
    subprocess.run(cmd, cwd=root, capture_output=True, check=True)


def _capped() -> None:
    """In each command: at most MEMORY of address space (a reader that allocates without limit
    fails instead of taking the machine's memory)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _command(python: str, argv: list[str], cwd: str | None = None) -> tuple[bool, str]:
    try:
        proc = subprocess.run([python, "-m", "nlpmbd", *argv], cwd=cwd, capture_output=True,
                              text=True, timeout=600, preexec_fn=_capped)  # fmt: skip
    except subprocess.TimeoutExpired:
        return False, "timeout: still running after 600 s"
    return _classify(proc)


def _bad(python: str, root: Path, argv: list[str], setup=None) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as d:
        for name in ("FILE", "EMPTY", "GOOD"):
            src = root / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, Path(d) / name)
        if setup is not None:  # e.g. a model file
            setup(Path(d))
        return _command(python, argv, d)


def _npz_edit(change):
    def edit(d: Path) -> None:
        with np.load(d / "result.npz") as data:
            arrays = {k: data[k] for k in data.files}
        change(arrays)
        np.savez_compressed(d / "result.npz", **arrays)

    return edit


def _meta_edit(change, both: bool = True):
    """An edit of meta.json, and of the copy inside result.npz when `both`."""

    def edit(d: Path) -> None:
        meta = json.loads((d / "meta.json").read_text())
        change(meta)
        text = json.dumps(meta, indent=2, sort_keys=True)
        (d / "meta.json").write_text(text)
        if both:
            _npz_edit(lambda a: a.update(meta_json=np.array(text)) if "meta_json" in a else None)(d)

    return edit


def _partial(meta: dict) -> None:
    meta["completed"] = False
    meta["resume"] = {"n_steps": meta["summary"]["steps"], "h_next": 1e-3, "counters": {}}


def _with(*changes):
    def change(meta):
        for c in changes:
            c(meta)

    return change


def _set(key, value):
    return lambda meta: meta.__setitem__(key, value)


def _set_resume(key, value):
    return lambda meta: meta["resume"].__setitem__(key, value)


DAMAGE = [
    ("truncated npz", lambda d: (d / "result.npz").write_bytes((d / "result.npz").read_bytes()[:500])),
    ("random bytes npz", lambda d: (d / "result.npz").write_bytes(bytes(range(256)) * 8)),
    ("empty npz", lambda d: (d / "result.npz").write_bytes(b"")),
    ("no result.npz", lambda d: (d / "result.npz").unlink()),
    ("meta.json not JSON", lambda d: (d / "meta.json").write_text("{nope")),
    ("meta.json a list", lambda d: (d / "meta.json").write_text("[1, 2]")),
    ("NaN in lam", _npz_edit(lambda a: a["lam"].__setitem__((1, 0), np.nan))),
    ("NaN in energy", _npz_edit(lambda a: a["energy"].__setitem__((1, 0), np.nan))),
    ("NaN in eom_residual", _npz_edit(lambda a: a["eom_residual"].__setitem__(0, np.nan))),
    ("inf in contact_force", _npz_edit(lambda a: a["contact_force"].__setitem__((1, 0, 0), np.inf))),
    ("inf in q", _npz_edit(lambda a: a["q"].__setitem__((1, 0), np.inf))),
    ("float32 q", _npz_edit(lambda a: a.update(q=a["q"].astype(np.float32)))),
    ("t not from 0", _npz_edit(lambda a: a.update(t=a["t"] + 1.0))),
    ("Euler parameters doubled", _npz_edit(lambda a: a["q"].__setitem__((1, slice(3, 7)), 2 * a["q"][1, 3:7]))),
    ("status 7", _npz_edit(lambda a: a["status"].__setitem__(0, 7))),
    ("negative h", _npz_edit(lambda a: a.update(h=-a["h"]))),
    ("unknown array", _npz_edit(lambda a: a.update(extra=np.ones(3)))),
    ("missing array", _npz_edit(lambda a: a.pop("gap"))),
    ("wrong q width", _npz_edit(lambda a: a.update(q=a["q"][:, :6]))),
    ("mass=2 in both copies", _meta_edit(lambda m: m["parameters"].__setitem__("mass", 2.0))),
    ("bodies renamed in meta.json only", _meta_edit(_set("bodies", ["x"]), both=False)),
    ("t past t_end (both copies)", _meta_edit(lambda m: m["options"].get("time", m["options"]).__setitem__("t_end", 1e-4))),
    ("parameters null", _meta_edit(_set("parameters", None))),
    ("joint_geometry 3", _meta_edit(_set("joint_geometry", 3))),
    ("resume.h_next -1", _meta_edit(_with(_partial, _set_resume("h_next", -1)))),
    ("resume.h_next text", _meta_edit(_with(_partial, _set_resume("h_next", "x")))),
    ("resume.n_steps wrong", _meta_edit(_with(_partial, _set_resume("n_steps", 1)))),
    ("resume.warm text", _meta_edit(_with(_partial, _set_resume("warm", {"x": ["a"]})))),
]  # fmt: skip


def _member(name: str, payload):
    """result.npz with member NAME.npy replaced by raw bytes: payload(arrays) -> bytes."""

    def edit(d: Path) -> None:
        path = d / "result.npz"
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        with zipfile.ZipFile(path) as zf:
            members = {i.filename: zf.read(i) for i in zf.infolist()}
        members[f"{name}.npy"] = payload(arrays)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for member, data in members.items():
                zf.writestr(member, data)

    return edit


def _header(descr: str, shape: tuple, data: bytes = b"") -> bytes:
    """A .npy member: a version 1.0 header declaring descr and shape, then `data`."""
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + data


def _link(name: str, target: str):
    def edit(d: Path) -> None:
        (d / name).unlink()
        (d / name).symlink_to(target)

    return edit


def _fifo(name: str):
    def edit(d: Path) -> None:
        (d / name).unlink()
        os.mkfifo(d / name)

    return edit


#: Crafted result files (issue 34, item 7): headers declaring huge arrays (a MemoryError in
#: every reader), a zip bomb, arrays of the wrong kind, files that are no regular files.
DAMAGE_LIMITS = [
    ("q header declares 1e12 rows", _member("q", lambda a: _header("<f8", (10**12, 7)))),
    ("lam header declares 1e9 x 1e9", _member("lam", lambda a: _header("<f8", (10**9, 10**9)))),
    ("h header declares 2**60 steps", _member("h", lambda a: _header("<f8", (2**60,)))),
    ("meta_json header declares 800 MB", _member("meta_json", lambda a: _header("<U200000000", ()))),
    ("t header declares a negative shape", _member("t", lambda a: _header("<f8", (-5,)))),
    ("q header larger than its data", _member("q", lambda a: _header(
        "<f8", (a["q"].shape[0] + 10**6, a["q"].shape[1]), a["q"].tobytes()))),
    ("zip bomb (q of 200 MB zeros)", _member("q", lambda a: _header(
        "<f8", (a["q"].shape[0], 25_000_000 // a["q"].shape[0]),
        bytes(8 * a["q"].shape[0] * (25_000_000 // a["q"].shape[0]))))),
    ("q complex128", _npz_edit(lambda a: a.update(q=a["q"].astype(np.complex128)))),
    ("q big-endian float64", _npz_edit(lambda a: a.update(q=a["q"].astype(">f8")))),
    ("q as text", _npz_edit(lambda a: a.update(q=a["q"].astype(str)))),
    ("q as Python objects", _member("q", lambda a: _header("|O", a["q"].shape, b"\x80\x04N."))),
    ("status as float64", _npz_edit(lambda a: a.update(status=a["status"].astype(np.float64)))),
    ("result.npz a link to /dev/zero", _link("result.npz", "/dev/zero")),
    ("meta.json a link to /dev/zero", _link("meta.json", "/dev/zero")),
    ("result.npz a FIFO", _fifo("result.npz")),
    ("meta.json a FIFO", _fifo("meta.json")),
]  # fmt: skip
#: Not damage: must load.
HARMLESS = [
    ("meta.json re-indented", lambda d: (d / "meta.json").write_text(
        json.dumps(json.loads((d / "meta.json").read_text()), indent=7))),
    ("leftover temporary file", lambda d: (d / ".result.npz.abc123.tmp").write_bytes(b"part")),
    ("meta.json missing", lambda d: (d / "meta.json").unlink()),
]  # fmt: skip


def _damaged(python: str, root: Path, damage) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "r"
        shutil.copytree(root / "GOOD", d)
        damage(d)
        results = []
        for argv in (["plot", str(d)], ["run", "revolute", "--resume", str(d), "--quiet"]):
            results.append(_command(python, argv, tmp))  # not in a checkout: --python's nlpmbd
        ok = all(r[0] for r in results)
        return ok, "; ".join(r[1] for r in results)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.abuse")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="nlpmbd-abuse-"))
    _fixture(args.python, root)
    bad = BAD + BAD_STUDY_LIMITS + _parameters(args.python)
    with ThreadPoolExecutor(args.jobs) as pool:
        inputs = list(pool.map(lambda item: (item[0], *_bad(args.python, root, *item[1:])), bad))
        damage = list(
            pool.map(
                lambda item: (item[0], *_damaged(args.python, root, item[1])),
                DAMAGE + DAMAGE_LIMITS,
            )
        )
        runs = list(pool.map(lambda item: (item[0], *_bad(args.python, root, *item[1:])), GOOD_LIMITS))  # fmt: skip
        harmless = list(pool.map(lambda item: (item[0], *_damaged(args.python, root, item[1])), HARMLESS))  # fmt: skip
    for title, rows, good in (
        ("bad inputs", inputs, "clean"),
        ("damaged files", damage, "refused"),
    ):
        print(f"\n{title}:")
        for name, ok, what in rows:
            if not ok:
                print(f"  NOT {good}: {name}: {what}")
    wrongly = [name for name, ok, what in harmless if "exit 0" not in what.split(";")[0]]
    print(f"\nbad inputs clear: {sum(ok for _, ok, _ in inputs)} / {len(inputs)}")
    print(f"damaged result files refused: {sum(ok for _, ok, _ in damage)} / {len(damage)}")
    print(f"harmless changes refused (false alarms): {len(wrongly)} / {len(harmless)} {wrongly}")
    failing = [f"{name} ({what})" for name, _, what in runs if not what.startswith("exit 0")]
    print(f"good inputs that did not run: {len(failing)} / {len(runs)} {failing}")
    if args.json:
        args.json.write_text(json.dumps({"inputs": inputs, "damage": damage, "harmless": harmless,
                                         "good": runs}))  # fmt: skip
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
