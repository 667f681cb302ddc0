"""Figures of flexible bodies (nlpmbd.plots.flexible): drawn for a result with nodes and not for
one without, the summed friction drawn is node_force's, and the deformed mesh is magnified so
that its largest displacement is 10 % of the body's height."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.plots.figures import figure_specs, plot_result, render
from nlpmbd.plots.flexible import (
    FRACTION,
    SNAPSHOTS,
    deformation,
    magnification,
    moving_frame,
    snapshot_rows,
    strips,
)
from nlpmbd_cases import REGISTRY

FLEXIBLE = ["node_velocities", "node_forces", "friction_total", "deformed_slider"]


def _run(case: str, params: dict, t_end: float) -> SimulationResult:
    system = REGISTRY[case].build(params)[0]
    opts = SimulationOptions(t_end=t_end, h_min=2e-3, h_max=2e-3, solver="qp")
    return simulate(system, opts, meta={"case": case})


@pytest.fixture(scope="module")
def flexible() -> SimulationResult:
    return _run("stick_slip", {"slider": "flexible", "elements": 4}, 0.3)


@pytest.fixture(scope="module")
def rigid() -> SimulationResult:
    """A rigid-only run (the rigid stick_slip slider)."""
    return _run("stick_slip", {}, 0.02)


def _spec(result: SimulationResult, name: str):
    return next(s for s in figure_specs(result, None) if s.name == name)


@pytest.mark.slow
def test_files_for_flexible_results_only(
    tmp_path: Path, flexible: SimulationResult, rigid: SimulationResult
) -> None:
    """The four files for a result with nodes; none for a rigid one (what plot_result draws is
    figure_specs; tests/test_plotting.py checks the exact files of rigid results)."""
    assert flexible.node_q.shape[1] == 9 and rigid.node_q.shape[1] == 0
    paths = plot_result(flexible, tmp_path, dpi=40)
    assert set(FLEXIBLE) <= {p.stem for p in paths}
    for name in FLEXIBLE:
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
    specs = [s.name for s in figure_specs(flexible, None)]
    assert specs[-4:] == FLEXIBLE
    specs = [s.name for s in figure_specs(rigid, None)]
    assert "contacts" in specs and not set(FLEXIBLE) & set(specs)


def test_friction_total_draws_the_summed_node_forces(flexible: SimulationResult) -> None:
    """Forces from row 1, drawn at the step starts (scales.force_rows)."""
    fig = render(flexible, _spec(flexible, "friction_total"))
    friction, normal = fig.axes[:2]
    lines = {line.get_label(): line for line in friction.lines}
    total = lines["slider: all nodes"]
    summed = flexible.node_force[..., 0].sum(1)
    assert np.array_equal(total.get_xdata(), flexible.t[:-1])
    assert np.allclose(total.get_ydata(), summed[1:], rtol=0, atol=1e-15)
    assert np.abs(summed).max() > 1e-3  # the run slides: friction is not all zero
    lower = strips(flexible)[0].info["faces"]["lower"]
    face = flexible.node_force[1:, lower, 0].sum(1)
    assert np.allclose(lines["slider: lower face"].get_ydata(), face, rtol=0, atol=1e-15)
    normal_total = normal.lines[0].get_ydata()  # the first line of a body: all its nodes
    assert np.allclose(normal_total, flexible.node_force[1:, :, 1].sum(1), rtol=0, atol=1e-15)


def test_magnification_rule() -> None:
    d = np.zeros((2, 4, 2))
    d[1, 2] = (0.012, 0.016)  # |d| = 0.02
    assert magnification(d, 0.5) == pytest.approx(FRACTION * 0.5 / 0.02)
    assert magnification(np.zeros((3, 4, 2)), 0.5) == 1.0  # nothing deforms
    assert magnification(10 * d, 0.5) == 1.0  # already beyond 10 %: drawn true to scale
    rigid = np.arange(8.0).reshape(4, 2)
    assert np.allclose(moving_frame(rigid + (3.0, -2.0)), moving_frame(rigid))


def test_snapshot_rows() -> None:
    t = np.linspace(0.0, 3.0, 1501)
    rows = snapshot_rows(t)
    assert rows.size == SNAPSHOTS and rows[-1] == 1500
    assert np.allclose(t[rows], np.arange(1, 7) * 0.5)
    assert snapshot_rows(t[:1]).tolist() == [0]
    assert snapshot_rows(t[:3]).tolist() == [1, 2]


def test_deformed_slider_magnified_to_a_tenth_of_the_height(flexible: SimulationResult) -> None:
    strip = strips(flexible)[0]
    rows, shift, factor = deformation(flexible, strip)
    peak = np.linalg.norm(shift, axis=-1).max()
    assert 0 < peak < FRACTION * strip.height  # small strains: a true magnification
    assert factor * peak == pytest.approx(FRACTION * strip.height, rel=1e-12)
    spec = _spec(flexible, "deformed_slider")
    assert f"x {factor:.3g}" in spec.title
    fig = render(flexible, spec)
    drawn = []
    for ax in fig.axes[: rows.size]:
        reference, mesh = (np.column_stack(line.get_data()) for line in ax.lines[:2])
        assert np.array_equal(np.isnan(reference), np.isnan(mesh))
        drawn.append(np.nanmax(np.linalg.norm(mesh - reference, axis=1)))
    assert max(drawn) == pytest.approx(FRACTION * strip.height, rel=1e-9)


def test_no_figures_without_node_metadata(flexible: SimulationResult) -> None:
    bare = SimulationResult(**{**vars(flexible), "meta": {}})
    assert strips(bare) == []
    assert not set(FLEXIBLE) & {s.name for s in figure_specs(bare, None)}
