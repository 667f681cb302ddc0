"""`python -m benchmarks.abuse [--python PYTHON] [--jobs N]`: bad inputs and damaged result files
against the command line, counted (issue 12's closing note). Not a test: it prints a table.

Each bad invocation runs `PYTHON -m nlpmbd ...` in a fresh temporary directory; it is CLEAN when
it exits 2 with exactly one stderr line "nlpmbd: error: ..." of fewer than 500 characters and no
traceback. Each damaged result directory (a short good run, then one damage) is REFUSED when
`plot DIR` (and, for a partial result, `run revolute --resume DIR`) exits 2 the same way.
--python selects the interpreter, so the code of another checkout (installed in its own
virtual environment) can be measured the same way.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

RUN = ["--t-end", "0.002", "--no-plot", "--quiet"]
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


def _bad(python: str, root: Path, argv: list[str]) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as d:
        for name in ("FILE", "EMPTY", "GOOD"):
            src = root / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, Path(d) / name)
        proc = subprocess.run([python, "-m", "nlpmbd", *argv], cwd=d, capture_output=True,
                              text=True, timeout=600)  # fmt: skip
        return _classify(proc)


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
            proc = subprocess.run([python, "-m", "nlpmbd", *argv], capture_output=True,
                                  text=True, timeout=600)  # fmt: skip
            results.append(_classify(proc))
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
    bad = BAD + _parameters(args.python)
    with ThreadPoolExecutor(args.jobs) as pool:
        inputs = list(pool.map(lambda item: (item[0], *_bad(args.python, root, item[1])), bad))
        damage = list(
            pool.map(lambda item: (item[0], *_damaged(args.python, root, item[1])), DAMAGE)
        )
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
    if args.json:
        args.json.write_text(json.dumps({"inputs": inputs, "damage": damage, "harmless": harmless}))
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
