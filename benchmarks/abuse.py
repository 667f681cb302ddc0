"""`python -m benchmarks.abuse [--python PYTHON] [--jobs N]`: bad inputs and damaged result files
against the command line, counted (issue 12's closing note). Not a test: it prints a table.

Each bad invocation runs `PYTHON -m nlpmbd ...` in a fresh temporary directory; it is CLEAN when
it exits 2 with exactly one stderr line "nlpmbd: error: ..." of fewer than 500 characters and no
traceback, or, for an entry with a check of its own (a Probe, benchmarks/abuse_output.py), when
that check passes (e.g. a planted link not followed: exit 0, its target untouched). Each damaged result directory (a short good run, then one damage) is REFUSED when
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
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .abuse_output import (
    EXAMPLE,
    VICTIM,
    Probe,
    csv_headers_safe,
    directory,
    edit_model,
    fifo,
    figure_list,
    hard_link,
    in_result,
    ipopt_opt,
    link,
    named_model,
    no_ipopt_log,
    plot_keeps_everything,
    plot_refused_victim_kept,
    predictable_temporaries,
    pvd_valid,
    quiet_success,
    resealed,
    resume_refused,
    victim_kept,
)

RUN = ["--t-end", "0.002", "--no-plot", "--quiet"]
#: Longest a command may take (s): one that runs a whole bench instead of refusing its input
#: is a failure, not a hang of the corpus.
TIMEOUT = 600
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
    # (solver qp with an h range is no longer refused: the QP steps at h_max, issue 19)
    (
        "--qp-solver bad",
        ["run", "pendulum", "--h", "1e-3", "--solver", "qp", "--qp-solver", "gurobi", *RUN],
    ),
    ("--codegen bad", ["run", "pendulum", "--codegen", "yes", *RUN]),
    ("--codegen on with nlp", ["run", "pendulum", "--solver", "nlp", "--codegen", "on", *RUN]),
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
    ("fmu unknown output", ["fmu", "pendulum", "-o", "m.fmu", "--output", "pendulum.q"]),
    ("fmu --out not .fmu", ["fmu", "pendulum", "-o", "m.zip"]),
    ("fmu --step 0", ["fmu", "pendulum", "-o", "m.fmu", "--step", "0"]),
    ("fmu robot file", ["fmu", "robot.urdf", "-o", "m.fmu"]),
]
LONG_NAME = "x" * 300
#: Write into X; the folder with its files planted by the probe.
EXPORT_X = ["export", "GOOD", "--out", "X", "--format"]
#: Issue 34 (nothing mixed, nothing overwritten): empty and overlong paths, paths that are bad
#: input, planted links (refused, or replaced but never followed: checked), ipopt.opt, model
#: files edited before --resume, body names that are formulas or break XML, solver banners.
#: A third item, a Probe (benchmarks/abuse_output.py), prepares the folder and may judge.
BAD_OUTPUT: list[tuple] = [
    ("run --out ''", ["run", "pendulum", *RUN, "--out", ""]),
    ("export --out ''", ["export", "GOOD", "--format", "csv", "--out", ""]),
    ("export DIR ''", ["export", "", "--format", "csv"]),
    ("plot DIR ''", ["plot", ""]),
    ("plot --overlay ''", ["plot", "GOOD", "--overlay", ""]),
    ("animate --out ''", ["animate", "GOOD", "--out", ""]),
    ("animate DIR ''", ["animate", ""]),
    ("run --resume ''", ["run", "pendulum", "--resume", ""]),
    ("run --overlay ''", ["run", "pendulum", *RUN, "--overlay", ""]),
    ("study --out ''", ["study", "step-ranges", "--out", ""]),
    ("bench --out ''", ["bench", "--out", "", "--repeats", "1", "--cases", "pendulum", "--t-end", "0.002"]),
    ("run --out name too long", ["run", "pendulum", *RUN, "--out", LONG_NAME]),
    ("export --out name too long", [*EXPORT_X[:3], LONG_NAME, "--format", "csv"]),
    ("animate --out name too long", ["animate", "GOOD", "--out", LONG_NAME + ".html"]),
    ("new name too long", ["new", LONG_NAME + ".toml"]),
    ("fmu --out ''", ["fmu", "pendulum", "-o", ""]),
    ("fmu --out a folder", ["fmu", "pendulum", "-o", "EMPTY"]),
    ("new into a missing folder", ["new", "missing/model.toml"]),
    ("new under a file", ["new", "FILE/model.toml"]),
    ("new --force onto a pipe", ["new", "pipe.toml", "--force"], Probe(fifo("pipe.toml"))),
    ("animate --out a folder", ["animate", "GOOD", "--out", "EMPTY"]),
    ("animate --out a pipe", ["animate", "GOOD", "--out", "p.html"], Probe(fifo("p.html"))),
    ("animate --gif onto a folder", ["animate", "GOOD", "--gif"], Probe(directory("GOOD/animation.gif"))),
    ("export hdf5 onto a folder", [*EXPORT_X, "hdf5"], Probe(directory("X/result.h5"))),
    ("export csv onto a folder", [*EXPORT_X, "csv"], Probe(directory("X/q.csv"))),
    ("export vtk: frames a pipe", [*EXPORT_X, "vtk"], Probe(fifo("X/frames"))),
    ("plot: a figure name a folder", ["plot", "GOOD"], Probe(directory("GOOD/energy.png"))),
    ("run: lock a link", ["run", "pendulum", *RUN, "--out", "D"], Probe(link("D/.nlpmbd.lock"), victim_kept(2))),
    ("run: lock a hard link", ["run", "pendulum", *RUN, "--out", "D"], Probe(hard_link("D/.nlpmbd.lock"), victim_kept(2))),
    ("run --compare: its lock a link", ["run", "pendulum", *RUN, "--out", "D", "--compare", "mass=2"], Probe(link("D-2/.nlpmbd.lock"), victim_kept(2))),
    ("plot: lock a link", ["plot", "GOOD"], Probe(link("GOOD/.nlpmbd.lock"), victim_kept(2))),
    ("export: lock a link", [*EXPORT_X, "csv"], Probe(link("X/.nlpmbd.lock"), victim_kept(2))),
    ("run: result.npz a link", ["run", "pendulum", *RUN, "--out", "D"], Probe(link("D/result.npz"), victim_kept())),
    ("run: a figure a link", ["run", "pendulum", "--t-end", "0.002", "--quiet", "--out", "D"], Probe(link("D/energy.png"), victim_kept())),
    ("plot: a figure a link", ["plot", "GOOD"], Probe(link("GOOD/energy.png"), victim_kept())),
    ("export hdf5: result.h5 a link", [*EXPORT_X, "hdf5"], Probe(link("X/result.h5"), victim_kept())),
    ("export hdf5: its temporary names linked", [*EXPORT_X, "hdf5"], Probe(predictable_temporaries("X"), victim_kept())),
    ("export csv: q.csv a link", [*EXPORT_X, "csv"], Probe(link("X/q.csv"), victim_kept())),
    ("export vtk: frames a link", [*EXPORT_X, "vtk"], Probe(link("X/frames", folder=True), victim_kept())),
    ("export vtk: result.pvd a link", [*EXPORT_X, "vtk"], Probe(link("X/result.pvd"), victim_kept())),
    ("animate: the page a link", ["animate", "GOOD"], Probe(link("GOOD/animation.html"), victim_kept())),
    ("animate: the GIF a link", ["animate", "GOOD", "--gif"], Probe(link("GOOD/animation.gif"), victim_kept())),
    ("new --force: the file a link", ["new", "model.toml", "--force"], Probe(link("model.toml"), victim_kept())),
    ("ipopt.opt in the working folder", ["run", "pendulum", "--set", "joint=clearance", "--no-predictor", *RUN, "--out", "R"], Probe(ipopt_opt, no_ipopt_log)),
    ("ipopt.opt with --ipopt options", ["run", "pendulum", "--ipopt", "max_iter=50", "--no-predictor", *RUN, "--out", "R"], Probe(ipopt_opt, no_ipopt_log)),
    ("--resume: mass edited", ["run", "pendulum.toml", "--resume", "PARTIAL_FILE", "--quiet"], Probe(edit_model("mass = 1.0", "mass = 2.0"))),
    ("--resume: inertia edited", ["run", "pendulum.toml", "--resume", "PARTIAL_FILE", "--quiet"], Probe(edit_model("0.085, 0.085]", "0.085, 0.086]"))),
    ("--resume: gravity edited", ["run", "pendulum.toml", "--resume", "PARTIAL_FILE", "--quiet"], Probe(edit_model("-9.81", "-3.7"))),
    ("--resume: joint axis edited", ["run", "pendulum.toml", "--resume", "PARTIAL_FILE", "--quiet"], Probe(edit_model("axis = [0, 0, 1]", "axis = [0, 0, -1]"))),
    ("--resume: built-in case on a model file's run", ["run", "pendulum", "--resume", "PARTIAL_FILE", "--quiet"]),
    ("--resume: model file on the built-in case's run", ["run", "pendulum.toml", "--resume", "PARTIAL_CASE", "--quiet"]),
    ("body named =HYPERLINK(1)", ["run", "named.toml", *RUN, "--out", "R"], Probe(named_model("=HYPERLINK(1)", "b"), csv_headers_safe)),
    ("body named +cmd", ["run", "named.toml", *RUN, "--out", "R"], Probe(named_model("+cmd", "b"), csv_headers_safe)),
    ("body named -x", ["run", "named.toml", *RUN, "--out", "R"], Probe(named_model("a", "-x"), csv_headers_safe)),
    ("body named @SUM(A1)", ["run", "named.toml", *RUN, "--out", "R"], Probe(named_model("@SUM(A1)", "b"), csv_headers_safe)),
    ("body named ---", ["run", "named.toml", *RUN, "--out", "R"], Probe(named_model("---", "a-"), pvd_valid)),
    ("body named -->", ["run", "named.toml", *RUN, "--out", "R"], Probe(named_model("x--", "-->"), pvd_valid)),
    ("qpOASES banner, NLP path", ["run", "spatial_slider_crank", "--t-end", "0.01", "--qp-solver", "qpoases", *RUN[2:], "--out", "R"], Probe(check=quiet_success)),
    ("qpOASES banner, Verlet", ["run", "spatial_slider_crank", "--t-end", "0.01", "--qp-solver", "qpoases", "--integrator", "verlet", *RUN[2:], "--out", "R"], Probe(check=quiet_success)),
]  # fmt: skip
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
#: The flexible examples (issue 33 item 3), for _example(*SS_FLEX, old, new).
SS_FLEX, SCM_FLEX = ("stick_slip_flexible",), ("slider_crank_moment_flexible",)
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
    # stops and backlash on ideal joints (issue 32 item 1)
    ("gear backlash 1e300", RUN_M, _example("gear_backlash", "backlash = 0.002", "backlash = 1e300")),
    ("gear backlash nan", RUN_M, _example("gear_backlash", "backlash = 0.002", "backlash = nan")),
    ("gear radius1 off the centres", RUN_M, _example("gear_backlash", "radius1 = 0.05", "radius1 = 0.06")),
    ("gear on GROUND", RUN_M, _example("gear_backlash", 'gear2 = "gear2"', 'gear2 = "GROUND"')),
    ("revolute_backlash backlash 4", RUN_M, _example("pendulum", 'type = "revolute"',
     'type = "revolute_backlash"\nbacklash = 4.0')),
    ("revolute_limits lower > 0", RUN_M, _example("pendulum", 'type = "revolute"',
     'type = "revolute_limits"\nlower = 0.1\nupper = 0.2')),
    # impact laws and contact materials (issue 32 item 3)
    ("impact law stronge", RUN_M, _example("bead_column", "restitution = 1.0 }",
     'restitution = 1.0, impact = "stronge" }')),
    ("impact law poisson on the NLP path", [*RUN_M, "--solver", "nlp"],
     _example("bead_column", "restitution = 1.0 }", 'restitution = 1.0, impact = "poisson" }')),
    ("materials pair mu -1", RUN_M,
     _model(extra='[materials]\n[[materials.pairs]]\nbetween = ["a", "b"]\nmu = -1\n')),
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
    # a model file's [parameters] (issue 33): examples/revolute.toml declares clearance, axial_play, mu
    ("param: --set wrong type", [*RUN_M, "--set", "clearance=abc"], _example("revolute", "", "")),
    ("param: --set out of range", [*RUN_M, "--set", "clearance=0.5"], _example("revolute", "", "")),
    ("param: --set nan", [*RUN_M, "--set", "mu=nan"], _example("revolute", "", "")),
    ("param: --set unknown name", [*RUN_M, "--set", "length=1"], _example("revolute", "", "")),
    ("param: --compare unknown name", [*RUN_M, "--compare", "length=1"], _example("revolute", "", "")),
    ("param: --compare out of range", [*RUN_M, "--compare", "mu=5"], _example("revolute", "", "")),
    ("param: default wrong type", RUN_M, _example("revolute", "default = 0.0001\ndescription = \"radial", "default = \"abc\"\ndescription = \"radial")),
    ("param: default out of range", RUN_M, _example("revolute", "default = 0.0001\ndescription = \"radial", "default = 1.0\ndescription = \"radial")),
    ("param: unknown type", RUN_M, _example("revolute", "high = 2.0\n", "high = 2.0\ntype = \"real\"\n")),
    ("param: no description", RUN_M, _example("revolute", "description = \"Coulomb friction coefficient at the pin's contacts\"\n", "")),
    ("param: unknown key", RUN_M, _example("revolute", "high = 2.0\n", "high = 2.0\nstep = 0.1\n")),
    ("param: a number, not a table", RUN_M, _example("revolute", "[parameters.mu]\n", "[parameters]\nmu = 0.0\n[parameters.nu]\n")),
    ("param: undefined $name", RUN_M, _example("revolute", '"$mu"', '"$friction"')),
    ("param: lone $", RUN_M, _example("revolute", '"0.01 + $clearance"', '"0.01 + $"')),
    ("param: bad arithmetic", RUN_M, _example("revolute", '"0.01 + $clearance"', '"0.01 + $clearance +"')),
    ("param: str into a number", RUN_M, _example("revolute", '"0.01 + $clearance"', '"$clearance m"')),
    ("param: --set a parameter used nowhere", [*RUN_M, "--set", "mu=0.1"], _example("revolute", '"$mu"', "0.0")),
    ("study: model file missing", ["study", "clearance-sweep", "--set", "case=none.toml", "--out", "s"]),
    ("study: model file without clearance", ["study", "clearance-sweep", "--set", "case=m.toml", "--out", "s"],
     _example("revolute", '"0.01 + $clearance"', "0.0101")),
    # flexible bodies in model files (issue 33 item 3): [[flexible_bodies]], node joints, point loads
    ("flex: elements text", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', 'elements = "many"')),
    ("flex: elements 2.5", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', "elements = 2.5")),
    ("flex: elements 0", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', "elements = 0")),
    ("flex: elements 1e300", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', "elements = 1e300")),
    ("flex: elements_x 0", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', "elements_x = 0\nelements_y = 2")),
    ("flex: elements_y missing", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', "elements_x = 2")),
    ("flex: elements and elements_x", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', 'elements = "$elements"\nelements_x = 2')),
    ("flex: 10000 x 100 elements", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', "elements_x = 10000\nelements_y = 100")),
    ("flex: 40 x 40 elements", RUN_M, _example(*SS_FLEX, 'elements = "$elements"', "elements_x = 40\nelements_y = 40")),
    ("flex: --set elements=0", [*RUN_M, "--set", "elements=0"], _example(*SS_FLEX, "", "")),
    ("flex: --set elements=1e9", [*RUN_M, "--set", "elements=1e9"], _example(*SS_FLEX, "", "")),
    ("flex: --set elements=abc", [*RUN_M, "--set", "elements=abc"], _example(*SS_FLEX, "", "")),
    ("flex: --set youngs_modulus=-5", [*RUN_M, "--set", "youngs_modulus=-5"], _example(*SS_FLEX, "", "")),
    ("flex: youngs_modulus true", RUN_M, _example(*SS_FLEX, 'youngs_modulus = "$youngs_modulus"', "youngs_modulus = true")),
    ("flex: youngs_modulus nan", RUN_M, _example(*SS_FLEX, 'youngs_modulus = "$youngs_modulus"', "youngs_modulus = nan")),
    ("flex: poisson_ratio 0.6", RUN_M, _example(*SS_FLEX, "poisson_ratio = 0.3", "poisson_ratio = 0.6")),
    ("flex: width 1e300", RUN_M, _example(*SS_FLEX, "width = 0.6", "width = 1e300")),
    ("flex: width -0.6", RUN_M, _example(*SS_FLEX, "width = 0.6", "width = -0.6")),
    ("flex: areal_density -1", RUN_M, _example(*SS_FLEX, "areal_density = 0.33333333333333337", "areal_density = -1")),
    ("flex: density and areal_density", RUN_M, _example(*SS_FLEX, "areal_density = 0.33333333333333337", "areal_density = 0.3\ndensity = 0.3")),
    ("flex: no density", RUN_M, _example(*SS_FLEX, "areal_density = 0.33333333333333337", "")),
    ("flex: rayleigh_beta -1", RUN_M, _example(*SS_FLEX, "rayleigh_beta = 0.544", "rayleigh_beta = -1.0")),
    ("flex: position 1e300", RUN_M, _example(*SS_FLEX, "position = [-0.3,", "position = [-1e300,")),
    ("flex: position 2 entries", RUN_M, _example(*SS_FLEX, 'position = [-0.3, "-0.25 - $clearance", 0.0]', "position = [-0.3, -0.2525]")),
    ("flex: lumping text", RUN_M, _example(*SS_FLEX, "rayleigh_beta = 0.544", 'rayleigh_beta = 0.544\nlumping = "heavy"')),
    ("flex: unknown key", RUN_M, _example(*SS_FLEX, "rayleigh_beta = 0.544", "rayleigh_beta = 0.544\ncolour = 1")),
    ("flex: named GROUND", RUN_M, _example(*SS_FLEX, 'name = "slider"', 'name = "GROUND"')),
    ("flex: name of a rigid body", RUN_M, _example(*SCM_FLEX, 'name = "slider"', 'name = "crank"')),
    ("flex: not an array of tables", RUN_M, _example(*SS_FLEX, "[[flexible_bodies]]", "[flexible_bodies]")),
    ("flex: node index 99", RUN_M, _example(*SCM_FLEX, "point = [0.25, 0.15] }", "index = 99 }")),
    ("flex: node index -1", RUN_M, _example(*SCM_FLEX, "point = [0.25, 0.15] }", "index = -1 }")),
    ("flex: node index text", RUN_M, _example(*SCM_FLEX, "point = [0.25, 0.15] }", 'index = "4" }')),
    ("flex: node index 1e300", RUN_M, _example(*SCM_FLEX, "point = [0.25, 0.15] }", "index = 1e300 }")),
    ("flex: node point between nodes", RUN_M, _example(*SCM_FLEX, "point = [0.25, 0.15] }", "point = [0.1, 0.15] }")),
    ("flex: node point 1e300", RUN_M, _example(*SCM_FLEX, "point = [0.25, 0.15] }", "point = [1e300, 0.15] }")),
    ("flex: node point text", RUN_M, _example(*SCM_FLEX, "point = [0.25, 0.15] }", 'point = "centre" }')),
    ("flex: odd mesh, no centre node", [*RUN_M, "--set", "elements=6"], _example(*SCM_FLEX, "", "")),
    ("flex: node of an unknown body", RUN_M, _example(*SCM_FLEX, 'node = { body = "slider"', 'node = { body = "strip"')),
    ("flex: node a string", RUN_M, _example(*SCM_FLEX, 'node = { body = "slider", point = [0.25, 0.15] }', 'node = "slider[4]"')),
    ("flex: node and nodes", RUN_M, _example(*SCM_FLEX, 'node = { body = "slider"', 'nodes = { body = "slider", face = "left" }\nnode = { body = "slider"')),
    ("flex: nodes face bottom", RUN_M, _example(*SS_FLEX, 'face = "lower"', 'face = "bottom"')),
    ("flex: nodes index 36", RUN_M, _example(*SS_FLEX, 'face = "lower"', "index = [0, 36]")),
    ("flex: nodes index empty", RUN_M, _example(*SS_FLEX, 'face = "lower"', "index = []")),
    ("flex: nodes on a rigid body", RUN_M, _example(*SCM_FLEX, 'nodes = { body = "slider", face = "lower" }', 'nodes = { body = "crank", face = "lower" }')),
    ("flex: pin to the flexible body itself", RUN_M, _example(*SCM_FLEX, 'body = "rod"\nnode', 'body = "slider"\nnode')),
    ("flex: node contact normal out of plane", RUN_M, _example(*SS_FLEX, "normal = [0.0, 1.0, 0.0]", "normal = [0.0, 0.0, 1.0]")),
    ("flex: node contact normal zero", RUN_M, _example(*SS_FLEX, "normal = [0.0, 1.0, 0.0]", "normal = [0.0, 0.0, 0.0]")),
    ("flex: node contact on a flexible guide", RUN_M, _example(*SS_FLEX, 'guide = "GROUND"', 'guide = "slider"')),
    ("flex: point load outside the strip", RUN_M, _example(*SS_FLEX, "point = [0.6, 0.45]", "point = [0.7, 0.45]")),
    ("flex: point load point 1e300", RUN_M, _example(*SS_FLEX, "point = [0.6, 0.45]", "point = [1e300, 0.45]")),
    ("flex: point load value 3 entries", RUN_M, _example(*SS_FLEX, '"$amplitude * sin($frequency * t)", 0.0]', '"$amplitude * sin($frequency * t)", 0.0, 0.0]')),
    ("flex: point load value nan", RUN_M, _example(*SS_FLEX, '"$amplitude * sin($frequency * t)", 0.0]', "nan, 0.0]")),
    ("flex: point load value log(-1)", RUN_M, _example(*SS_FLEX, '"$amplitude * sin($frequency * t)", 0.0]', '"log(-1) * t", 0.0]')),
    ("flex: point load on a rigid body", RUN_M, _example(*SCM_FLEX, 'type = "torque"\nname = "crank_moment"\nbody = "crank"\nvalue = [0.0, 0.0, "$amplitude * sin($frequency * t)"]  # N m, global axes\nframe = "global"', 'type = "point_load"\nname = "crank_moment"\nbody = "crank"\npoint = [0.0, 0.0]\nvalue = ["$amplitude * t", 0.0]')),
    ("flex: rigid force on the strip", RUN_M, _example(*SCM_FLEX, 'body = "crank"\nvalue', 'body = "slider"\nvalue')),
]  # fmt: skip
#: Not bad: must run (exit 0) and draw their figures. Names with Matplotlib's $...$ markup
#: stopped the drawing with a traceback after the result was saved.
GOOD_LIMITS: list[tuple] = [
    ("body named $\\frac{a}$", ["run", "m.toml", "--quiet"], _model(body="$\\frac{a}$ arm")),
    ("joint named $\\sqrt{$", ["run", "m.toml", "--quiet"], _model(joint="$\\sqrt{$ pin")),
    ("load named $^$", ["run", "m.toml", "--quiet"], _model(load="$^$")),
    ("all named $x$", ["run", "m.toml", "--quiet"], _model(body="$x$", joint="$y$", load="$z$")),
    ("[parameters] set", [*RUN_M[:2], "--quiet", "--set", "clearance=1e-3", "--set", "mu=0.1"],
     _example("revolute", "t_end = 5.0", "t_end = 0.002")),
    ("flexible slider-crank, mesh set", [*RUN_M[:2], "--quiet", "--set", "elements=8", "--compare", "youngs_modulus=1e4"],
     _example("slider_crank_moment_flexible", "t_end = 30.0", "t_end = 0.005")),
]  # fmt: skip


def _parameters(python: str) -> list[tuple[str, list[str]]]:
    code = (
        "import json\n"
        "try:\n from nlpmbd.apps.registry import load_cases\n"
        "except ImportError:\n from nlpmbd.registry import load_cases\n"
        "print(json.dumps({n: [[p.name, p.kind.__name__] for p in c.parameters]"
        " for n, c in load_cases().items()}))"
    )
    cases = json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True,
                                      cwd=tempfile.gettempdir(), check=True).stdout)  # fmt: skip
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


#: What every bad invocation finds in its folder (_fixture).
FIXTURE = ("FILE", "EMPTY", "GOOD", "pendulum.toml", "PARTIAL_FILE", "PARTIAL_CASE")


def _fixture(python: str, root: Path) -> None:
    """FILE, EMPTY and GOOD in root: a file, an empty directory and a completed result; the
    model file pendulum.toml and interrupted runs of it (PARTIAL_FILE) and of the built-in case
    pendulum (PARTIAL_CASE)."""
    (root / "FILE").write_text("not a directory")
    (root / "EMPTY").mkdir()
    cmd = [python, "-m", "nlpmbd", "run", "revolute", "--t-end", "0.01", "--out", "GOOD", *RUN[2:]]
    subprocess.run(cmd, cwd=root, capture_output=True, check=True)
    shutil.copy(EXAMPLE, root / "pendulum.toml")
    for out, model in (("PARTIAL_FILE", "pendulum.toml"), ("PARTIAL_CASE", "pendulum")):
        _interrupted(python, root, model, out)


def _interrupted(python: str, root: Path, model: str, out: str) -> None:
    """`run MODEL --out OUT` stopped by Ctrl-C after its first checkpoint."""
    argv = ["run", model, "--t-end", "0.6", "--checkpoint-every", "1e-9", "--out", out, *RUN[2:]]
    proc = subprocess.Popen([python, "-m", "nlpmbd", *argv], cwd=root, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not (root / out / "meta.json").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=300)


def _capped() -> None:
    """In each command: at most MEMORY of address space (a reader that allocates without limit
    fails instead of taking the machine's memory)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _run(python: str, argv: list[str], cwd: str | Path) -> subprocess.CompletedProcess:
    """One command, capped (MEMORY) and bounded (TIMEOUT: subprocess.TimeoutExpired)."""
    return subprocess.run([python, "-m", "nlpmbd", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=TIMEOUT, preexec_fn=_capped)  # fmt: skip


def _bad(python: str, root: Path, argv: list[str], extra=None) -> tuple[bool, str]:
    """`extra`: a Probe (setup and check of its own) or a setup callable (e.g. a model file)."""
    probe = extra if isinstance(extra, Probe) else Probe(setup=extra) if extra else None
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for name in FIXTURE:
            src = root / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, d / name)
        if probe is not None and probe.setup is not None:
            probe.setup(d)
        try:
            proc = _run(python, argv, d)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {TIMEOUT} s"
        if probe is not None and probe.check is not None:
            return probe.check(d, proc, python)
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
#: The interpreter under test (main sets it), for damage that needs nlpmbd (a matching checksum).
PYTHON = [sys.executable]
#: Issue 34: planted lock and figure files, figure lists naming what they may not, results
#: whose model source --resume must refuse. A third item judges both commands itself.
DAMAGE_OUTPUT: list[tuple] = [
    ("lock a link to a user file", in_result(link, ".nlpmbd.lock"), plot_refused_victim_kept),
    ("lock a hard link to a user file", in_result(hard_link, ".nlpmbd.lock"), plot_refused_victim_kept),
    ("lock a pipe", in_result(fifo, ".nlpmbd.lock")),
    ("figure list a folder", in_result(directory, ".nlpmbd-figures")),
    ("a figure name a folder", in_result(directory, "energy.png")),
    ("figure list names result.npz, meta.json", figure_list(b'["result.npz", "meta.json"]'), plot_keeps_everything),
    ("figure list names ../VICTIM", figure_list(b'["../VICTIM", "../VICTIM.png"]'), plot_keeps_everything),
    ("figure list names an absolute path", lambda d: figure_list(json.dumps([str(d.parent / VICTIM)]).encode())(d), plot_keeps_everything),
    ("figure list names with NUL", figure_list(b'["energy.png\\u0000", "a\\u0000.png"]'), plot_keeps_everything),
    ("figure list raw NUL bytes", figure_list(b"[\x00\x00]"), plot_keeps_everything),
    ("figure list a link to a user file", in_result(link, ".nlpmbd-figures"), plot_keeps_everything),
    ("a figure a link to a user file", in_result(link, "energy.png"), plot_keeps_everything),
    ("partial without a model source", resealed(PYTHON, source=None), resume_refused),
    ("partial of a model file", resealed(PYTHON, source={"kind": "model file", "name": "revolute", "file": "revolute.toml", "sha256": "0" * 64}), resume_refused),
    ("partial of an unknown source kind", resealed(PYTHON, source={"kind": "plugin", "name": "revolute"}), resume_refused),
    ("contact_soft text (resealed)", resealed(PYTHON, contact_soft="x")),
    ("contact_soft without compliant_scales (resealed)", resealed(PYTHON, compliant_scales=None)),
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


def _damaged(python: str, root: Path, damage, check=None) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "r"
        shutil.copytree(root / "GOOD", d)
        damage(d)
        procs = []
        for argv in (["plot", str(d)], ["run", "revolute", "--resume", str(d), "--quiet"]):
            try:
                # cwd: not a checkout, whose nlpmbd `-m` would import instead of PYTHON's
                procs.append(_run(python, argv, tmp))
            except subprocess.TimeoutExpired:
                return False, f"{argv[0]} timed out after {TIMEOUT} s"
        if check is not None:
            return check(d, procs, python)
        results = [_classify(proc) for proc in procs]
        ok = all(r[0] for r in results)
        return ok, "; ".join(r[1] for r in results)


#: The corpus's parts, for the per-part counts (bad inputs by list, damaged files by list).
PARTS = ("BAD", "BAD_OUTPUT", "BAD_STUDY_LIMITS", "parameters")
DAMAGE_PARTS = ("DAMAGE", "DAMAGE_OUTPUT", "DAMAGE_LIMITS")


def corpus(python: str, jobs: int) -> dict[str, list]:
    """Every entry run against `python`: {part: [(name, ok, what)]} (and "harmless", "good")."""
    PYTHON[0] = python
    root = Path(tempfile.mkdtemp(prefix="nlpmbd-abuse-"))
    try:
        _fixture(python, root)
        lists = dict(
            zip(PARTS, (BAD, BAD_OUTPUT, BAD_STUDY_LIMITS, _parameters(python)), strict=True)
        )
        lists.update(zip(DAMAGE_PARTS, (DAMAGE, DAMAGE_OUTPUT, DAMAGE_LIMITS), strict=True))
        out: dict[str, list] = {}
        with ThreadPoolExecutor(jobs) as pool:
            for part, items in lists.items():
                run = _damaged if part in DAMAGE_PARTS else _bad
                out[part] = list(pool.map(lambda item, run=run: (item[0], *run(python, root, *item[1:])), items))  # fmt: skip
            out["good"] = list(pool.map(lambda item: (item[0], *_bad(python, root, *item[1:])), GOOD_LIMITS))  # fmt: skip
            out["harmless"] = list(pool.map(lambda item: (item[0], *_damaged(python, root, item[1])), HARMLESS))  # fmt: skip
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _counts(rows: dict[str, list]) -> dict[str, str]:
    """ "ok / total" per part and in sum (bad inputs clean, damaged files refused), false alarms
    and good inputs that did not run."""

    def frac(parts):
        entries = [r for p in parts for r in rows[p]]
        return f"{sum(ok for _, ok, _ in entries)} / {len(entries)}"

    out = {p: frac([p]) for p in (*PARTS, *DAMAGE_PARTS)}
    out["bad inputs clean"] = frac(PARTS)
    out["damaged files refused"] = frac(DAMAGE_PARTS)
    wrongly = [n for n, _, what in rows["harmless"] if "exit 0" not in what.split(";")[0]]
    out["harmless changes refused"] = f"{len(wrongly)} / {len(rows['harmless'])}"
    failing = [n for n, _, what in rows["good"] if not what.startswith("exit 0")]
    out["good inputs that did not run"] = f"{len(failing)} / {len(rows['good'])}"
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.abuse")
    p.add_argument("--python", default=sys.executable)
    p.add_argument(
        "--before", metavar="PYTHON", help="an interpreter with an earlier nlpmbd: counts of both"
    )
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    after = corpus(args.python, args.jobs)
    for part in (*PARTS, *DAMAGE_PARTS, "good", "harmless"):
        for name, ok, what in after[part]:
            if not ok and part not in ("good", "harmless"):
                print(
                    f"  NOT {'refused' if part in DAMAGE_PARTS else 'clean'}: {part}: {name}: {what}"
                )
    counts = {"after": _counts(after)}
    if args.before:
        counts = {"before": _counts(corpus(args.before, args.jobs)), **counts}
    print("\n| | " + " | ".join(counts) + " |")
    print("|---" * (len(counts) + 1) + "|")
    for key in counts["after"]:
        print(f"| {key} | " + " | ".join(c[key] for c in counts.values()) + " |")
    if args.json:
        args.json.write_text(json.dumps({"after": after, "counts": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
