"""The runs of the Siconos peer benchmark (benchmarks/peer_siconos.py): one subprocess per run,
Siconos by the system interpreter (benchmarks/siconos_slider_crank.py), nlpmbd by its CLI, BLAS
on one thread; each returns its loop time and, with `physics`, the run's physical landmarks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SICONOS_PYTHON = "/usr/bin/python3"
SCRIPT = Path(__file__).with_name("siconos_slider_crank.py")
ROOT = Path(__file__).resolve().parent.parent
BLAS_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
IMPACT_FORCE = 1e-6  # N: a normal force above this is a contact
PAPER, SMOOTH = "e=0.4 mu=0.01", "e=0 mu=0"
#: The Siconos sides: the script's --driver (time loop in Python or in C++) and their labels.
SICONOS_DRIVERS = {"siconos": "python", "siconos_cpp": "cpp"}
SIDE_LABELS = {"siconos": "siconos", "siconos_cpp": "siconos C++"}


@dataclass(frozen=True)
class Spec:
    side: str  # "siconos" (its loop in Python), "siconos_cpp" (in C++) or "nlpmbd"
    h: float
    variant: str = PAPER
    solver: str = "qp"  # nlpmbd's path: "nlp" (IPOPT) or "qp" (the compiled fast path)

    @property
    def label(self) -> str:
        name = f"nlpmbd {self.solver}" if self.side == "nlpmbd" else SIDE_LABELS[self.side]
        return f"{name} ({self.variant})"


def siconos_missing(python: str) -> str | None:
    """Why the Siconos side cannot run, or None when it can."""
    try:
        r = subprocess.run(
            [python, "-c", "import siconos.kernel"], capture_output=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{python} cannot be run ({exc.__class__.__name__})"
    if r.returncode != 0:
        return f"{python} cannot import siconos (apt-get install python3-siconos)"
    if shutil.which("gcc") is None:
        return "gcc, needed for the Siconos model's plugin, is not on PATH"
    return None


def siconos_geometry() -> dict:
    """nlpmbd's own numbers of the case, in the names of siconos_slider_crank.TABLE1."""
    from nlpmbd_cases.slider_crank import CASE, GEOMETRY

    g = GEOMETRY
    defaults = {p.name: p.default for p in CASE.parameters}
    return dict(
        l1=g.crank_length, l2=g.rod_length, a=g.slider_length / 2, b=g.slider_width / 2,
        m1=g.crank_mass, m2=g.rod_mass, m3=g.slider_mass, J1=g.crank_inertia,
        J2=g.rod_inertia, J3=g.slider_inertia, g=defaults["g"], omega0=defaults["omega0"],
    )  # fmt: skip


def _env() -> dict:
    return {**os.environ, **BLAS_ENV}


def run_siconos(spec: Spec, t_end: float, python: str, physics: bool = False) -> dict:
    e, mu = (0.4, 0.01) if spec.variant == PAPER else (0.0, 0.0)
    cmd = [python, str(SCRIPT), "--h", repr(spec.h), "--t-end", repr(t_end)]
    cmd += ["--driver", SICONOS_DRIVERS[spec.side]]
    cmd += ["--restitution", repr(e), "--mu", repr(mu), "--clearance", "1e-3"]
    cmd += ["--geometry", json.dumps(siconos_geometry())] + (["--physics"] if physics else [])
    r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=ROOT, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_nlpmbd(spec: Spec, t_end: float, physics: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="peer_siconos_") as tmp:
        out = Path(tmp) / "run"
        cmd = [sys.executable, "-m", "nlpmbd", "run", "slider_crank", "--h", repr(spec.h)]
        cmd += ["--t-end", repr(t_end), "--no-plot", "--quiet", "--force", "--out", str(out)]
        cmd += ["--solver", spec.solver]
        if spec.solver == "qp":
            cmd += ["--codegen", "on"]  # compiled once, cached: setup_time, not loop_time
        if spec.variant == SMOOTH:
            cmd += ["--set", "mu=0", "--set", "restitution=0"]
        subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=ROOT, check=True)
        meta = json.loads((out / "meta.json").read_text())
        row = {
            "setup_time": meta["setup_time"],
            "loop_time": meta["wall_time"] - meta["setup_time"],
            "steps": meta["summary"]["steps"],
        }
        if physics:
            row.update(nlpmbd_physics(out))
        return row


def nlpmbd_physics(out: Path) -> dict:
    import numpy as np

    from nlpmbd.io.clearances import penetration_scales
    from nlpmbd.io.result import SimulationResult
    from nlpmbd_joints.guide_data import crank_angle

    from .siconos_slider_crank import revolution_time

    r = SimulationResult.load(out)
    scales = penetration_scales(r.meta, r.gap.shape[1])  # the guide's gaps' clearance
    c = float(scales[scales > 0].min()) if np.any(scales > 0) else 1e-3
    hit = np.flatnonzero(r.lam.max(axis=1) > IMPACT_FORCE)
    theta = crank_angle(r)
    pen = float(max(0.0, r.gap.max()))
    return {
        "first_impact": float(r.t[hit[0]]) if hit.size else None,
        "first_revolution": revolution_time(r.t, theta, 1),
        "two_revolutions": revolution_time(r.t, theta, 2),
        "max_penetration": pen,
        "max_penetration_c": pen / c,
        "max_penetration_uncorrected": float(max(0.0, r.gap_uncorrected.max())),
        "energy_start": float(r.energy[0, 2]),
        "energy_end": float(r.energy[-1, 2]),
    }
