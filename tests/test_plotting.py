"""Figures of nlpmbd.plots.figures: expected files, valid PNGs, degenerate results, a real run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.errors import InputError
from nlpmbd.plots.figures import plot_result

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


def test_writes_all_figures(tmp_path: Path) -> None:
    paths = plot_result(synthetic(), tmp_path / "figs", figures="all")
    assert_pngs(paths, tmp_path / "figs", STANDARD + CONTACTS)


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


def test_no_contacts_no_steps(tmp_path: Path) -> None:
    result = synthetic(n=0, bodies=1, m=0, e=0, j=0)
    assert result.n_steps == 0 and result.lam.shape == (1, 0)
    paths = plot_result(result, tmp_path, figures="all")
    assert_pngs(paths, tmp_path, STANDARD)
    assert not (tmp_path / "contacts.png").exists()


def test_missing_metadata_and_constant_step(tmp_path: Path) -> None:
    result = synthetic(n=3, m=1)
    result.meta = {}
    result.h = np.full(3, 2e-3)
    result.comp_residual = np.zeros(3)
    assert_pngs(plot_result(result, tmp_path, dpi=60, figures="all"), tmp_path, STANDARD + CONTACTS)


def test_other_format_and_bad_arguments(tmp_path: Path) -> None:
    paths = plot_result(synthetic(), tmp_path, fmt="svg", figures="all")
    assert [p.suffix for p in paths] == [".svg"] * 9
    with pytest.raises(InputError, match="format"):
        plot_result(synthetic(), tmp_path / "x", fmt="nope")
    with pytest.raises(InputError, match="dpi"):
        plot_result(synthetic(), tmp_path / "y", dpi=0)


def test_import_does_not_load_matplotlib() -> None:
    code = "import sys, nlpmbd.plots.figures; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_real_pendulum_run(tmp_path: Path) -> None:
    case = get_case("pendulum")
    system, _params = case.build({})
    res = simulate(system, SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3))
    assert res.lam.shape[1] == 0
    paths = plot_result(res, tmp_path, figures="all")
    assert_pngs(paths, tmp_path, STANDARD + ["joint_forces"])


def test_overlay_of_ideal_under_clearance_run(tmp_path: Path) -> None:
    case = get_case("pendulum")
    opts = SimulationOptions(t_end=0.05, h_min=1e-3, h_max=1e-3)
    ideal = simulate(case.build({})[0], opts, meta={"parameters": {"joint": "ideal"}})
    loose = simulate(case.build({"joint": "clearance"})[0], opts)
    paths = plot_result(loose, tmp_path, overlay=ideal, overlay_label="ideal", figures="all")
    assert_pngs(paths, tmp_path, STANDARD + CONTACTS + ["clearance_pin"])
