"""`nlpmbd export DIR --format csv|hdf5|vtk`: every array read back from each format equals the
result's (exactly: CSV holds 17 significant digits), under the labels and units the headers
promise; bad input ends with exit 2 and one line."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET

import h5py
import meshio
import numpy as np
import pandas as pd
import pytest

from nlpmbd import SimulationResult
from nlpmbd.apps import cli_export
from nlpmbd.apps.cli import main
from nlpmbd.io import export as export_module
from nlpmbd.io.export_vtk import MAX_FRAMES, frame_indices
from nlpmbd.io.schema import SCHEMA

#: 3 bodies, 4 contacts, 15 equalities, 4 joints, no compliant contacts; 30 steps.
RUN = ["run", "slider_crank", "--t-end", "3e-4", "--no-plot", "--quiet"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "run"
    assert main([*RUN, "--out", str(out)]) == 0
    return out, SimulationResult.load(out)


def _export(capsys, *argv: str) -> list[str]:
    assert main(["export", *argv]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out.splitlines()


def test_csv_round_trip(saved, capsys):
    d, result = saved
    lines = _export(capsys, str(d), "--format", "csv")
    out = d / "export" / "csv"
    arrays = result.arrays()
    written = {name for name, a in arrays.items() if a.ndim == 1 or a[0].size}
    assert lines[:-1] == [str(out / f"{s.name}.csv") for s in SCHEMA if s.name in written]
    assert lines[-1] == (
        "no columns, not written: compliant_gap, compliant_force, node_q, node_v, node_force"
    )
    for spec in SCHEMA:
        if spec.name not in written:
            assert not (out / f"{spec.name}.csv").exists()
            continue
        table = pd.read_csv(out / f"{spec.name}.csv", engine="python")
        a = arrays[spec.name]
        values = table.iloc[:, {"point": 0 if spec.name == "t" else 1, "step": 2}[spec.per] :]
        np.testing.assert_array_equal(values.to_numpy(), a.reshape(a.shape[0], -1))
        if spec.per == "step":
            assert list(table.columns[:2]) == ["step", "t [s]"]
            np.testing.assert_array_equal(table["step"], np.arange(result.n_steps))
            np.testing.assert_array_equal(table["t [s]"], result.t[1:])
        elif spec.name != "t":
            assert table.columns[0] == "t [s]"
            np.testing.assert_array_equal(table["t [s]"], result.t)


def test_csv_headers_name_bodies_labels_and_units(saved):
    d, _ = saved  # written by test_csv_round_trip or here
    assert main(["export", str(d), "--format", "csv"]) == 0
    out = d / "export" / "csv"

    def header(name):
        return list(pd.read_csv(out / f"{name}.csv", nrows=0).columns)

    q = header("q")
    assert q[:8] == ["t [s]"] + [f"crank.{c} [m]" for c in "xyz"] + [
        f"crank.e{k} [1]" for k in range(4)
    ]
    assert q[-1] == "slider.e3 [1]" and len(q) == 1 + 21
    assert header("v")[1:7] == [
        "crank.vx [m/s]", "crank.vy [m/s]", "crank.vz [m/s]",
        "crank.wx' [rad/s]", "crank.wy' [rad/s]", "crank.wz' [rad/s]",
    ]  # fmt: skip
    assert header("lam") == ["t [s]"] + [
        f"guide.{p}_{s} [N]" for p in ("front", "back") for s in ("upper", "lower")
    ]
    assert header("contact_force")[1:4] == [f"guide.front_upper.{c} [N]" for c in "xyz"]
    assert header("joint_force")[-1] == "guide.z [N]"
    assert header("lam_eq")[1] == "pivot.dx [N or N m]"
    assert header("energy") == ["t [s]", "kinetic [J]", "potential [J]", "total [J]"]
    assert header("iterations") == ["step", "t [s]", "iterations [1]"]


def test_hdf5_holds_every_array_exactly(saved, capsys):
    d, result = saved
    target = d / "h5"
    assert _export(capsys, str(d), "--format", "hdf5", "--out", str(target)) == [
        str(target / "result.h5")
    ]
    with h5py.File(target / "result.h5", "r") as f:
        for spec in SCHEMA:
            a, ds = getattr(result, spec.name), f[spec.name]
            assert ds.dtype == a.dtype and ds.shape == a.shape, spec.name
            np.testing.assert_array_equal(ds[()], a)
            assert ds.attrs["description"] == spec.description
            assert ds.attrs["per"] == spec.per
            assert len(ds.attrs["columns"]) == len(ds.attrs["column_units"]) == a[0].size
        assert list(f["q"].attrs["columns"][7:9]) == ["rod.x", "rod.y"]
        assert list(f["q"].attrs["column_units"][5:8]) == ["1", "1", "m"]
        assert f["contact_point"].attrs["unit"] == "m"
        assert f["contact_point"].attrs["shape"] == "M 3"
        assert f.attrs["case"] == "slider_crank"
        assert f.attrs["completed"]
        assert json.loads(f.attrs["meta_json"]) == result.meta
        assert json.loads(f.attrs["bodies"]) == ["crank", "rod", "slider"]


def _pvd(path):
    return [
        (float(e.get("timestep")), e.get("name"), e.get("file"))
        for e in ET.parse(path).getroot().iter("DataSet")
    ]


@pytest.mark.parametrize("every", [None, 7])
def test_vtk_frames_hold_bodies_and_contacts(saved, capsys, every):
    d, result = saved
    target = d / "vtk"
    extra = [] if every is None else ["--every", str(every)]
    lines = _export(capsys, str(d), "--format", "vtk", "--out", str(target), *extra)
    rows = list(range(31)) if every is None else [0, 7, 14, 21, 28, 30]
    assert lines == [
        str(target / "result.pvd"),
        f"{len(rows)} frames ({2 * len(rows)} files) in {target / 'frames'}",
    ]
    # a second export with another `every` leaves no frames of the first behind
    assert len(list((target / "frames").iterdir())) == 2 * len(rows)
    entries = _pvd(target / "result.pvd")
    assert [e[1] for e in entries] == ["bodies", "contacts"] * len(rows)
    for (time, _, bodies), (time2, _, contacts), k in zip(
        entries[::2], entries[1::2], rows, strict=True
    ):
        assert time == time2 == result.t[k]
        b = meshio.read(target / bodies)
        q, v = result.q[k].reshape(3, 7), result.v[k].reshape(3, 6)
        np.testing.assert_array_equal(b.points, q[:, :3])
        np.testing.assert_array_equal(b.point_data["orientation"], q[:, 3:])
        np.testing.assert_array_equal(b.point_data["velocity"], v[:, :3])
        np.testing.assert_array_equal(b.point_data["angular_velocity"], v[:, 3:])
        assert b.cells[0].type == "vertex" and len(b.cells[0].data) == 3
        c = meshio.read(target / contacts)
        np.testing.assert_array_equal(c.points, result.contact_point[k])
        np.testing.assert_array_equal(c.point_data["lam"], result.lam[k])
        np.testing.assert_array_equal(c.point_data["gap"], result.gap[k])
        np.testing.assert_array_equal(c.point_data["contact_force"], result.contact_force[k])


def test_frame_count_is_bounded_by_default():
    assert frame_indices(31, None) == list(range(31))
    assert frame_indices(31, 10) == [0, 10, 20, 30]
    assert frame_indices(32, 10) == [0, 10, 20, 30, 31]
    for n in (MAX_FRAMES, MAX_FRAMES + 1, 5001, 123457):
        rows = frame_indices(n, None)
        assert len(rows) <= MAX_FRAMES and rows[0] == 0 and rows[-1] == n - 1
        assert rows == sorted(set(rows))


def test_formats_agree():
    assert cli_export.FORMATS == export_module.FORMATS


def _refused(capsys, argv: list[str], *words: str) -> None:
    assert main(["export", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert err.startswith("nlpmbd: error: ") and "\n" not in err, err
    for word in words:
        assert word in err, err


def test_bad_input_is_one_line_and_exit_2(saved, tmp_path, capsys, monkeypatch):
    d, _ = saved
    _refused(capsys, [str(tmp_path / "nowhere"), "--format", "csv"], "does not exist")
    _refused(capsys, [str(tmp_path), "--format", "csv"], "no result.npz")
    _refused(capsys, [str(d), "--format", "xls"], "--format", "csv", "hdf5", "vtk")
    _refused(capsys, [str(d)], "--format")
    _refused(capsys, [str(d), "--format", "vtk", "--every", "0"], "--every", ">= 1")
    _refused(capsys, [str(d), "--format", "csv", "--every", "2"], "--every", "vtk")
    (tmp_path / "file").write_text("")
    _refused(capsys, [str(d), "--format", "csv", "--out", str(tmp_path / "file")], "--out")
    monkeypatch.setitem(sys.modules, "h5py", None)  # as if it were not installed
    _refused(capsys, [str(d), "--format", "hdf5"], "pip install h5py")
    monkeypatch.setitem(sys.modules, "meshio", None)
    _refused(capsys, [str(d), "--format", "vtk"], "pip install meshio")
    # refused before anything was created
    assert not (d / "export" / "hdf5").exists() and not (d / "export" / "vtk").exists()
