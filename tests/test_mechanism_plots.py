"""Figures of nlpmbd_joints.guide_figures on hand-made results: a crank turning at constant speed
about Z and a slider moving sinusoidally (no simulation, so the expected values are analytic)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationResult
from nlpmbd.errors import InputError
from nlpmbd_joints.guide_data import (
    crank_angle,
    dimensionless_corners,
    guide_forces,
    poincare_points,
)
from nlpmbd_joints.guide_figures import (
    crank_moment_figure,
    poincare_figure,
    slider_motion_figure,
    slider_path_figure,
)
from nlpmbd_joints.guide_files import save_mechanism_figures

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
OMEGA = 2 * np.pi * 50.0  # crank speed (rad/s)
THETA0 = 0.7  # initial crank angle (rad)
TURNS = 3.4  # crank revolutions covered
AMP_Y, FREQ_Y, PHASE_Y = 2e-4, 2 * np.pi * 37.0, 0.3  # slider y = AMP_Y sin(FREQ_Y t + PHASE_Y)
STROKE = (0.07, 0.17)  # slider-crank with l1 = 0.05, l2 = 0.12
LABELS = ["guide.front_upper", "guide.front_lower", "guide.back_upper", "guide.back_lower"]
HALF_L, HALF_W, CLEARANCE = 0.025, 0.025, 5e-4


def z_rotation(angle: np.ndarray) -> np.ndarray:
    """(len, 4) Euler parameters of rotations by `angle` about Z."""
    return np.column_stack(
        [np.cos(angle / 2), np.zeros_like(angle), np.zeros_like(angle), np.sin(angle / 2)]
    )


def synthetic(n: int = 400, drive: bool = True, contacts: bool = True) -> SimulationResult:
    """Bodies crank, slider; uneven steps over TURNS crank revolutions; four guide contacts and
    the drive's equality when asked."""
    rng = np.random.default_rng(1)
    h = rng.uniform(0.5, 1.5, n)
    h *= TURNS * 2 * np.pi / OMEGA / h.sum()
    t = np.concatenate([[0.0], np.cumsum(h)])
    theta = THETA0 + OMEGA * t
    q = np.zeros((n + 1, 14))
    v = np.zeros((n + 1, 12))
    q[:, 0:2] = 0.025 * np.column_stack([np.cos(theta), np.sin(theta)])
    q[:, 3:7] = z_rotation(theta)
    v[:, 5] = OMEGA
    x_mid, x_amp = np.mean(STROKE), 0.5 * (STROKE[1] - STROKE[0])
    q[:, 7] = x_mid + x_amp * np.cos(theta)
    q[:, 8] = AMP_Y * np.sin(FREQ_Y * t + PHASE_Y)
    q[:, 10] = 1.0
    v[:, 6] = -x_amp * OMEGA * np.sin(theta)
    v[:, 7] = AMP_Y * FREQ_Y * np.cos(FREQ_Y * t + PHASE_Y)
    m, e = (4 if contacts else 0), (1 if drive else 0)
    lam = np.abs(rng.normal(size=(n + 1, m)))
    lam[0] = 0.0
    friction = rng.normal(size=(n + 1, m, 3))
    friction[0] = 0.0
    lam_eq = rng.normal(size=(n + 1, e))
    lam_eq[0] = 0.0
    return SimulationResult(
        t=t,
        h=h,
        q=q,
        v=v,
        lam=lam,
        lam_eq=lam_eq,
        gap=np.full((n + 1, m), -1e-4),
        energy=np.zeros((n + 1, 3)),
        eom_residual=np.zeros(n),
        norm_residual=np.zeros(n),
        eq_residual=np.zeros(n + 1),
        comp_residual=np.zeros(n),
        iterations=np.ones(n, dtype=int),
        solve_time=np.full(n, 1e-3),
        status=np.zeros(n, dtype=int),
        contact_force=np.zeros((n + 1, m, 3)),
        contact_point=np.zeros((n + 1, m, 3)),
        joint_force=np.zeros((n + 1, 1, 3)),
        gap_uncorrected=np.zeros(n),
        friction_force=friction,
        compliant_gap=np.zeros((n + 1, 0)),
        compliant_force=np.zeros((n + 1, 0, 3)),
        meta={
            "bodies": ["crank", "slider"],
            "joints": ["guide"],
            "contact_labels": LABELS[:m],
            "compliant_labels": [],
            "eq_labels": ["drive.angle"][:e],
            "case": "synthetic",
        },
    )


def test_crank_angle_over_several_turns() -> None:
    res = synthetic()
    assert crank_angle(res) == pytest.approx(OMEGA * res.t, abs=1e-12, rel=0)
    # p and -p are the same orientation: a solver may hand back either
    flipped = synthetic()
    flipped.q[::3, 3:7] *= -1.0
    assert crank_angle(flipped) == pytest.approx(OMEGA * res.t, abs=1e-12, rel=0)
    # turning the other way gives a decreasing angle
    backwards = synthetic()
    backwards.q[:, 3:7] = z_rotation(THETA0 - OMEGA * res.t)
    assert crank_angle(backwards) == pytest.approx(-OMEGA * res.t, abs=1e-12, rel=0)


def test_poincare_one_point_per_turn_at_the_crossing() -> None:
    res = synthetic()
    t, y, vy = poincare_points(res)
    assert t.shape == y.shape == vy.shape == (int(TURNS),)  # 3 completed revolutions, not 4
    t_cross = 2 * np.pi * np.arange(1, int(TURNS) + 1) / OMEGA
    # the angle is linear in t, so its interpolation finds the crossing up to rounding
    assert t == pytest.approx(t_cross, abs=1e-12, rel=0)
    # linear interpolation of a sine: error <= h^2 / 8 max|y''|
    h_max = res.h.max()
    assert y == pytest.approx(
        AMP_Y * np.sin(FREQ_Y * t_cross + PHASE_Y), abs=h_max**2 / 8 * AMP_Y * FREQ_Y**2, rel=0
    )
    assert vy == pytest.approx(
        AMP_Y * FREQ_Y * np.cos(FREQ_Y * t_cross + PHASE_Y),
        abs=h_max**2 / 8 * AMP_Y * FREQ_Y**3,
        rel=0,
    )
    # and the error bound is not vacuous: it is far below the signal
    assert h_max**2 / 8 * FREQ_Y**2 < 0.01
    backwards = synthetic()
    backwards.q[:, 3:7] = z_rotation(THETA0 - OMEGA * res.t)
    assert poincare_points(backwards)[0] == pytest.approx(t_cross, abs=1e-12, rel=0)
    short = synthetic(n=50)
    short.t, short.h = short.t * 0.9 / TURNS, short.h * 0.9 / TURNS  # less than one turn
    short.q[:, 3:7] = z_rotation(THETA0 + OMEGA * short.t)
    assert poincare_points(short)[0].size == 0
    with pytest.raises(InputError, match="revolution"):
        poincare_figure([("short", short)], clearance=CLEARANCE)


def test_corner_on_a_guide_surface() -> None:
    res = synthetic(n=3)
    alpha, gy = 0.004, 0.01  # slider tilted by alpha, guide centre line at y = gy
    res.q[:, 10:14] = z_rotation(np.full(4, alpha))
    # front upper corner (a, b) at y = gy + b + c; front corner at the end of the stroke
    res.q[:, 8] = gy + HALF_W + CLEARANCE - HALF_L * np.sin(alpha) - HALF_W * np.cos(alpha)
    res.q[:, 7] = STROKE[1] - HALF_L * np.cos(alpha) + HALF_W * np.sin(alpha)
    kw = dict(clearance=CLEARANCE, half_width=HALF_W, half_length=HALF_L, stroke=STROKE)
    X, Y = dimensionless_corners(res, "slider", guide_center_y=gy, **kw)
    assert Y[:, 0] == pytest.approx(1.0, abs=1e-9)
    assert X[:, 0] == pytest.approx(1.0, abs=1e-12)
    # back lower corner (-a, -b) sits lower by 2 (b cos + a sin): measured from -b - c
    expected = 2 * HALF_W + CLEARANCE - 2 * (HALF_W * np.cos(alpha) + HALF_L * np.sin(alpha))
    assert Y[:, 3] == pytest.approx(expected / CLEARANCE, abs=1e-9)
    # centred and level: every corner at Y = 0; lower corner on the lower surface: Y = -1
    res.q[:, 10:14] = z_rotation(np.zeros(4))
    res.q[:, 8] = gy
    assert dimensionless_corners(res, "slider", guide_center_y=gy, **kw)[1] == pytest.approx(0.0)
    res.q[:, 8] = gy - CLEARANCE
    Y = dimensionless_corners(res, "slider", guide_center_y=gy, **kw)[1]
    assert Y[:, [1, 3]] == pytest.approx(-1.0, abs=1e-9)
    fig = slider_path_figure([("a", res), ("b", synthetic())], **kw)
    assert [ax.get_title() for ax in fig.axes] == ["a", "b"]
    with pytest.raises(InputError, match="stroke"):
        dimensionless_corners(res, "slider", **{**kw, "stroke": (0.1, 0.1)})
    with pytest.raises(InputError, match="no body"):
        dimensionless_corners(res, "block", **kw)


def test_forces_against_the_crank_angle_at_the_start_of_each_step() -> None:
    res = synthetic()
    fig = crank_moment_figure([("c = 0.5 mm", res), ("no drive", synthetic(drive=False))])
    (line,) = fig.axes[0].lines  # the run without a drive is left out
    x, y = line.get_xydata().T
    assert x == pytest.approx(np.degrees(OMEGA * res.t[:-1]), abs=1e-9)
    assert y == pytest.approx(-res.lam_eq[1:, 0])
    normal, friction = guide_forces(res, "guide")
    assert normal == pytest.approx(res.lam.sum(axis=1))
    assert friction == pytest.approx(res.friction_force[:, :, 0].sum(axis=1))
    with pytest.raises(InputError, match="no contacts"):
        guide_forces(res, "pivot")
    # compliant contacts: normal part across the guide, friction along it
    soft = synthetic(contacts=False)
    soft.meta["compliant_labels"] = LABELS[:2]
    soft.compliant_force = np.zeros((res.t.size, 2, 3))
    soft.compliant_force[:, 0] = (0.3, -4.0, 0.0)
    soft.compliant_force[:, 1] = (-0.1, 2.0, 0.0)
    normal, friction = guide_forces(soft, "guide")
    assert normal == pytest.approx(np.full(res.t.size, 6.0))
    assert friction == pytest.approx(np.full(res.t.size, 0.2))


def test_slider_acceleration_at_step_midpoints() -> None:
    res = synthetic()
    fig = slider_motion_figure(res)
    x, a = fig.axes[1].lines[0].get_xydata().T
    assert x == pytest.approx(0.5 * (res.t[:-1] + res.t[1:]))
    assert a == pytest.approx(np.diff(res.v[:, 6]) / res.h)


@pytest.mark.slow
def test_save_writes_pngs_and_skips_missing_data(tmp_path: Path) -> None:
    kw = dict(clearance=CLEARANCE, half_width=HALF_W, half_length=HALF_L, stroke=STROKE)
    names = ["slider_path", "poincare", "crank_moment", "contact_forces", "slider_motion"]
    few = save_mechanism_figures([("0.5 mm", synthetic())], tmp_path / "few", dpi=50, **kw)
    assert [p.stem for p in few] == [n for n in names if n != "poincare"]  # 3 turns: < 10
    paths = save_mechanism_figures(
        [("0.5 mm", synthetic())], tmp_path / "all", dpi=50, min_poincare_points=3, **kw
    )
    assert paths == [tmp_path / "all" / f"{name}.png" for name in names]
    for p in paths:
        data = p.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 1000, p
    bare = synthetic(drive=False, contacts=False)
    paths = save_mechanism_figures(bare, tmp_path / "bare", dpi=50, min_poincare_points=1, **kw)
    assert [p.stem for p in paths] == ["slider_path", "poincare", "slider_motion"]
    assert sorted(p.name for p in (tmp_path / "bare").iterdir()) == sorted(p.name for p in paths)
    assert [p.stem for p in save_mechanism_figures(bare, tmp_path / "min", dpi=50)] == [
        "slider_motion"
    ]


def test_import_does_not_load_matplotlib() -> None:
    code = "import sys, nlpmbd_joints.guide_figures; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_result_without_drive_or_contacts_gets_the_slider_motion_only(tmp_path: Path) -> None:
    """The fast cover of guide_files.save_mechanism_figures (all five files: the slow test
    above): a result without a drive and without contacts, and without enough crank turns for a
    Poincare map, gets one file, the slider's motion, whose acceleration panel is the result's."""
    bare = synthetic(drive=False, contacts=False)
    [path] = save_mechanism_figures(bare, tmp_path, dpi=30)
    assert path == tmp_path / "slider_motion.png" and path.read_bytes().startswith(PNG_MAGIC)
    x, a = slider_motion_figure(bare).axes[1].lines[0].get_xydata().T
    assert a == pytest.approx(np.diff(bare.v[:, 6]) / bare.h)
