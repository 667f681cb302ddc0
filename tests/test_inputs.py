"""Input hardening (issue 7, part 3): every entry point rejects bad input with InputError and a
one-line message naming the parameter; none lets another exception (a traceback) through.

1. A table of bad inputs to the Python API (bodies, joints, loads, System, case parameters,
   options, assembly), to result loading (missing, unreadable and tampered files) and to the
   command line, each with a fragment of its message.
2. Property-based tests (hypothesis) of the validators: scalars, arrays, options, axes,
   inertia, polygons of the prismatic clearance joint and --set values.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import casadi as ca
import numpy as np
import pytest
from fixtures import reseal
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull, QhullError

from nlpmbd import (
    GROUND,
    Case,
    Force,
    InputError,
    Parameter,
    RigidBody,
    SimulationOptions,
    SimulationResult,
    System,
    Torque,
    simulate,
)
from nlpmbd.apps.cli import main
from nlpmbd.apps.registry import get_case
from nlpmbd.model.case import resolve_parameters
from nlpmbd.validation import ZERO_LENGTH, finite_array, finite_scalar
from nlpmbd_joints import (
    CylindricalClearance,
    CylindricalJoint,
    DrivingAngle,
    DrivingCoordinate,
    FixedJoint,
    PlaneContact,
    PrismaticClearance,
    PrismaticJoint,
    RevoluteClearance,
    RevoluteJoint,
    SphericalJoint,
)

#: Small, fast and reproducible: the same examples on every run, no database in the work tree.
PROPERTY = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

Z = (0.0, 0.0, 1.0)
ORIGIN = (0.0, 0.0, 0.0)
TRIANGLE = [(0.0, -0.03), (0.026, 0.015), (-0.026, 0.015)]


def body(name: str = "b", **kw) -> RigidBody:
    return RigidBody(name, 1.0, (1e-2, 1e-2, 1e-2), **kw)


def system_with(*names: str) -> tuple[System, list[RigidBody]]:
    s = System()
    return s, [s.add_body(body(n)) for n in names]


def short_run(s: System):
    return simulate(s, SimulationOptions(t_end=0.01, h_min=1e-3, h_max=1e-3))


# --- system-level bad inputs --------------------------------------------------------------------
def duplicate_spherical():
    s, (b,) = system_with("b")
    s.add_joint(SphericalJoint("ball1", GROUND, b, (0.1, 0.0, 0.0)))
    s.add_joint(SphericalJoint("ball2", b, GROUND, (0.1, 0.0, 0.0)))  # same point, swapped


def duplicate_revolute_on_one_line():
    s, (b,) = system_with("b")
    s.add_joint(RevoluteJoint("pin1", GROUND, b, ORIGIN, Z))
    s.add_joint(RevoluteJoint("pin2", GROUND, b, (0.0, 0.0, 0.3), (0.0, 0.0, -2.0)))


def duplicate_weld():
    s, (a, b) = system_with("a", "b")
    s.add_joint(FixedJoint("weld1", a, b, ORIGIN))
    s.add_joint(FixedJoint("weld2", a, b, (1.0, 0.0, 0.0)))


def duplicate_drive():
    s, (b,) = system_with("b")
    s.add_joint(DrivingAngle("drive1", GROUND, b, lambda t: t))
    s.add_joint(DrivingAngle("drive2", GROUND, b, lambda t: 2 * t))


def duplicate_body_name():
    s, _ = system_with("b")
    s.add_body(body("b"))


def duplicate_joint_name():
    s, (a, b) = system_with("a", "b")
    s.add_joint(SphericalJoint("j", GROUND, a, ORIGIN))
    s.add_joint(SphericalJoint("j", a, b, (1.0, 0.0, 0.0)))


def joint_on_foreign_body():
    s, _ = system_with("a")
    s.add_joint(SphericalJoint("j", GROUND, body("stranger"), ORIGIN))


def load_on_foreign_body():
    s, _ = system_with("a")
    s.add_load(Force(body("stranger"), (0.0, 1.0, 0.0), name="F"))


def box_below_floor():
    s = System()
    box = s.add_body(body("box", position=(0.0, 0.01, 0.0)))
    s.add_joint(PlaneContact("floor", box, [(0.05, -0.05, 0.0), (-0.05, -0.05, 0.0)]))
    short_run(s)


def drive_not_at_zero():
    s, (b,) = system_with("b")
    s.add_joint(RevoluteJoint("pin", GROUND, b, ORIGIN, Z))
    s.add_joint(DrivingAngle("drive", GROUND, b, lambda t: 0.3 + t))
    short_run(s)


def slider_drive_not_at_zero():
    s, (b,) = system_with("b")
    s.add_joint(PrismaticJoint("rail", GROUND, b, ORIGIN, (1.0, 0.0, 0.0)))
    s.add_joint(DrivingCoordinate("push", GROUND, b, lambda t: 0.1 + t, ORIGIN, (1.0, 0.0, 0.0)))
    short_run(s)


PENDULUM = get_case("pendulum")

BAD_API = [
    # (id, action that must raise InputError, fragment of the one-line message)
    # bodies
    ("body-named-ground", lambda: RigidBody("ground", 1.0, (1, 1, 1)), "reserved"),
    ("body-name-blank", lambda: RigidBody("  ", 1.0, (1, 1, 1)), "body name"),
    ("body-name-two-lines", lambda: RigidBody("arm\nleft", 1.0, (1, 1, 1)), "on one line"),
    ("mass-bool", lambda: RigidBody("b", True, (1, 1, 1)), "b.mass must be a number"),
    ("mass-inf", lambda: RigidBody("b", math.inf, (1, 1, 1)), "b.mass must be finite"),
    ("mass-huge-int", lambda: RigidBody("b", 10**400, (1, 1, 1)), "b.mass must be finite"),
    ("mass-zero", lambda: RigidBody("b", 0.0, (1, 1, 1)), "b.mass must be in (0.0, inf)"),
    ("inertia-text", lambda: RigidBody("b", 1.0, ("a", "b", "c")), "b.inertia must be a 3x3"),
    ("inertia-ragged", lambda: RigidBody("b", 1.0, [[1.0], [1.0, 2.0]]), "b.inertia"),
    ("inertia-dict", lambda: RigidBody("b", 1.0, {"xx": 1.0}), "b.inertia"),
    ("inertia-nan", lambda: RigidBody("b", 1.0, (1.0, math.nan, 1.0)), "b.inertia must be finite"),
    (
        "inertia-asymmetric",
        lambda: RigidBody("b", 1.0, [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]),
        "symmetric",
    ),
    ("inertia-negative", lambda: RigidBody("b", 1.0, (1.0, -1.0, 1.0)), "positive definite"),
    ("inertia-triangle", lambda: RigidBody("b", 1.0, (1.0, 1.0, 3.0)), "J1 + J2 >= J3"),
    ("position-2d", lambda: body(position=(0.0, 0.0)), "b.position must have shape (3,)"),
    ("velocity-nan", lambda: body(velocity=(math.nan, 0, 0)), "b.velocity must be finite"),
    ("omega-bools", lambda: body(angular_velocity=[True, False, True]), "b.angular_velocity"),
    ("orientation-not-unit", lambda: body(orientation=(1, 1, 0, 0)), "unit Euler parameters"),
    ("orientation-huge", lambda: body(orientation=(1e200, 1e200, 0, 0)), "unit Euler parameters"),
    ("orientation-text", lambda: body(orientation="1000"), "b.orientation must be numeric"),
    # joints: types, NaN/inf, zero-length axes, degenerate geometry
    ("joint-name-none", lambda: RevoluteJoint(None, GROUND, body(), ORIGIN), "joint name"),
    ("joint-name-dot", lambda: SphericalJoint("hip.l", GROUND, body(), ORIGIN), "'.'"),
    ("joint-parent-text", lambda: RevoluteJoint("j", "ground", body(), ORIGIN), "j.parent"),
    ("joint-same-bodies", lambda: SphericalJoint("j", GROUND, GROUND, ORIGIN), "different bodies"),
    ("axis-zero", lambda: RevoluteJoint("j", GROUND, body(), ORIGIN, (0, 0, 0)), "j.axis"),
    (
        "axis-near-zero",
        lambda: CylindricalJoint("j", GROUND, body(), ORIGIN, (1e-13, 0, 0)),
        "j.axis",
    ),
    ("axis-inf", lambda: PrismaticJoint("j", GROUND, body(), ORIGIN, (0, math.inf, 0)), "j.axis"),
    ("point-nan", lambda: FixedJoint("j", GROUND, body(), (0, math.nan, 0)), "j.point"),
    (
        "pin-larger-than-hole",
        lambda: RevoluteClearance("j", body(), GROUND, ORIGIN, Z, 0.05, 0.01, 0.0101, 0.0),
        "j.hole_radius must be > pin_radius",
    ),
    (
        "hole-radius-text",
        lambda: CylindricalClearance("j", body(), GROUND, ORIGIN, Z, 0.05, "0.02", 0.01),
        "j.hole_radius must be a number",
    ),
    (
        "ends-on-array",
        lambda: CylindricalClearance("j", body(), GROUND, ORIGIN, Z, 0.05, 0.02, 0.01, np.ones(2)),
        "j.ends_on must be 'pin' or 'hole'",
    ),
    (
        "clearance-axis-near-zero",
        lambda: RevoluteClearance("j", body(), GROUND, ORIGIN, (0, 1e-20, 0), 0.05, 0.02, 0.01, 0),
        "j.axis must be a non-zero 3-vector",
    ),
    (
        "polygon-l-shape",
        lambda: PrismaticClearance(
            "j",
            GROUND,
            body(),
            ORIGIN,
            Z,
            [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)],
            0.1,
            1e-3,
        ),
        "convex",
    ),
    (
        "polygon-nan",
        lambda: PrismaticClearance(
            "j", GROUND, body(), ORIGIN, Z, [(0, 0), (1, math.nan), (0, 1)], 0.1, 1e-3
        ),
        "j.vertices must be finite",
    ),
    (
        "polygon-huge-int",
        lambda: PrismaticClearance(
            "j", GROUND, body(), ORIGIN, Z, [(0, 0), (10**400, 0), (0, 1)], 0.1, 1e-3
        ),
        "j.vertices must be an (N, 2) array",
    ),
    (
        "section-x-along-axis",
        lambda: PrismaticClearance("j", GROUND, body(), ORIGIN, Z, TRIANGLE, 0.1, 1e-3, Z),
        "j.section_x",
    ),
    ("plane-on-ground", lambda: PlaneContact("floor", GROUND, [ORIGIN]), "floor.body"),
    ("plane-points-text", lambda: PlaneContact("floor", body(), "corners"), "floor.points"),
    ("plane-points-empty", lambda: PlaneContact("floor", body(), []), "floor.points"),
    (
        "plane-points-coincide",
        lambda: PlaneContact("floor", body(), [(0, -0.1, 0), (0.1, 0, 0), (0, -0.1, 0)]),
        "points 0 and 2 coincide",
    ),
    (
        "plane-normal-zero",
        lambda: PlaneContact("floor", body(), [ORIGIN], normal=(0, 0, 0)),
        "normal",
    ),
    ("motion-not-callable", lambda: DrivingAngle("d", GROUND, body(), 0.5), "d.motion"),
    ("motion-math-sin", lambda: DrivingAngle("d", GROUND, body(), math.sin), "not math.sin"),
    ("motion-no-argument", lambda: DrivingAngle("d", GROUND, body(), lambda: 0.0), "d.motion"),
    (
        "motion-vector",
        lambda: DrivingCoordinate("d", GROUND, body(), lambda t: ca.vertcat(t, t), ORIGIN),
        "d.motion must return a scalar",
    ),
    # loads
    ("force-on-ground", lambda: Force(GROUND, (0, 1, 0), name="F"), "F.body"),
    ("force-value-2d", lambda: Force(body(), (0, 1), name="F"), "F.value"),
    ("force-frame", lambda: Force(body(), (0, 1, 0), frame="local", name="F"), "F.frame"),
    ("force-name", lambda: Force(body(), (0, 1, 0), name=3), "force name"),
    ("force-math-sin", lambda: Force(body(), lambda t, s: [0, math.sin(t), 0], name="F"), "finite"),
    ("force-2-vector", lambda: Force(body(), lambda t, s: [t, t], name="F"), "3-vector"),
    (
        "force-raises",
        lambda: Force(body(), lambda t, s: s.no_such_attribute, name="F"),
        "AttributeError",
    ),
    ("torque-nan", lambda: Torque(body(), (0, 0, math.nan), name="T"), "T.value must be finite"),
    # System
    ("gravity-text", lambda: System(gravity="down"), "gravity"),
    ("add-body-text", lambda: System().add_body("box"), "add_body expects a RigidBody"),
    ("add-bodies-number", lambda: System().add_bodies(3), "add_bodies expects a list"),
    ("duplicate-body-name", duplicate_body_name, "already used"),
    ("duplicate-joint-name", duplicate_joint_name, "already used"),
    ("joint-body-not-added", joint_on_foreign_body, "not added to the system"),
    ("load-body-not-added", load_on_foreign_body, "not in the system"),
    ("coincident-spherical", duplicate_spherical, "duplicates joint 'ball1'"),
    ("revolute-same-line", duplicate_revolute_on_one_line, "same axis line"),
    ("second-weld", duplicate_weld, "duplicates joint 'weld1'"),
    ("second-drive", duplicate_drive, "parallel axes"),
    ("no-bodies", lambda: short_run(System()), "no bodies"),
    # initial configuration (checked by the stepper before the first step)
    ("start-penetrating", box_below_floor, "start penetrating at contact floor.point"),
    ("drive-not-assembled", drive_not_at_zero, "violates joint constraint drive.angle"),
    ("coordinate-not-assembled", slider_drive_not_at_zero, "violates joint constraint push"),
    # case parameters (the Python side of --set)
    ("param-unknown", lambda: PENDULUM.resolve({"lenght": 1.0}), "unknown parameter 'lenght'"),
    ("param-text", lambda: PENDULUM.resolve({"mass": "heavy"}), "parameter mass must be float"),
    ("param-bool", lambda: PENDULUM.resolve({"mass": True}), "parameter mass"),
    ("param-choice", lambda: PENDULUM.resolve({"joint": 3}), "parameter joint"),
    ("param-huge-int", lambda: PENDULUM.resolve({"mass": 10**400}), "parameter mass"),
    ("param-overrides-list", lambda: PENDULUM.resolve([("mass", 2.0)]), "must be a mapping"),
    ("param-key-not-text", lambda: resolve_parameters((), {1: 2}, "case x"), "unknown parameter"),
    ("param-kind", lambda: Parameter("x", 1, "d", kind=list), "kind must be one of"),
    ("param-low-high", lambda: Parameter("x", 1.0, "d", low=2.0, high=0.0), "low must be <= high"),
    ("param-default", lambda: Parameter("x", -1.0, "d", low=0.0), "parameter x must be float"),
    ("param-choices-kind", lambda: Parameter("x", 1.0, "d", choices=("a",)), "choices need kind"),
    ("case-t-end", lambda: Case("c", "d", (), lambda p: System(), t_end=-1.0), "t_end"),
    ("case-h-max", lambda: Case("c", "d", (), lambda p: System(), h_max=2.0), "h_max"),
    ("case-builder", lambda: Case("c", "d", (), None), "builder must be a callable"),
    ("case-builds-nothing", lambda: Case("c", "d", (), lambda p: None).build(), "return a System"),
    ("unknown-case", lambda: get_case("pendullum"), "unknown case 'pendullum'"),
    # simulation options
    ("t-end-huge-int", lambda: SimulationOptions(t_end=10**400), "t_end must be finite"),
    ("t-end-text", lambda: SimulationOptions(t_end="1"), "t_end must be a number"),
    ("h-max-over-t-end", lambda: SimulationOptions(t_end=1e-3, h_max=1e-2), "h_max"),
    ("sigma-range", lambda: SimulationOptions(sigma=2.0), "sigma must be in"),
    ("tol-range", lambda: SimulationOptions(tol=1e-20), "tol must be in"),
    ("h-preference-negative", lambda: SimulationOptions(h_preference=-1.0), "h_preference"),
    ("formulation", lambda: SimulationOptions(formulation="MPCC"), "formulation must be one of"),
    ("renormalize-text", lambda: SimulationOptions(renormalize="yes"), "renormalize"),
    ("max-retries-bool", lambda: SimulationOptions(max_retries=True), "max_retries"),
    ("ipopt-list", lambda: SimulationOptions(ipopt=[("max_iter", 5)]), "ipopt must be a dict"),
    ("gap-correction", lambda: SimulationOptions(gap_correction=None), "gap_correction"),
]


@pytest.mark.parametrize(
    ("action", "fragment"), [b[1:] for b in BAD_API], ids=[b[0] for b in BAD_API]
)
def test_bad_api_input_raises_one_line_input_error(action, fragment):
    with pytest.raises(InputError) as info:
        action()
    message = str(info.value)
    assert type(info.value) is InputError
    assert fragment in message, message
    assert message and "\n" not in message


def test_look_alike_joints_that_are_not_redundant_are_accepted():
    s, (a, b) = system_with("a", "b")
    s.add_joint(SphericalJoint("ball1", GROUND, a, (0.0, 0.0, 0.0)))
    s.add_joint(SphericalJoint("ball2", GROUND, a, (0.0, 0.0, 0.1)))  # two balls: a hinge
    s.add_joint(RevoluteJoint("pin1", a, b, (1.0, 0.0, 0.0), Z))
    s.add_joint(CylindricalJoint("sleeve", a, b, (1.0, 0.0, 0.0), Z))  # another kind
    s.add_joint(PlaneContact("floor", b, [(0.0, -0.1, 0.0), (1e-6, -0.1, 0.0)]))
    assert len(s.joints) == 5


# --- result loading: missing, unreadable and tampered files ------------------------------------
@pytest.fixture(scope="module")
def saved_result(tmp_path_factory) -> Path:
    """A genuine result of a short clearance run (contacts, equalities, one joint)."""
    system, params = PENDULUM.build({"joint": "clearance"})
    result = simulate(system, SimulationOptions(t_end=0.01, h_min=1e-3, h_max=1e-3))
    return result.save(tmp_path_factory.mktemp("result") / "pendulum")


def _edit_meta(**changes):
    def edit(d: Path) -> None:
        meta = json.loads((d / "meta.json").read_text())
        meta.update(changes)
        (d / "meta.json").write_text(json.dumps(meta))

    return edit


def _edit_arrays(change, compressed: bool = True, sealed: bool = True):
    """An edit of the arrays; `sealed`: with a matching checksum, so that loading reaches the
    checks of the values themselves (an unsealed edit is caught by the checksum)."""

    def edit(d: Path) -> None:
        with np.load(d / "result.npz") as data:
            arrays = {k: data[k] for k in data.files}
        change(arrays)
        (np.savez_compressed if compressed else np.savez)(d / "result.npz", **arrays)
        if sealed and all(a.dtype != object for a in arrays.values()):
            reseal(d)

    return edit


def _flip_payload_byte(d: Path) -> None:
    """Store the arrays uncompressed, then flip one byte inside the data of q: the zip CRC of
    that member no longer matches."""
    _edit_arrays(lambda a: None, compressed=False, sealed=False)(d)
    with np.load(d / "result.npz") as data:
        q = data["q"]
    blob = bytearray((d / "result.npz").read_bytes())
    start = bytes(blob).index(q.tobytes())
    blob[start + q.nbytes // 2] ^= 0x40
    (d / "result.npz").write_bytes(bytes(blob))


def _truncate(d: Path) -> None:
    data = (d / "result.npz").read_bytes()
    (d / "result.npz").write_bytes(data[: len(data) // 2])


META = "does not match the metadata stored in result.npz"
TAMPERED = [
    # (id, change to a saved result directory, fragment of the message)
    ("no-npz", lambda d: (d / "result.npz").unlink(), "has no result.npz"),
    ("meta-not-json", lambda d: (d / "meta.json").write_text("{'bodies': "), "not valid JSON"),
    ("meta-not-utf8", lambda d: (d / "meta.json").write_bytes(b"\xff\xfe{}"), "not valid JSON"),
    ("meta-a-list", lambda d: (d / "meta.json").write_text("[1, 2]"), META),
    ("npz-empty", lambda d: (d / "result.npz").write_bytes(b""), "not an .npz archive"),
    ("npz-truncated", _truncate, ("is unreadable", "not an .npz archive")),
    ("npz-not-zip", lambda d: (d / "result.npz").write_text("t,h,q\n0,0,0\n"), "not an .npz"),
    ("npz-unsealed-edit", _edit_arrays(lambda a: a["q"].__imul__(1.001), sealed=False), "checksum"),
    ("npz-bad-crc", _flip_payload_byte, "is unreadable"),
    ("npz-pickled", _edit_arrays(lambda a: a.update(h=a["h"].astype(object))), "got object"),
    ("npz-missing-array", _edit_arrays(lambda a: a.pop("q")), "lacks array 'q"),
    ("npz-short-t", _edit_arrays(lambda a: a.update(t=a["t"][:-1])), "t has"),
    ("npz-q-width", _edit_arrays(lambda a: a.update(q=a["q"][:, :6])), "q has shape"),
    ("npz-extra-contact", _edit_arrays(lambda a: a.update(lam=np.c_[a["lam"], a["lam"]])), "lam"),
    (
        "npz-contact-force",
        _edit_arrays(lambda a: a.update(contact_force=a["contact_force"][..., :2])),
        "contact_force",
    ),
    ("npz-energy", _edit_arrays(lambda a: a.update(energy=a["energy"][:, :2])), "energy"),
    # edits of meta.json alone: a mismatch with the arrays, or with the metadata that
    # result.npz keeps of its own where results.py records one
    ("meta-two-bodies", _edit_meta(bodies=["pendulum", "ghost"]), ("names 2 bodies", META)),
    ("meta-extra-label", _edit_meta(contact_labels=["a", "b", "c"]), ("contact_labels", META)),
    ("meta-no-joints", _edit_meta(joints=[]), ("joint_force", META)),
]


@pytest.mark.parametrize(
    ("tamper", "fragment"), [t[1:] for t in TAMPERED], ids=[t[0] for t in TAMPERED]
)
def test_tampered_result_is_rejected_with_one_line(saved_result, tmp_path, tamper, fragment):
    d = tmp_path / "result"
    shutil.copytree(saved_result, d)
    assert SimulationResult.load(d).n_steps == 10  # the copy itself is fine
    tamper(d)
    with pytest.raises(InputError) as info:
        SimulationResult.load(d)
    message = str(info.value)
    fragments = (fragment,) if isinstance(fragment, str) else fragment
    assert any(f in message for f in fragments) and "\n" not in message, message


def test_tampered_result_gives_exit_2_without_traceback(saved_result, tmp_path):
    """The real process (not only main()): `nlpmbd plot` of a result whose arrays were edited."""
    d = tmp_path / "result"
    shutil.copytree(saved_result, d)
    _flip_payload_byte(d)
    proc = subprocess.run(
        [sys.executable, "-m", "nlpmbd", "plot", str(d)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlpmbd: error: result.npz"), proc.stderr


# --- the command line (inputs that tests/test_cli.py does not already cover) --------------------
BAD_CLI = [
    (["run", "pendulum", "--set", "lenght=1"], "unknown parameter 'lenght'"),
    (["run", "pendulum", "--set", "joint=CLEARANCE"], "parameter joint"),
    (["run", "pendulum", "--set", "mass=1e400"], "parameter mass"),
    (["run", "pendulum", "--set", "joint=clearance", "--set", "clearance=0.2"], "clearance"),
    (["run", "pendulum", "--set", "joint=clearance", "--set", "pin_radius=-1"], "pin_radius"),
    (["run", "pendulum", "--t-end", "1e400"], "t_end must be finite"),
    (["run", "pendulum", "--h-max", "inf"], "h_max must be finite"),
    (["run", "pendulum", "--gap-correction", "bogus"], "gap_correction"),
    (["run", "pendulum", "--ipopt", "tol=abc"], "ipopt"),
    (["run", "box_drop", "--set", "tilt=91"], "parameter tilt"),
    (["run", "free_body", "--set", "e0=-1.5"], "parameter e0"),
    (["run", "prismatic", "--set", "edge=0"], "parameter edge"),
    (["run", "cylindrical", "--set", "clearance=0.006"], "parameter clearance"),
    (["study", "no-such-study"], "unknown study"),
    (["study", "clearance-sweep", "--set", "clearances=1e-3,abc"], "clearances"),
    (["study", "clearance-sweep", "--set", "bogus=1"], "unknown parameter 'bogus'"),
]


@pytest.mark.parametrize(("argv", "fragment"), BAD_CLI, ids=[" ".join(a) for a, _ in BAD_CLI])
def test_bad_cli_input_exits_2_with_one_line(argv, fragment, capsys, tmp_path):
    out = tmp_path / "out"
    # a short t_end first (a later --t-end wins): a missed check costs no long run
    head = [*argv[:2], "--t-end", "0.002"] if argv[0] == "run" else argv[:2]
    extra = ["--no-plot"] if argv[0] == "run" else []
    code = main([*head, *argv[2:], "--out", str(out), "--quiet", *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert err.startswith("nlpmbd: error: ") and fragment in err, err
    assert not out.exists()


def test_overlay_of_a_missing_result_exits_2(capsys, tmp_path):
    out = tmp_path / "out"
    argv = ["run", "pendulum", "--t-end", "0.002", "--overlay", str(tmp_path / "nowhere")]
    argv += ["--out", str(out)]
    assert main([*argv, "--quiet", "--no-plot"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "does not exist" in err
    assert not out.exists()


def test_the_tables_hold_at_least_30_bad_inputs():
    assert len(BAD_API) + len(TAMPERED) + len(BAD_CLI) >= 30
    assert len(BAD_API) >= 30


# --- property-based tests ------------------------------------------------------------------------
SPECIAL = [
    math.nan,
    math.inf,
    -math.inf,
    0.0,
    -0.0,
    5e-324,
    1.7976931348623157e308,
    10**400,
    -(10**400),
    True,
    False,
    None,
    "1.0",
    "nan",
    b"1",
    [1.0],
    (1.0,),
    {"x": 1.0},
    1j,
    np.float64(np.nan),
    np.float32(0.5),
    np.int64(3),
    np.bool_(True),
    np.array(2.0),
]
ANY_VALUE = st.one_of(
    st.floats(),
    st.integers(),
    st.sampled_from(SPECIAL),
    st.text(max_size=4),
)
#: Arrays and multi-line text as well. Not given to SimulationOptions: options.py still answers
#: some of them with a ValueError or a multi-line message (see the report of issue 7).
ANY_OR_ARRAY = ANY_VALUE | st.sampled_from([np.arange(30), np.zeros((2, 2)), "a\nb", [[1.0]]])


def _is_number(value) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(
        value, (int, float, np.integer, np.floating)
    )


def _as_float(value) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf


@pytest.mark.slow
@PROPERTY
@given(
    value=ANY_OR_ARRAY,
    low=st.none() | st.floats(-1e3, 1e3),
    high=st.none() | st.floats(-1e3, 1e3),
    low_open=st.booleans(),
)
def test_finite_scalar_accepts_exactly_finite_numbers_in_range(value, low, high, low_open):
    ok = _is_number(value) and math.isfinite(x := _as_float(value))
    if ok and low is not None:
        ok = x > low if low_open else x >= low
    if ok and high is not None:
        ok = x <= high
    try:
        got = finite_scalar("x", value, low=low, high=high, low_open=low_open)
    except InputError as err:
        assert not ok, f"rejected {value!r}: {err}"
        assert str(err).startswith("x must ") and "\n" not in str(err)
    else:
        assert ok, f"accepted {value!r}"
        assert type(got) is float and got == x


@PROPERTY
@given(
    value=st.one_of(
        st.lists(st.floats() | st.integers(-(10**20), 10**20), max_size=4),
        st.lists(st.lists(st.floats(), max_size=3), max_size=3),
        ANY_OR_ARRAY,
    )
)
def test_finite_array_accepts_exactly_three_finite_numbers(value):
    ok = (
        isinstance(value, list)
        and len(value) == 3
        and all(_is_number(v) and math.isfinite(_as_float(v)) for v in value)
    )
    try:
        got = finite_array("v", value, (3,))
    except InputError as err:
        assert not ok, f"rejected {value!r}: {err}"
        assert str(err).startswith("v must ") and "\n" not in str(err)
    else:
        assert ok, f"accepted {value!r}"
        assert got.dtype == float and got.tolist() == [float(v) for v in value]


OPTION_FIELDS = [f.name for f in fields(SimulationOptions)]
FLOAT_OPTIONS = ("t_end", "h_min", "h_max", "sigma", "h_preference", "tol", "error_tol")


@PROPERTY
@given(field=st.sampled_from(OPTION_FIELDS), value=ANY_VALUE)
def test_options_store_a_valid_value_or_raise_input_error(field, value):
    try:
        opts = SimulationOptions(**{field: value})
    except InputError as err:
        message = str(err)
        assert field in message and "\n" not in message, message
    else:
        stored = getattr(opts, field)
        if field in FLOAT_OPTIONS:
            assert _is_number(value)
            assert type(stored) is float and math.isfinite(stored) and stored == float(value)
        assert opts.as_dict()  # a valid object can always be recorded


@PROPERTY
@given(
    field=st.sampled_from(FLOAT_OPTIONS),
    value=st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([10**400, 10**20]),
)
def test_options_numeric_fields_reject_nan_inf_and_out_of_range(field, value):
    x = _as_float(value)
    try:
        opts = SimulationOptions(**{field: value})
    except InputError:
        return
    assert math.isfinite(x)
    assert opts.h_min > 0 and opts.h_min <= opts.h_max <= opts.t_end
    assert 0 < opts.sigma <= 1 and opts.h_preference >= 0 and 1e-14 <= opts.tol <= 1e-4
    assert 0 < opts.error_tol <= 1


VECTOR_COMPONENT = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, 1e-13, 1e-12, 1e-11, 1e-300, 1e300, -1e300]
)


@PROPERTY
@given(st.lists(VECTOR_COMPONENT, min_size=3, max_size=3))
@example([0.0, 0.0, 0.0])
@example([1e-13, 0.0, 0.0])
@example([0.0, 5e-13, -5e-13])
@example([1e-11, 0.0, 0.0])
@example([1e300, 1e300, 0.0])
@example([1.7976931348623157e308, -1.7976931348623157e308, 1e308])
@example([math.nan, 0.0, 1.0])
def test_axis_near_zero_is_rejected_and_others_are_normalised(v):
    finite = all(math.isfinite(x) for x in v)
    if finite and any(v):  # length = scale * |v / scale|, which neither overflows nor underflows
        scale = max(abs(x) for x in v)
        w = [x / scale for x in v]
        length, expected = scale * math.hypot(*w), [x / math.hypot(*w) for x in w]
    else:
        length, expected = (0.0 if finite else math.nan), None
    assume(not finite or abs(length / ZERO_LENGTH - 1.0) > 1e-9)  # not on the threshold itself
    try:
        joint = RevoluteJoint("j", GROUND, body(), ORIGIN, axis=v)
    except InputError as err:
        assert "j.axis" in str(err) and "\n" not in str(err)
        assert not finite or length < ZERO_LENGTH
        return
    assert finite and length >= ZERO_LENGTH
    u = joint.frame.axis
    assert abs(np.linalg.norm(u) - 1.0) < 1e-12
    assert np.allclose(u, expected, rtol=0, atol=1e-12)
    a, b = joint.frame.perp
    assert abs(a @ u) < 1e-12 and abs(b @ u) < 1e-12 and abs(a @ b) < 1e-12
    assert np.allclose(np.cross(a, b), u, atol=1e-12)  # right-handed


@PROPERTY
@given(
    st.lists(
        st.floats(-1e6, 1e6) | st.sampled_from([math.nan, math.inf, -math.inf, 0.0, 5e-324]),
        min_size=3,
        max_size=3,
    )
)
@example([1.0, 1.0, 2.0])
@example([1.0, 1.0, 2.1])
@example([1e-320, 1e6, 1e6])
def test_inertia_moments_accepted_exactly_for_rigid_bodies(moments):
    ok = all(math.isfinite(m) for m in moments) and min(moments) > 0
    if ok:
        j1, j2, j3 = sorted(moments)
        margin = j1 + j2 - j3 * (1 - 1e-9)
        assume(abs(margin) > 1e-12 * j3)  # not on the triangle inequality's edge
        ok = margin > 0
    try:
        b = RigidBody("b", 1.0, moments)
    except InputError as err:
        assert not ok, f"rejected {moments}: {err}"
        assert str(err).startswith("b.inertia") and "\n" not in str(err)
    else:
        assert ok, f"accepted {moments}"
        assert np.array_equal(b.inertia, np.diag(moments))


def prismatic(vertices) -> PrismaticClearance:
    return PrismaticClearance("j", GROUND, body(), ORIGIN, Z, vertices, 0.1, 1e-3)


@st.composite
def convex_polygons(draw) -> np.ndarray:
    """Points in angular order on a rotated, shifted ellipse: strictly convex, either order."""
    n = draw(st.integers(3, 9))
    weights = draw(st.lists(st.floats(0.3, 1.0), min_size=n, max_size=n))
    angles = 2 * np.pi * np.cumsum(weights) / np.sum(weights) + draw(st.floats(0, 2 * np.pi))
    rx, ry = draw(st.floats(1e-3, 10.0)), draw(st.floats(1e-3, 10.0))
    assume(max(rx, ry) / min(rx, ry) < 100)
    rot = draw(st.floats(0, np.pi))
    c, s = math.cos(rot), math.sin(rot)
    xy = np.column_stack([rx * np.cos(angles), ry * np.sin(angles)]) @ np.array([[c, s], [-s, c]])
    xy += np.array([draw(st.floats(-1.0, 1.0)), draw(st.floats(-1.0, 1.0))]) * min(rx, ry)
    return xy[::-1] if draw(st.booleans()) else xy


@PROPERTY
@given(convex_polygons())
def test_convex_polygons_are_accepted(xy):
    joint = prismatic(xy)
    assert joint.n_gap == 4 * len(xy) and np.array_equal(joint.vertices, xy)


@PROPERTY
@given(convex_polygons(), st.data())
def test_polygon_with_a_dent_is_rejected(xy, data):
    n = len(xy)
    assume(n >= 4)
    k = data.draw(st.integers(0, n - 1))
    depth = data.draw(st.floats(0.2, 0.8))
    chord_mid = 0.5 * (xy[k - 1] + xy[(k + 1) % n])
    dented = xy.copy()
    dented[k] = chord_mid - depth * (xy[k] - chord_mid)  # pushed in past the chord: reflex
    with pytest.raises(InputError, match=r"^j\.vertices"):
        prismatic(dented)


def strictly_convex_in_order(points: list[tuple[int, int]]) -> bool:
    """Independent oracle (Qhull): every point is a hull vertex, in the hull's cyclic order."""
    if len(set(points)) < len(points):
        return False
    try:
        hull = ConvexHull(np.array(points, dtype=float))
    except QhullError:  # all on a line
        return False
    order = list(hull.vertices)  # counter-clockwise, extreme points only
    if len(order) != len(points):
        return False
    start = order.index(0)
    ccw = order[start:] + order[:start]
    return ccw == list(range(len(points))) or ccw == [0, *range(len(points) - 1, 0, -1)]


@PROPERTY
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=3, max_size=7))
@example([(0, 0), (2, 0), (2, 2), (0, 2)])
@example([(0, 0), (0, 2), (2, 2), (2, 0)])
@example([(0, 0), (1, 0), (2, 0), (1, 1)])  # collinear vertex
@example([(0, 0), (2, 2), (2, 0), (0, 2)])  # bow tie
@example([(2, 0), (-2, 1), (1, -2), (1, 2), (-2, -1)])  # pentagram
def test_integer_polygon_accepted_iff_strictly_convex(points):
    expected = strictly_convex_in_order(points)
    try:
        prismatic(points)
    except InputError as err:
        assert not expected, f"rejected convex {points}: {err}"
        assert str(err).startswith("j.vertices") and "\n" not in str(err)
    else:
        assert expected, f"accepted {points}"


PARAMETERS = [
    Parameter("x", 1.0, "a float", float, low=0.0, low_open=True, high=10.0),
    Parameter("n", 2, "an int", int, low=1, high=100),
    Parameter("flag", False, "a bool", bool),
    Parameter("mode", "a", "a choice", str, choices=("a", "b")),
]


@PROPERTY
@given(
    prm=st.sampled_from(PARAMETERS),
    text=st.one_of(
        st.text(max_size=10),
        st.floats().map(repr),
        st.integers(-(10**30), 10**30).map(str),
        st.sampled_from(["true", "off", " 3 ", "1e400", "-0", "nan", "inf", "0x10", "b", "A"]),
    ),
)
def test_set_values_parse_into_range_or_raise_input_error(prm, text):
    try:
        value = prm.parse(text)
    except InputError as err:
        message = str(err)
        assert message.startswith(f"parameter {prm.name} must be ") and "\n" not in message
    else:
        assert type(value) is prm.kind and prm.check(value) == value
        if prm.kind in (int, float):
            assert math.isfinite(value) and prm.low <= value <= prm.high


@PROPERTY
@given(value=ANY_OR_ARRAY, prm=st.sampled_from(PARAMETERS))
def test_python_parameter_values_are_checked_like_set_values(value, prm):
    try:
        got = prm.check(value)
    except InputError as err:
        assert str(err).startswith(f"parameter {prm.name} must be ")
    else:
        assert type(got) is prm.kind


@PROPERTY
@given(name=st.text(max_size=6) | ANY_OR_ARRAY)
@example("ground")
@example("arm\tleft")
def test_names_are_non_empty_printable_text(name):
    ok = isinstance(name, str) and bool(name.strip()) and name.isprintable() and name != "ground"
    try:
        b = RigidBody(name, 1.0, (1.0, 1.0, 1.0))
    except InputError as err:
        assert not ok, f"rejected {name!r}: {err}"
        assert "\n" not in str(err)
    else:
        assert ok, f"accepted {name!r}"
        assert b.name == name


# --- result files and options: the gaps closed after the first table --------------------------
def _saved(tmp_path):
    from nlpmbd import SimulationOptions, simulate
    from nlpmbd.apps.registry import get_case

    system, _ = get_case("pendulum").build({})
    res = simulate(system, SimulationOptions(t_end=0.01, h_min=1e-3, h_max=1e-3))
    res.save(tmp_path)
    return res


def _rewrite(tmp_path, **changes):
    with np.load(tmp_path / "result.npz", allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    arrays.update(changes)
    np.savez_compressed(tmp_path / "result.npz", **arrays)
    if "extra" not in changes:
        reseal(tmp_path)


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"q": "nan"}, "q must be finite"),
        ({"h": "negative"}, "h must be > 0"),
        ({"status": "7"}, "status must hold integers in [0, 3]"),
        ({"extra": "yes"}, "unknown array 'extra'"),
        ({"t": "text"}, "t must be float64"),
    ],
)
def test_edited_result_values_are_rejected(tmp_path, change, fragment):
    from nlpmbd import SimulationResult

    res = _saved(tmp_path)
    key, how = next(iter(change.items()))
    values = {
        "nan": lambda: np.where(res.q > 0.2, np.nan, res.q),
        "negative": lambda: -res.h,
        "7": lambda: np.full_like(res.status, 7),
        "yes": lambda: np.ones(3),
        "text": lambda: np.array(["a"] * res.t.size),
    }[how]()
    _rewrite(tmp_path, **{key: values})
    with pytest.raises(InputError) as info:
        SimulationResult.load(tmp_path)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_unreadable_archives_are_input_errors(tmp_path):
    from nlpmbd import SimulationResult

    _saved(tmp_path)
    np.save(tmp_path / "plain.npy", np.ones(3))
    (tmp_path / "plain.npy").replace(tmp_path / "result.npz")
    with pytest.raises(InputError, match="not an .npz archive|unreadable"):
        SimulationResult.load(tmp_path)
    _saved(tmp_path)
    (tmp_path / "meta.json").write_text("[" * 100000)
    with pytest.raises(InputError, match="not valid JSON"):
        SimulationResult.load(tmp_path)


def test_option_values_and_unknown_keys():
    from nlpmbd import SimulationOptions

    with pytest.raises(InputError, match="gap_correction must be one of"):
        SimulationOptions(gap_correction=np.arange(3))
    with pytest.raises(InputError, match="ipopt max_iter must be an integer"):
        SimulationOptions(ipopt={"max_iter": None})
    with pytest.raises(InputError, match="ipopt tol must be a number"):
        SimulationOptions(ipopt={"tol": float("nan")})
    with pytest.raises(InputError, match="unknown option 'bogus'"):
        SimulationOptions.from_dict({"bogus": 1})
