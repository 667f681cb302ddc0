"""A joint's clearance per gap (Joint.gap_scales): stated once, checked (a wrong count or value is
an InputError, exit 2 on the command line, never replaced by zeros), and carried to the step by
the symbolic model alone (SymbolicModel.scales and .cone)."""

from __future__ import annotations

import casadi as ca
import numpy as np
import pytest

from nlpmbd import InputError, simulate
from nlpmbd.apps.cli import main
from nlpmbd.apps.registry import get_case
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd.run.options import SimulationOptions
from nlpmbd.run.solvers import build_kernel

C = 1e-4  # the pendulum's default clearance (m)


def _pendulum():
    return get_case("pendulum").build({"joint": "clearance"})[0]


@pytest.mark.parametrize(
    "scales, message",
    [
        ((C,), r"joint 'pin': gap_scales must give one clearance \(m\) per gap \(2 values\), go"),
        ((C, C, C), r"per gap \(2 values\), got 3"),
        ((C, -C), r"joint 'pin': gap_scales\[1\] must be in \[0.0, inf\)"),
        ((C, float("nan")), r"joint 'pin': gap_scales\[1\] must be"),
    ],
)
def test_a_bad_gap_scale_is_an_input_error_not_zeros(monkeypatch, scales, message):
    system = _pendulum()
    monkeypatch.setattr(type(system.joints[0]), "gap_scales", property(lambda self: scales))
    with pytest.raises(InputError, match=message):
        system.gap_scales  # noqa: B018
    with pytest.raises(InputError, match=message):
        SymbolicModel.build(system)


def test_a_bad_gap_scale_exits_2_with_one_line(monkeypatch, tmp_path, capsys):
    joint = type(_pendulum().joints[0])
    monkeypatch.setattr(joint, "gap_scales", property(lambda self: (C,)))
    argv = ["run", "pendulum", "--set", "joint=clearance", "--t-end", "0.01", "--quiet"]
    assert main([*argv, "--no-plot", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nlpmbd: error: joint 'pin': gap_scales")
    assert "(2 values), got 1" in err[0]


def test_the_step_takes_the_clearance_from_the_model_only():
    """The cone radius and the scales are both the joint's gap_scales, via the model."""
    system = _pendulum()
    model = SymbolicModel.build(system)
    assert model.scales.tolist() == system.gap_scales == pytest.approx([C, C])
    assert np.array_equal(model.cone, model.scales)  # both gaps are the pin's |d| - c
    kernel = build_kernel(model, SimulationOptions())
    assert kernel.scales is model.scales and kernel.clearance == model.scales.min()


def test_a_joint_giving_the_wrong_number_of_offsets_is_refused(monkeypatch):
    system = _pendulum()
    monkeypatch.setattr(type(system.joints[0]), "gap_offsets", lambda self, poses: [None])
    with pytest.raises(InputError, match=r"joint 'pin' returned a wrong number of constraints"):
        SymbolicModel.build(system)


@pytest.mark.parametrize(
    "hook, value",
    [
        ("contact_frames", lambda self, poses: []),
        ("slip_planes", lambda self, poses: [ca.DM.zeros(3, 1)] * 3),
    ],
)
def test_a_joint_giving_per_gap_data_of_another_length_is_refused(monkeypatch, hook, value):
    """Per-gap data of a joint shorter or longer than its gaps would shift every later gap's."""
    system = _pendulum()
    monkeypatch.setattr(type(system.joints[0]), hook, value)
    with pytest.raises(InputError, match=rf"joint 'pin': {hook} must give one entry per gap \(2\)"):
        SymbolicModel.build(system)


def test_a_result_with_scales_of_another_length_is_refused_not_ignored():
    system = _pendulum()
    result = simulate(system, SimulationOptions(t_end=0.003))
    assert set(result.penetration_fraction()) == {"pin"}
    result.meta["contact_scales"] = [C]
    with pytest.raises(InputError, match=r"contact_scales must give one clearance .* \(2\), got"):
        result.summary()
    del result.meta["contact_scales"]  # none recorded: no clearance to measure against
    assert result.penetration_fraction() == {"pin": 0.0}
