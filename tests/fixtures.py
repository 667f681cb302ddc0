"""Test-only helpers."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from nlpmbd import SimulationResult, System
from nlpmbd.apps.registry import get_case
from references.ref_pendulum import swing


def tilted_box(height: float = 0.05, tilt_deg: float = 20.0, spin: float = 3.0) -> System:
    """The box_drop case: a tilted, spinning box dropped on the floor (8 corner contacts)."""
    system, _ = get_case("box_drop").build({"height": height, "tilt": tilt_deg, "spin": spin})
    return system


# --- independent references, written out here (not taken from the engine) ---------------------
def g_of(p: np.ndarray) -> np.ndarray:
    """G(p) = [-e, -e~ + e0 I] (Haug), written out."""
    e0, e1, e2, e3 = p
    return np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])


def q_dot_of(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """q_dot = T(q) v: r_dot = v_r, p_dot = 1/2 G(p)^T w'."""
    out = np.empty_like(q)
    for k in range(q.size // 7):
        out[7 * k : 7 * k + 3] = v[6 * k : 6 * k + 3]
        out[7 * k + 3 : 7 * k + 7] = (
            0.5 * g_of(q[7 * k + 3 : 7 * k + 7]).T @ v[6 * k + 3 : 6 * k + 6]
        )
    return out


def pendulum_theta_reference(
    t_end: float, m: float = 1.0, L: float = 0.5, g: float = 9.81, jzz: float = 0.085
):
    """theta(t) of the minimal-coordinate ODE I_O theta'' = -m g L cos(theta), I_O = J_zz + m L^2,
    released at rest horizontally (theta from +X towards +Y), solved by scipy to 1e-12."""
    return swing(t_end, m, L, jzz + m * L**2, g)


def pendulum_theta_error(res: SimulationResult, theta_ref) -> float:
    """Max |theta - theta_ref| of the first body's centre of mass about the pin (Z axis)."""
    theta = np.unwrap(np.arctan2(res.q[:, 1], res.q[:, 0]))
    return float(np.max(np.abs(theta - theta_ref(res.t))))


def reseal(d, edit_meta=None) -> None:
    """Rewrite the result in directory d after its arrays (in result.npz) or, through
    `edit_meta(meta)`, its metadata were edited, with a checksum that matches again: what a
    careful editor would do, so that loading reaches the checks behind the checksum."""
    import json
    from pathlib import Path

    from nlpmbd.io.files import EMBEDDED_META, checksum
    from nlpmbd.io.schema import ARRAYS

    d = Path(d)
    with np.load(d / "result.npz", allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop(EMBEDDED_META)))
    if edit_meta is not None:
        edit_meta(meta)
    if all(name in arrays for name in ARRAYS):
        meta["digest"] = checksum(meta, arrays)
    text = json.dumps(meta, indent=2, sort_keys=True)
    np.savez_compressed(d / "result.npz", **arrays, **{EMBEDDED_META: np.array(text)})
    (d / "meta.json").write_text(text)


@contextlib.contextmanager
def dask_worker_in(directory: Path) -> Iterator[str]:
    """A local Dask scheduler and one worker process started in `directory` (not the client's
    working directory); yields the scheduler's address once the worker is there."""
    import distributed

    with distributed.LocalCluster(n_workers=0, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1"]
            + ["--nthreads", "1", "--no-dashboard"],
            cwd=directory,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            with distributed.Client(address) as client:
                client.wait_for_workers(1, timeout=60)
                assert list(client.run(os.getcwd).values()) == [str(directory)]
            yield address
        finally:
            worker.terminate()
            worker.wait(timeout=30)


#: Steps of a model file's short comparison run with its case (short_run).
SHORT_STEPS = 20


def load_model_file(path: Path | str):
    """A model file with the built-in joints (independent of the installed entry points)."""
    from nlpmbd import SimulationOptions
    from nlpmbd.io.model_file import load_model
    from nlpmbd_joints.registry import JOINTS

    return load_model(path, joints=JOINTS, options=SimulationOptions)


def short_run(system: System, h: float) -> SimulationResult:
    """SHORT_STEPS QP steps of h on the VM: a model file's system against its case's."""
    from nlpmbd import SimulationOptions, simulate

    options = SimulationOptions(t_end=SHORT_STEPS * h, h_min=h, h_max=h, solver="qp", codegen="off")
    return simulate(system, options)
