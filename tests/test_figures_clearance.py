"""Figures that show the play of clearance joints: the journal orbit of a short clearance
pendulum run, the difference panels of an overlay, orientation angles of a spinning body, and
the guide figures of a slot on a rotating body (a hand-made result with analytic values)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.plots.clearance_data import joint_tracks, radial_joints
from nlpmbd.plots.figures import figure_specs, plot_result, render
from nlpmbd.plots.kinematics import rotation_matrices
from nlpmbd.plots.orientation import body_angles
from nlpmbd.plots.scales import log_floor, position_span, style
from nlpmbd_joints.guide_data import dimensionless_corners, guide_forces, turning_angle
from nlpmbd_joints.guide_figures import contact_forces_figure, poincare_figure
from nlpmbd_joints.guide_files import save_mechanism_figures
from nlpmbd_joints.guide_frame import GuideFrame

C = 0.01  # m, a large clearance: the pin crosses it in a visible free fall
OPTS = SimulationOptions(t_end=0.3, h_min=1e-3, h_max=2e-3)


@pytest.fixture(scope="module")
def runs() -> tuple[SimulationResult, SimulationResult]:
    case = get_case("pendulum")
    loose = simulate(case.build({"joint": "clearance", "clearance": C})[0], OPTS,
                     meta={"parameters": {"joint": "clearance"}})  # fmt: skip
    ideal = simulate(case.build({})[0], OPTS, meta={"parameters": {"joint": "ideal"}})
    return loose, ideal


def test_orbit_inside_the_circle_with_the_first_impact(runs) -> None:
    loose, _ = runs
    [(joint, geometry)] = radial_joints(loose)
    tracks = joint_tracks(loose, joint, geometry)
    assert [tr.label for tr in tracks] == ["end1", "end2"]
    labels = loose.meta["contact_labels"]
    eps = 1e-3 * C  # the gap's smoothing (CylindricalClearance)
    for track in tracks:
        e = track.eccentricity
        assert e.max() <= 1.0 + 1e-3 and e.max() > 0.99 and e[0] < 1e-9
        # the offset from q and the geometry is the one the gap measures
        gap = loose.gap[:, labels.index(f"pin.{track.label}")]
        from_gap = np.sqrt(np.maximum((gap + np.hypot(C, eps)) ** 2 - eps**2, 0.0)) / C
        assert e == pytest.approx(from_gap, abs=1e-6)
        # the planar pin stays in the plane across the axis: the projection is the whole offset
        assert np.linalg.norm(track.coords, axis=1) == pytest.approx(e, abs=1e-6)
        # free fall of the hole by c: the fixed pin meets its top, +y of the hole's frame
        first = int(track.impacts[0])
        t_fall = np.sqrt(2 * C / 9.81)
        assert abs(loose.t[first] - t_fall) <= 2 * OPTS.h_max
        assert track.coords[first] == pytest.approx([0.0, 1.0], abs=0.05)
        closed = np.flatnonzero(gap > -1e-4 * C)
        assert abs(first - int(closed[0])) <= 2
        assert track.force[first - 1] < 1e-3 * track.force[first]


@pytest.mark.slow
def test_difference_panels_of_an_overlay(runs, tmp_path: Path) -> None:
    loose, ideal = runs
    paths = plot_result(
        loose, tmp_path, overlay=ideal, overlay_label="ideal", dpi=40, figures="all"
    )
    names = {p.stem for p in paths}
    assert {"positions", "orientation", "clearance_pin", "joint_forces"} <= names
    assert all(p.stat().st_size > 1000 for p in paths)
    spec = next(s for s in figure_specs(loose, ideal, "ideal") if s.name == "positions")
    fig = render(loose, spec)
    assert len(fig.axes) == 6  # x, dx, y, dy, z, dz
    [(name, grid, d)] = spec.over.differences(fig.axes[0])
    assert name == "pendulum"
    assert grid == pytest.approx(loose.t)  # both runs cover the same time span
    expected = loose.q[:, 0] - np.interp(loose.t, ideal.t, ideal.q[:, 0])
    assert d == pytest.approx(expected, abs=1e-15)
    assert np.abs(d).max() > 1e-3  # the clearance run lags behind by about c
    drawn = fig.axes[1].lines[0].get_ydata()
    assert drawn == pytest.approx(expected, abs=1e-15)
    assert "ideal" in fig.axes[1].get_ylabel()
    # without an overlay: no difference panels; z of the ideal planar pendulum is noise only,
    # drawn flat within a span of at least 1 % of the clearance scale
    spec = next(s for s in figure_specs(ideal, None) if s.name == "positions")
    fig = render(ideal, spec)
    assert len(fig.axes) == 3
    lo, hi = fig.axes[2].get_ylim()
    assert hi - lo >= position_span(ideal) > 0
    # forces start at row 1, drawn at the start of their step
    spec = next(s for s in figure_specs(loose, None) if s.name == "contacts")
    line = render(loose, spec).axes[0].lines[0]
    assert line.get_xdata() == pytest.approx(loose.t[:-1])
    assert line.get_ydata() == pytest.approx(loose.lam[1:, 0])


def test_free_body_angles_turn_and_match_the_rotation() -> None:
    system, _ = get_case("free_body").build({})
    res = simulate(system, SimulationOptions(t_end=0.4, h_min=1e-3, h_max=1e-3))
    (deg, seq) = body_angles(res)["box"]
    spans = deg.max(axis=0) - deg.min(axis=0)
    assert spans.max() > 40.0  # 2 rad/s for 0.4 s: 46 degrees about body y
    from scipy.spatial.transform import Rotation

    back = Rotation.from_euler(seq, np.radians(deg)).as_matrix()
    assert back == pytest.approx(rotation_matrices(res.q[:, 3:7]), abs=1e-9)
    spec = next(s for s in figure_specs(res, None) if s.name == "orientation")
    fig = render(res, spec)
    w_y = fig.axes[3].lines[0].get_ydata()  # right column, second row: w'_y
    assert np.min(w_y) > 1.9


@pytest.mark.slow
def test_poincare_needs_points_and_plain_ticks(tmp_path: Path) -> None:
    res = _rotating_slot(turning=True)
    frame = GuideFrame(guide="rocker", origin=(0.5, 0.0, 0.0))
    kw = dict(crank="rocker", joint="slot", clearance=1e-4, half_width=0.01, half_length=0.02)
    paths = save_mechanism_figures(res, tmp_path / "a", frame=frame, **kw)
    assert "poincare.png" not in {p.name for p in paths}  # 2 crank turns: too few points
    paths = save_mechanism_figures(res, tmp_path / "b", frame=frame, min_poincare_points=2, **kw)
    assert "poincare.png" in {p.name for p in paths}
    fig = poincare_figure(res, "slider", "rocker", clearance=1e-4, frame=frame)
    assert not fig.axes[0].yaxis.get_major_formatter().get_useOffset()


def test_slot_on_a_rotating_body_is_drawn_in_its_own_frame() -> None:
    for turning in (True, False):
        res = _rotating_slot(turning)
        frame = GuideFrame(guide="rocker", origin=(0.5, 0.0, 0.0))
        centre = frame.slider_points(res, "slider", np.zeros((1, 2)))
        along, across = frame.coordinates(res, centre)
        assert along[:, 0] == pytest.approx(0.1 * np.sin(res.t), abs=1e-12)
        assert across[:, 0] == pytest.approx(Y0, abs=1e-12)
        rate, lateral = frame.slider_velocity(res, "slider")
        assert rate == pytest.approx(0.1 * np.cos(res.t), abs=1e-12)
        assert lateral == pytest.approx(0.0, abs=1e-12)
        _, Y = dimensionless_corners(
            res, "slider", clearance=1e-4, half_width=0.01, half_length=0.02, stroke=(-1, 1),
            frame=frame,
        )  # fmt: skip
        assert Y == pytest.approx(Y0 / 1e-4, abs=1e-6)
        # friction along the slot's current axis, not along global X
        normal, friction = guide_forces(res, "slot", frame=frame)
        assert friction[1:] == pytest.approx(np.cos(res.t[1:]), abs=1e-12)
        fig = contact_forces_figure(res, "slot", "rocker", frame=frame)
        x = fig.axes[1].lines[0].get_xdata()
        if turning:
            assert fig.axes[1].get_xlabel() == "crank angle (deg)"
            assert x == pytest.approx(np.degrees(OMEGA * res.t[:-1]), abs=1e-9)
        else:  # a swinging "crank": forces against time
            assert turning_angle(res, "rocker") is None
            assert fig.axes[1].get_xlabel() == "time t (s)"
            assert x == pytest.approx(res.t[:-1])


def test_styles_and_log_floor() -> None:
    assert len({tuple(sorted(style(k).items())) for k in range(40)}) == 40
    assert log_floor(np.array([0.0, 1e-9]), tol=1e-10) == pytest.approx(1e-13)
    assert log_floor(np.array([0.0, 1.0])) == pytest.approx(1e-12)
    assert log_floor(np.zeros(3)) == 1.0


OMEGA = 3.0  # rad/s of the rocker when it turns
Y0 = 3e-5  # m, the slider's constant offset across the slot


def _rotating_slot(turning: bool) -> SimulationResult:
    """Rocker turning about Z (or swinging), centre of mass 1 m out along its body x; a slot
    along body x through (0.5, 0, 0) of the rocker; the slider at 0.1 sin t along it and Y0
    across; friction of magnitude cos t along the slot on its one contact."""
    t = np.linspace(0.0, 4 * np.pi / OMEGA + 0.01, 801)
    phi = OMEGA * t if turning else 0.8 * np.sin(3 * t)
    dphi = np.full_like(t, OMEGA) if turning else 2.4 * np.cos(3 * t)
    rot = np.zeros((t.size, 3, 3))
    c, s = np.cos(phi), np.sin(phi)
    rot[:, 0, 0], rot[:, 0, 1], rot[:, 1, 0], rot[:, 1, 1], rot[:, 2, 2] = c, -s, s, c, 1
    quat = np.column_stack([np.cos(phi / 2), 0 * t, 0 * t, np.sin(phi / 2)])
    local = np.column_stack([1.5 + 0.1 * np.sin(t), np.full_like(t, Y0), 0 * t])
    dlocal = np.column_stack([0.1 * np.cos(t), 0 * t, 0 * t])
    z = np.array([0.0, 0.0, 1.0])
    q = np.zeros((t.size, 14))
    v = np.zeros((t.size, 12))
    for k, (pos, dpos) in enumerate(((np.array([1.0, 0, 0]), np.zeros(3)), (local, dlocal))):
        p = rot @ np.broadcast_to(pos, (t.size, 3))[..., None]
        r = p[..., 0]
        q[:, 7 * k : 7 * k + 3], q[:, 7 * k + 3 : 7 * k + 7] = r, quat
        dp = (rot @ np.broadcast_to(dpos, (t.size, 3))[..., None])[..., 0]
        v[:, 6 * k : 6 * k + 3] = dp + dphi[:, None] * np.cross(z, r)
        v[:, 6 * k + 5] = dphi
    friction = np.zeros((t.size, 1, 3))
    friction[:, 0, :] = np.cos(t)[:, None] * rot[:, :, 0]
    n = t.size - 1
    zeros = np.zeros
    return SimulationResult(
        t=t, h=np.diff(t), q=q, v=v, lam=np.ones((t.size, 1)), lam_eq=zeros((t.size, 0)),
        gap=zeros((t.size, 1)), energy=zeros((t.size, 3)), eom_residual=zeros(n),
        norm_residual=zeros(n), eq_residual=zeros(t.size), comp_residual=zeros(n),
        iterations=np.ones(n, dtype=int), solve_time=zeros(n), status=zeros(n, dtype=int),
        contact_force=zeros((t.size, 1, 3)), contact_point=zeros((t.size, 1, 3)),
        joint_force=zeros((t.size, 1, 3)), gap_uncorrected=zeros(n), friction_force=friction,
        compliant_gap=zeros((t.size, 0)), compliant_force=zeros((t.size, 0, 3)),
        meta={"bodies": ["rocker", "slider"], "joints": ["slot"], "contact_labels": ["slot.a"],
              "compliant_labels": [], "eq_labels": [], "case": "rotating_slot"},
    )  # fmt: skip
