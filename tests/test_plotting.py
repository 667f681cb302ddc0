"""Figures of nlpmbd.plots.figures: expected files, valid PNGs, degenerate results, a real run;
the lines drawn, read back from the Axes, against the result's arrays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.errors import InputError
from nlpmbd.plots import joint_figures
from nlpmbd.plots.clearance_data import joint_tracks, radial_joints
from nlpmbd.plots.figures import figure_specs, plot_result, render
from nlpmbd.plots.orbit import clearance_figure, clearance_figures
from nlpmbd.plots.panels import Curve, Panel, panels_figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
STANDARD = ["positions", "velocities", "orientation", "step_size", "residuals", "energy"]
CONTACTS = ["joint_forces", "contacts", "contact_points"]


def synthetic(n: int = 5, bodies: int = 2, m: int = 2, e: int = 3, j: int = 2) -> SimulationResult:
    """A hand-made result with n steps, `bodies` bodies, m contacts, e equalities, j joints."""
    rng = np.random.default_rng(0)
    h = np.linspace(1e-3, 4e-3, n)  # varies by a factor 4 -> log axis
    t = np.concatenate([[0.0], np.cumsum(h)])
    q = np.zeros((n + 1, 7 * bodies))
    for k in range(bodies):
        q[:, 7 * k : 7 * k + 3] = rng.normal(size=(n + 1, 3))
        q[:, 7 * k + 3] = 1.0
    energy = np.column_stack([t, -t, np.zeros(n + 1)])
    eom = rng.uniform(1e-12, 1e-9, n)
    if n:
        eom[0] = 0.0  # one exact zero on a log axis
    return SimulationResult(
        t=t,
        h=h,
        q=q,
        v=rng.normal(size=(n + 1, 6 * bodies)),
        lam=np.abs(rng.normal(size=(n + 1, m))),
        lam_eq=rng.normal(size=(n + 1, e)),
        gap=-np.abs(rng.normal(scale=1e-4, size=(n + 1, m))),
        energy=energy,
        eom_residual=eom,
        norm_residual=np.full(n, 1e-12),
        eq_residual=np.zeros(n + 1),
        comp_residual=np.full(n, 1e-11),
        iterations=np.arange(n, dtype=int) + 1,
        solve_time=np.full(n, 1e-3),
        status=np.array([0, 1, 2, 0, 0][:n] + [0] * max(0, n - 5), dtype=int),
        contact_force=rng.normal(size=(n + 1, m, 3)),
        contact_point=rng.normal(size=(n + 1, m, 3)),
        joint_force=rng.normal(size=(n + 1, j, 3)),
        gap_uncorrected=np.full(n, -1e-5),
        friction_force=rng.normal(size=(n + 1, m, 3)),
        compliant_gap=np.zeros((n + 1, 0)),
        compliant_force=np.zeros((n + 1, 0, 3)),
        meta={
            "joints": [f"j{k}" for k in range(j)],
            "bodies": [f"b{k}" for k in range(bodies)],
            "contact_labels": [f"c{j}" for j in range(m)],
            "eq_labels": [f"eq{i}" for i in range(e)],
            "case": "synthetic",
            "completed": True,
        },
    )


def assert_pngs(paths: list[Path], out: Path, names: list[str]) -> None:
    assert paths == [out / f"{name}.png" for name in names]
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.png" for name in names)
    for p in paths:
        data = p.read_bytes()
        assert data.startswith(PNG_MAGIC), p
        assert len(data) > 1000, p


@pytest.mark.slow
def test_writes_all_figures(tmp_path: Path) -> None:
    paths = plot_result(synthetic(), tmp_path / "figs", figures="all")
    assert_pngs(paths, tmp_path / "figs", STANDARD + CONTACTS)


@pytest.mark.slow
def test_the_default_draws_the_standard_set(tmp_path: Path) -> None:
    """A run's figures by default: positions, energy, step size (where h varied), contacts;
    the rest on request (figures="all", or `nlpmbd plot`)."""
    varied = synthetic()
    assert varied.h.max() > varied.h.min()
    paths = plot_result(varied, tmp_path / "a")
    assert_pngs(paths, tmp_path / "a", ["positions", "step_size", "energy", "contacts"])
    fixed = synthetic()
    fixed.h[:] = fixed.h[0]
    paths = plot_result(fixed, tmp_path / "b")
    assert_pngs(paths, tmp_path / "b", ["positions", "energy", "contacts"])
    with pytest.raises(InputError, match="figures must be one of standard, all"):
        plot_result(fixed, tmp_path / "c", figures="some")


@pytest.mark.slow
def test_no_contacts_no_steps(tmp_path: Path) -> None:
    result = synthetic(n=0, bodies=1, m=0, e=0, j=0)
    assert result.n_steps == 0 and result.lam.shape == (1, 0)
    paths = plot_result(result, tmp_path, figures="all")
    assert_pngs(paths, tmp_path, STANDARD)
    assert not (tmp_path / "contacts.png").exists()


@pytest.mark.slow
def test_missing_metadata_and_constant_step(tmp_path: Path) -> None:
    result = synthetic(n=3, m=1)
    result.meta = {}
    result.h = np.full(3, 2e-3)
    result.comp_residual = np.zeros(3)
    assert_pngs(plot_result(result, tmp_path, dpi=60, figures="all"), tmp_path, STANDARD + CONTACTS)


@pytest.mark.slow
def test_other_format_and_bad_arguments(tmp_path: Path) -> None:
    paths = plot_result(synthetic(), tmp_path, fmt="svg", figures="all")
    assert [p.suffix for p in paths] == [".svg"] * 9
    with pytest.raises(InputError, match="format"):
        plot_result(synthetic(), tmp_path / "x", fmt="nope")
    with pytest.raises(InputError, match="dpi"):
        plot_result(synthetic(), tmp_path / "y", dpi=0)


@pytest.mark.slow
def test_import_does_not_load_matplotlib() -> None:
    code = "import sys, nlpmbd.plots.figures; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_real_pendulum_run(tmp_path: Path) -> None:
    case = get_case("pendulum")
    system, _params = case.build({})
    res = simulate(system, SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3))
    assert res.lam.shape[1] == 0
    paths = plot_result(res, tmp_path, figures="all")
    assert_pngs(paths, tmp_path, STANDARD + ["joint_forces"])


@pytest.mark.slow
def test_overlay_of_ideal_under_clearance_run(tmp_path: Path) -> None:
    case = get_case("pendulum")
    opts = SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3)
    ideal = simulate(case.build({})[0], opts, meta={"parameters": {"joint": "ideal"}})
    loose = simulate(case.build({"joint": "clearance"})[0], opts)
    paths = plot_result(loose, tmp_path, overlay=ideal, overlay_label="ideal", figures="all")
    assert_pngs(paths, tmp_path, STANDARD + CONTACTS + ["clearance_pin"])


def _lines(result: SimulationResult, name: str) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """(x, y) of every line drawn on each axes of standard figure `name` (figures.render)."""
    spec = next(s for s in figure_specs(result, None) if s.name == name)
    fig = render(result, spec)
    return [[(np.asarray(ln.get_xdata()), np.asarray(ln.get_ydata())) for ln in ax.lines]
            for ax in fig.axes]  # fmt: skip


def test_standard_figures_draw_the_result_arrays() -> None:
    """Every standard figure's lines, read back from its Axes, are the result's arrays: positions
    and velocities per body and coordinate, energy and its change, h in ms and the iterations
    (retried and acceptable steps circled), residuals on the log floor, joint and contact forces
    from row 1 at the step starts, gaps, contact-point tracks."""
    r = synthetic(n=6, bodies=2, m=2, j=2)
    t, t1, t0 = r.t, r.t[1:], r.t[:-1]
    for name, cols, width in (("positions", r.q, 7), ("velocities", r.v, 6)):
        for i, lines in enumerate(_lines(r, name)):
            assert len(lines) == 2  # one per body
            for k, (x, y) in enumerate(lines):
                assert np.array_equal(x, t) and np.array_equal(y, cols[:, width * k + i])
    energy, change = _lines(r, "energy")
    for col, (x, y) in enumerate(energy):
        assert np.array_equal(x, t) and np.array_equal(y, r.energy[:, col])
    assert np.array_equal(change[0][1], r.energy[:, 2] - r.energy[0, 2])
    (h,), (its, acceptable, retried) = _lines(r, "step_size")
    assert np.array_equal(h[0], t1) and np.allclose(h[1], 1e3 * r.h, rtol=1e-15)
    assert np.array_equal(its[1], r.iterations)
    assert np.array_equal(acceptable[0], t1[r.status == 1]) and retried[1].tolist() == [3]
    eom = _lines(r, "residuals")[0][0]
    assert np.array_equal(eom[0], t1) and eom[1][0] > 0  # the exact zero sits on the floor
    assert np.array_equal(eom[1][1:], r.eom_residual[1:])
    for i, lines in enumerate(_lines(r, "joint_forces")):
        for k, (x, y) in enumerate(lines):
            assert np.array_equal(x, t0) and np.array_equal(y, r.joint_force[1:, k, i])
    forces, gaps = _lines(r, "contacts")
    for j in range(2):
        assert np.array_equal(forces[j][0], t0) and np.array_equal(forces[j][1], r.lam[1:, j])
        assert np.array_equal(gaps[j][1], r.gap[:, j])
    for i, lines in enumerate(_lines(r, "contact_points")):
        for j, (x, y) in enumerate(lines):
            assert np.array_equal(x, t) and np.array_equal(y, r.contact_point[:, j, i])


def test_clearance_figure_draws_the_orbit_and_eccentricity(tmp_path: Path) -> None:
    """The clearance_<joint> figure of a real clearance pendulum: the orbit panel's line is the
    track's offset / c, the time panels the eccentricity and the normal force from row 1."""
    case = get_case("pendulum")
    opts = SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3)
    res = simulate(case.build({"joint": "clearance", "clearance": 1e-3})[0], opts)
    [(joint, geometry)] = radial_joints(res)
    tracks = joint_tracks(res, joint, geometry)
    fig = clearance_figure(res, joint, geometry)
    orbit_axes, (ecc_ax, force_ax) = fig.axes[: len(tracks)], fig.axes[len(tracks) :]
    for ax, track in zip(orbit_axes, tracks, strict=True):
        assert np.array_equal(ax.lines[0].get_xydata(), track.coords[:, :2])
        assert np.abs(track.coords).max() > 0.9  # the pin crossed its clearance
    for k, track in enumerate(tracks):
        eccentricity = ecc_ax.lines[2 * k]  # each track: its line, then its impact crosses
        assert np.array_equal(eccentricity.get_xdata(), res.t)
        assert np.array_equal(eccentricity.get_ydata(), track.eccentricity)
        assert np.array_equal(force_ax.lines[k].get_ydata(), track.force[1:])
    [path] = clearance_figures(res, tmp_path, "png", 40)
    assert path.name == f"clearance_{joint}.png" and path.read_bytes().startswith(PNG_MAGIC)


def test_study_panels_draw_their_curves_with_the_log_floor() -> None:
    """plots/panels.py (the studies' figures): each curve is drawn as given; on a log panel the
    values below 1e-12 of the largest are drawn at that floor."""
    t = np.linspace(0.0, 1.0, 11)
    deviation = np.exp(-30 * t)
    deviation[-1] = 0.0  # exactly zero: drawn at the floor
    force = np.sin(t)
    fig = panels_figure(
        "study",
        [
            Panel("deviation (m)", [Curve("c=1e-3", t, deviation)], log=True),
            Panel("force (N)", [Curve("a", t, force), Curve("b", t, 2 * force)]),
        ],
    )
    (dev,), (a, b) = fig.axes[0].lines, fig.axes[1].lines
    assert np.array_equal(dev.get_xdata(), t)
    assert np.array_equal(dev.get_ydata()[:-1], deviation[:-1])
    assert dev.get_ydata()[-1] == pytest.approx(1e-12)  # the floor: 1e-12 of the largest (1)
    assert fig.axes[0].get_yscale() == "log"
    assert np.array_equal(a.get_ydata(), force) and np.array_equal(b.get_ydata(), 2 * force)
    assert [line.get_label() for line in (a, b)] == ["a", "b"]


def test_an_overlay_is_drawn_dashed_with_its_difference_below() -> None:
    """plots/difference.py on hand-made results: the overlay's curve dashed on the run's axes,
    and under it run minus overlay on the time span both cover (the overlay interpolated)."""
    run = synthetic(n=6, bodies=1)
    run.meta["parameters"] = {"joint": "clearance"}
    over = synthetic(n=6, bodies=1)
    over.meta["parameters"] = {"joint": "ideal"}
    over.t = over.t * 0.8  # a shorter run on other time points
    over.q[:, 0] += 0.5 * over.t
    spec = next(s for s in figure_specs(run, over, "ideal") if s.name == "positions")
    fig = render(run, spec)
    x_axes, x_diff = fig.axes[0], fig.axes[1]  # x, then its difference panel
    solid, dashed = x_axes.lines
    assert dashed.get_linestyle() == "--" and dashed.get_color() == solid.get_color()
    assert np.array_equal(dashed.get_ydata(), over.q[:, 0])
    inside = run.t <= over.t[-1]
    expected = run.q[inside, 0] - np.interp(run.t[inside], over.t, over.q[:, 0])
    drawn = x_diff.lines[0]
    assert np.array_equal(drawn.get_xdata(), run.t[inside])
    assert drawn.get_ydata() == pytest.approx(expected, abs=1e-15)
    assert x_diff.get_ylabel().endswith("clearance - ideal")


def test_joints_declare_their_figures_through_the_entry_point(tmp_path: Path, monkeypatch) -> None:
    """plots/joint_figures.py: a joint whose geometry names an installed hook is drawn by it,
    with the result, the directory, its name, its geometry and the dpi; other joints are not."""
    assert "planar_guide" in joint_figures.figure_hooks()  # nlpmbd_joints registers it
    calls = []

    def hook(result, out, joint, geometry, dpi):
        calls.append((result, out, joint, geometry["figures"], dpi))
        return [out / f"{joint}.png"]

    class EntryPoint:
        def load(self):
            return hook

    monkeypatch.setattr(joint_figures, "figure_hooks", lambda: {"mine": EntryPoint()})
    result = synthetic()
    result.meta["joint_geometry"] = {
        "a": {"figures": "mine"},
        "b": {"figures": "not installed"},
        "c": {"kind": "no figures"},
        "d": "not a dict",
    }
    paths = joint_figures.joint_figures(result, tmp_path, 50)
    assert paths == [tmp_path / "a.png"]
    assert calls == [(result, tmp_path, "a", "mine", 50)]
