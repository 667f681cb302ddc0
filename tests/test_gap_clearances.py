"""One channel for a gap's clearance (issue 20): meta.json's contact_scales holds every contact
gap's clearance, soft or not, contact_soft marks the spring-damper gaps, compliant_scales holds
the compliant gaps'; joint_geometry leaves the clearance out and every reader takes it from
those lists (io/clearances.py). Results written before contact_soft read as they did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nlpmbd import (
    GROUND,
    CompliantContact,
    HardContact,
    RigidBody,
    SimulationOptions,
    System,
    simulate,
)
from nlpmbd.apps.registry import get_case, load_cases
from nlpmbd.errors import InputError
from nlpmbd.io.clearances import joint_geometry, penetration_scales, stored_description
from nlpmbd.io.files import read_result, write_result
from nlpmbd.io.result import SimulationResult
from nlpmbd.model.contact import SpringDamperContact
from nlpmbd.plots.figures import plot_result
from nlpmbd.plots.scales import length_scale
from nlpmbd.run.meta import run_info
from nlpmbd_joints import RevoluteClearance

C = 1e-4  # the hard pin's clearance (m); the soft pin has 2 C, the compliant one 3 C


def _pendulum(system: System, name: str, x: float, clearance: float, contact) -> None:
    """A bob released horizontally on a pin with radial clearance at (x, 0, 0)."""
    bob = system.add_body(RigidBody(f"{name}_bob", 1.0, (1e-3,) * 3, position=(x + 0.2, 0, 0)))
    pin = {"length": 0.05, "hole_radius": 0.01 + clearance, "pin_radius": 0.01}
    system.add_joint(
        RevoluteClearance(name, bob, GROUND, (x, 0, 0), (0, 0, 1), **pin, axial_play=0.0,
                          contact=contact)
    )  # fmt: skip


def _mixed() -> System:
    system = System(gravity=(0, -9.81, 0))
    _pendulum(system, "hard", 0.0, C, HardContact())
    _pendulum(system, "soft", 1.0, 2 * C, SpringDamperContact(stiffness=1e3, damping=10.0))
    _pendulum(system, "force", 2.0, 3 * C, CompliantContact(stiffness=1e7, restitution=0.5))
    return system


def _old_form(meta: dict, system: System) -> dict:
    """meta as written before contact_soft: the new keys deleted, soft gaps' scales 0 and the
    joints' clearances in joint_geometry (their full describe())."""
    old = {k: v for k, v in meta.items() if k not in ("contact_soft", "compliant_scales")}
    old["contact_scales"] = system.gap_scales
    old["joint_geometry"] = {j.name: j.describe() for j in system.joints if j.describe()}
    return old


def test_a_run_records_one_clearance_per_gap_and_the_soft_mask():
    system = _mixed()
    r = simulate(system, SimulationOptions(t_end=0.02, h_min=1e-4, h_max=1e-4))
    m = r.meta
    assert m["contact_labels"] == ["hard.end1", "hard.end2", "soft.end1", "soft.end2"]
    assert m["contact_scales"] == pytest.approx([C, C, 2 * C, 2 * C], rel=1e-9)
    assert m["contact_soft"] == [False, False, True, True]
    assert m["compliant_labels"] == ["force.end1", "force.end2"]
    assert m["compliant_scales"] == pytest.approx([3 * C, 3 * C], rel=1e-9)
    assert not any("clearance" in g for g in m["joint_geometry"].values())  # stored once
    derived = joint_geometry(m)
    assert [derived[j]["clearance"] for j in ("hard", "soft", "force")] == [
        j.clearance for j in system.joints
    ]
    # the soft pin penetrates by design: no fraction, as before; the hard pin's is its own
    assert np.max(r.gap[:, 2:]) > 0
    fractions = r.penetration_fraction()
    assert fractions["soft"] == 0.0
    assert fractions["hard"] == pytest.approx(max(0.0, float(np.max(r.gap[:, :2]))) / C)
    assert penetration_scales(m, 4) == pytest.approx([C, C, 0, 0], rel=1e-9)
    # the same numbers from the form written before
    old = _old_form(m, system)
    before = SimulationResult(**r.arrays(), meta=old)
    assert before.penetration_fraction() == fractions
    assert before.summary() == r.summary()
    assert length_scale(before) == length_scale(r) == pytest.approx(C)
    assert joint_geometry(old) == derived


@pytest.mark.parametrize("name", sorted(load_cases()))
def test_every_case_derives_the_geometry_it_described(name):
    """joint_geometry read back equals every joint's describe(), clearance included."""
    params = {"pendulum": {"joint": "clearance"}, "chain": {"joint": "clearance"}}
    system = get_case(name).build(params.get(name, {}))[0]
    meta = run_info(system, SimulationOptions(), None)
    assert joint_geometry(meta) == {j.name: j.describe() for j in system.joints if j.describe()}
    assert meta["contact_scales"] == system.gap_clearances


def _saved(tmp_path: Path) -> tuple[Path, System]:
    system = get_case("pendulum").build({"joint": "clearance", "axial_play": 1e-4})[0]
    result = simulate(system, SimulationOptions(t_end=0.05))
    assert np.max(result.gap) > -C  # the pin touches the hole
    return result.save(tmp_path / "new"), system


def _rewrite(directory: Path, change) -> Path:
    """The result with its metadata changed and resealed (checksum matching)."""
    arrays, meta = read_result(directory)
    return write_result(directory, arrays, change(meta))


def test_an_old_format_result_loads_and_reads_as_before(tmp_path):
    new, system = _saved(tmp_path)
    fresh = SimulationResult.load(new)
    old_dir = tmp_path / "old"
    old_dir.mkdir()
    for f in ("result.npz", "meta.json"):
        (old_dir / f).write_bytes((new / f).read_bytes())
    _rewrite(old_dir, lambda meta: _old_form(meta, system))
    old = SimulationResult.load(old_dir)
    assert "contact_soft" not in old.meta and "clearance" in old.meta["joint_geometry"]["pin"]
    assert old.penetration_fraction() == fresh.penetration_fraction()
    assert old.penetration_fraction()["pin"] > 0
    assert joint_geometry(old.meta) == joint_geometry(fresh.meta)


@pytest.mark.slow
def test_figures_of_a_hard_gap_run_match_the_old_form(tmp_path):
    """Every figure, the clearance joint's orbit among them, byte for byte."""
    new, system = _saved(tmp_path)
    old_dir = tmp_path / "old"
    old_dir.mkdir()
    for f in ("result.npz", "meta.json"):
        (old_dir / f).write_bytes((new / f).read_bytes())
    _rewrite(old_dir, lambda meta: _old_form(meta, system))
    a = plot_result(SimulationResult.load(new), tmp_path / "fa", figures="all")
    b = plot_result(SimulationResult.load(old_dir), tmp_path / "fb", figures="all")
    assert [p.name for p in a] == [p.name for p in b] and "clearance_pin.png" in [p.name for p in a]
    for pa, pb in zip(a, b, strict=True):
        assert pa.read_bytes() == pb.read_bytes(), pa.name


@pytest.fixture(scope="module")
def short_run() -> SimulationResult:
    system = get_case("pendulum").build({"joint": "clearance"})[0]
    return simulate(system, SimulationOptions(t_end=0.003))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda m: m.update(contact_soft=[0, 1]), "one true/false per contact label"),
        (lambda m: m.update(contact_soft=[False]), "contact_soft must give one true/false"),
        (lambda m: m.update(compliant_scales=[-1.0]), "compliant_scales must give one"),
        (lambda m: m.pop("compliant_scales"), "contact_soft and compliant_scales must be both"),
        (lambda m: m.update(contact_scales=[C, None]), "contact_scales must give one clearance"),
    ],
)  # fmt: skip
def test_a_damaged_clearance_list_is_refused_in_one_line(short_run, tmp_path, change, message):
    d = short_run.save(tmp_path / "r")

    def damage(meta: dict) -> dict:
        change(meta)
        return meta

    _rewrite(d, damage)
    with pytest.raises(InputError, match=message) as caught:
        SimulationResult.load(d)
    assert "\n" not in str(caught.value)


def test_a_description_is_stripped_only_of_its_first_gaps_clearance():
    """Nothing is lost: a clearance other than the first gap's (or none) stays in the
    description, and reading it back returns the description as the joint gave it."""
    meta = {"contact_labels": ["j.a", "j.b"], "contact_scales": [C, 2 * C]}
    meta |= {"contact_soft": [False, False], "compliant_scales": []}
    for description in ({"clearance": C, "x": 1}, {"clearance": 2 * C}, {"clearance": "text"}):
        stored = stored_description(description, [C, 2 * C], ["a", "b"])
        assert ("clearance" in stored) == (description["clearance"] != C)
        assert joint_geometry({**meta, "joint_geometry": {"j": stored}}) == {"j": description}
    assert stored_description({"clearance": 0.0}, [0.0], ["a"]) == {"clearance": 0.0}


def test_the_axial_play_is_stored_once():
    """A revolute clearance joint's axial play is its stop gaps' clearance: contact_scales holds
    it, the stored description leaves it out, and reading fills it back; without stops (or
    with a play other than stop1's clearance) it stays in the description."""
    system = get_case("pendulum").build({"joint": "clearance", "axial_play": 1e-4})[0]
    meta = run_info(system, SimulationOptions(), None)
    (pin,) = [j for j in system.joints if j.describe()]
    assert pin.describe()["axial_play"] == 1e-4
    assert "axial_play" not in meta["joint_geometry"][pin.name]
    assert meta["contact_scales"][pin.gap_labels.index("stop1")] == 1e-4
    assert joint_geometry(meta)[pin.name] == pin.describe()
    labels, scales = ["a", "b", "stop1"], [C, C, 3e-4]
    assert stored_description({"axial_play": 1e-4}, scales, labels) == {"axial_play": 1e-4}
    assert stored_description({"axial_play": 3e-4}, scales, labels) == {}
    assert stored_description({"axial_play": 0.0}, [C], ["a"]) == {"axial_play": 0.0}


@pytest.mark.slow
def test_an_old_format_checkpoint_resumes_into_the_per_gap_form(tmp_path):
    system = get_case("pendulum").build({"joint": "clearance"})[0]
    opts = SimulationOptions(t_end=0.02, h_min=1e-3, h_max=1e-3, codegen="off")
    saved: list[SimulationResult] = []

    class Stop(Exception):
        pass

    def keep(partial: SimulationResult) -> None:
        saved.append(partial)
        if partial.t[-1] > 0.01:
            raise Stop

    with pytest.raises(Stop):
        simulate(system, opts, checkpoint=keep, checkpoint_every=1e-9)
    d = _rewrite(saved[-1].save(tmp_path / "partial"), lambda meta: _old_form(meta, system))
    partial = SimulationResult.load(d)
    assert "contact_soft" not in partial.meta and not partial.completed
    resumed, whole = simulate(system, opts, resume=partial), simulate(system, opts)
    assert resumed.meta["resumed"] and resumed.meta["contact_soft"] == [False, False]
    assert resumed.meta["contact_scales"] == whole.meta["contact_scales"]
    assert resumed.meta["joint_geometry"] == whole.meta["joint_geometry"]
    assert resumed.penetration_fraction() == whole.penetration_fraction()
    assert np.array_equal(resumed.gap, whole.gap)
