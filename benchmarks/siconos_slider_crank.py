"""The Flores-Leine-Glocker slider-crank in Siconos: the peer side of benchmarks/peer_siconos.py.

Run ONLY by the system interpreter with Debian's python3-siconos (`/usr/bin/python3`); it
imports numpy and siconos, never nlpmbd. Prints one JSON line (setup and loop wall times, and
with --physics the first impact, first revolution and largest penetration). `--driver cpp` runs
the same model with the time loop in C++ (siconos_cpp.py, siconos_slider_crank.cpp: compiled
with g++ against Debian's libsiconos-kernel-dev) and derives the same numbers from its records.

Model, in minimal coordinates q = (theta1, theta2, theta3): crank angle about the pivot O, rod
angle, slider rotation; the slider centre is the rod end C = l1 e(theta1) + l2 e(theta2), so its
height is free (3 DOF) and only the four corner contacts hold it in the guide y = +/-(b + c).
Centres of mass at mid-length of crank and rod, the slider's at C. Gravity along -Y. Corner
(sa, sb) sits at C + R(theta3) (sa a, sb b); sb = +1 corners meet the upper face only, sb = -1
the lower one: g = (b + c) - sb y_corner >= 0. Four unilateral constraints, not eight: with
c = 1 mm an upper corner is at least 2b = 50 mm from the lower face, so the other four pairs
can never close (the paper's eqs. (98)-(105) and nlpmbd's PlanarPrismaticClearance do the
same). Tangent direction +X for friction.

Siconos pieces: LagrangianDS (mass matrix, gyroscopic and gravity terms and their Jacobians
from a small C plugin compiled with gcc at setup, parameters passed in the DS's z vector),
LagrangianScleronomousR per corner, NewtonImpactFrictionNSL(e, 0, mu, 2) with a 2D
FrictionContact solved by SICONOS_FRICTION_2D_LEMKE (the paper's LCP with Lemke), or, when
mu = 0, NewtonImpactNSL(e) with an LCP (Lemke); MoreauJeanOSI(theta) with theta = 0.5 by
default (the paper's midpoint rule), TimeStepping at velocity level with the Newton tolerance
1e-10 of the upstream SliderCrank example (Siconos' default 1e-6 is not enough here: at 10 ms
it leaves the crank at 63.3 rad/s instead of 67.5 and loses 0.8 J). Initial state as in nlpmbd's
case: all angles 0 (outer dead centre), crank omega0, rod -omega0 l1 / l2 (slider at rest).
"""

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

PLUGIN_C = r"""
#include <math.h>
/* z = l1 l2 a b c m1 m2 m3 J1 J2 J3 g */
#define L1 z[0]
#define L2 z[1]
#define K12 ((0.5 * z[6] + z[7]) * z[0] * z[1])
void mass(unsigned n, double *q, double *M, unsigned nz, double *z) {
  double k = K12 * cos(q[1] - q[0]);
  M[0] = z[8] + (0.25 * z[5] + z[6] + z[7]) * L1 * L1; M[1] = k; M[2] = 0.0;
  M[3] = k; M[4] = z[9] + (0.25 * z[6] + z[7]) * L2 * L2; M[5] = 0.0;
  M[6] = 0.0; M[7] = 0.0; M[8] = z[10];
}
void fgyr(unsigned n, double *q, double *v, double *f, unsigned nz, double *z) {
  double s = K12 * sin(q[0] - q[1]);
  f[0] = s * v[1] * v[1]; f[1] = -s * v[0] * v[0]; f[2] = 0.0;
}
void fgyr_q(unsigned n, double *q, double *v, double *J, unsigned nz, double *z) {
  double k = K12 * cos(q[0] - q[1]);
  for (int i = 0; i < 9; i++) J[i] = 0.0;
  J[0] = k * v[1] * v[1]; J[1] = -k * v[0] * v[0];
  J[3] = -J[0]; J[4] = -J[1];
}
void fgyr_v(unsigned n, double *q, double *v, double *J, unsigned nz, double *z) {
  double s = K12 * sin(q[0] - q[1]);
  for (int i = 0; i < 9; i++) J[i] = 0.0;
  J[1] = -2.0 * s * v[0]; J[3] = 2.0 * s * v[1];
}
void fint(double t, unsigned n, double *q, double *v, double *f, unsigned nz, double *z) {
  f[0] = (0.5 * z[5] + z[6] + z[7]) * z[11] * L1 * cos(q[0]);
  f[1] = (0.5 * z[6] + z[7]) * z[11] * L2 * cos(q[1]); f[2] = 0.0;
}
void fint_q(double t, unsigned n, double *q, double *v, double *J, unsigned nz, double *z) {
  for (int i = 0; i < 9; i++) J[i] = 0.0;
  J[0] = -(0.5 * z[5] + z[6] + z[7]) * z[11] * L1 * sin(q[0]);
  J[4] = -(0.5 * z[6] + z[7]) * z[11] * L2 * sin(q[1]);
}
void fint_v(double t, unsigned n, double *q, double *v, double *J, unsigned nz, double *z) {
  for (int i = 0; i < 9; i++) J[i] = 0.0;
}
/* corner (SA a, SB b): y[0] normal gap, y[1] x of the corner; W column-major (ny x 3) */
#define CORNER(NAME, SA, SB)                                                          \
void gap_##NAME(unsigned n, double *q, unsigned ny, double *y, unsigned nz, double *z) { \
  double yc = L1 * sin(q[0]) + L2 * sin(q[1]);                                          \
  double yk = yc + SA * z[2] * sin(q[2]) + SB * z[3] * cos(q[2]);                       \
  y[0] = z[3] + z[4] - SB * yk;                                                         \
  if (ny > 1) y[1] = L1 * cos(q[0]) + L2 * cos(q[1]) + SA * z[2] * cos(q[2])            \
                     - SB * z[3] * sin(q[2]);                                           \
}                                                                                       \
void jac_##NAME(unsigned n, double *q, unsigned ny, double *W, unsigned nz, double *z) { \
  double dy[3] = {L1 * cos(q[0]), L2 * cos(q[1]),                                       \
                  SA * z[2] * cos(q[2]) - SB * z[3] * sin(q[2])};                       \
  double dx[3] = {-L1 * sin(q[0]), -L2 * sin(q[1]),                                     \
                  -SA * z[2] * sin(q[2]) - SB * z[3] * cos(q[2])};                      \
  for (int j = 0; j < 3; j++) {                                                         \
    W[j * ny] = -SB * dy[j];                                                            \
    if (ny > 1) W[j * ny + 1] = dx[j];                                                  \
  }                                                                                     \
}
CORNER(front_upper, 1.0, 1.0)
CORNER(back_upper, -1.0, 1.0)
CORNER(front_lower, 1.0, -1.0)
CORNER(back_lower, -1.0, -1.0)
"""

CORNERS = (
    ("front_upper", 1, 1),
    ("back_upper", -1, 1),
    ("front_lower", 1, -1),
    ("back_lower", -1, -1),
)
#: Table 1 of the paper (SI units); the driver passes nlpmbd's own numbers with --geometry.
TABLE1 = dict(
    l1=0.153, l2=0.306, a=0.05, b=0.025, m1=0.038, m2=0.038, m3=0.076,
    J1=7.4e-5, J2=5.9e-4, J3=2.7e-6, g=9.81, omega0=150.0,
)  # fmt: skip


def build_plugin() -> str:
    """Compile PLUGIN_C once into a cached shared library; its path without the suffix."""
    digest = hashlib.sha256(PLUGIN_C.encode()).hexdigest()[:12]
    folder = os.path.join(tempfile.gettempdir(), f"siconos_slider_crank_{digest}")
    lib = os.path.join(folder, "plugin")
    if not os.path.exists(lib + ".so"):
        os.makedirs(folder, exist_ok=True)
        src = os.path.join(folder, "plugin.c")
        with open(src, "w") as fh:
            fh.write(PLUGIN_C)
        tmp = f"{lib}.{os.getpid()}.so"
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", src, "-o", tmp, "-lm"], check=True)
        os.replace(tmp, lib + ".so")
    return lib


def build(p: dict, lib: str):
    """(simulation, ds, interactions) for parameters p (TABLE1 keys plus c, e, mu, h, t_end,
    theta)."""
    import siconos.kernel as sk
    import siconos.numerics as sn

    z = [p[k] for k in ("l1", "l2", "a", "b", "c", "m1", "m2", "m3", "J1", "J2", "J3", "g")]
    w = p["omega0"]
    ds = sk.LagrangianDS(np.zeros(3), np.array([w, -w * p["l1"] / p["l2"], 0.0]))
    ds.setzPtr(np.array(z))
    for setter, name in (
        (ds.setComputeMassFunction, "mass"),
        (ds.setComputeFGyrFunction, "fgyr"),
        (ds.setComputeJacobianFGyrqFunction, "fgyr_q"),
        (ds.setComputeJacobianFGyrqDotFunction, "fgyr_v"),
        (ds.setComputeFIntFunction, "fint"),
        (ds.setComputeJacobianFIntqFunction, "fint_q"),
        (ds.setComputeJacobianFIntqDotFunction, "fint_v"),
    ):
        setter(lib, name)
    nsds = sk.NonSmoothDynamicalSystem(0.0, p["t_end"])
    nsds.insertDynamicalSystem(ds)
    frictional = p["mu"] > 0.0
    inters = []
    for name, _, _ in CORNERS:
        if frictional:
            law = sk.NewtonImpactFrictionNSL(p["e"], 0.0, p["mu"], 2)
        else:
            law = sk.NewtonImpactNSL(p["e"])
        rel = sk.LagrangianScleronomousR(f"{lib}:gap_{name}", f"{lib}:jac_{name}")
        inter = sk.Interaction(law, rel)
        nsds.link(inter, ds)
        inters.append(inter)
    if frictional:
        osnsp = sk.FrictionContact(2, sn.SICONOS_FRICTION_2D_LEMKE)
    else:
        osnsp = sk.LCP(sn.SICONOS_LCP_LEMKE)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, p["h"]))
    sim.insertIntegrator(sk.MoreauJeanOSI(p["theta"]))
    sim.insertNonSmoothProblem(osnsp, sk.SICONOS_OSNSP_TS_VELOCITY)
    sim.setNewtonTolerance(p["newton_tol"])
    sim.setNewtonMaxIteration(200)
    return sim, ds, inters


def corner_gaps(p: dict, q: np.ndarray) -> np.ndarray:
    """(4,) gaps of the corners at q (>= 0 open, < 0 penetration), as in PLUGIN_C."""
    yc = p["l1"] * math.sin(q[0]) + p["l2"] * math.sin(q[1])
    s, co = math.sin(q[2]), math.cos(q[2])
    return np.array(
        [p["b"] + p["c"] - sb * (yc + sa * p["a"] * s + sb * p["b"] * co) for _, sa, sb in CORNERS]
    )


def energy(p: dict, q: np.ndarray, v: np.ndarray) -> float:
    """Kinetic plus gravitational potential energy (J) of the minimal-coordinate model."""
    k = (0.5 * p["m2"] + p["m3"]) * p["l1"] * p["l2"] * math.cos(q[1] - q[0])
    m11 = p["J1"] + (0.25 * p["m1"] + p["m2"] + p["m3"]) * p["l1"] ** 2
    m22 = p["J2"] + (0.25 * p["m2"] + p["m3"]) * p["l2"] ** 2
    T = 0.5 * (m11 * v[0] ** 2 + 2 * k * v[0] * v[1] + m22 * v[1] ** 2 + p["J3"] * v[2] ** 2)
    V = p["g"] * (
        (0.5 * p["m1"] + p["m2"] + p["m3"]) * p["l1"] * math.sin(q[0])
        + (0.5 * p["m2"] + p["m3"]) * p["l2"] * math.sin(q[1])
    )
    return T + V


def run_timed(sim) -> int:
    steps = 0
    while sim.hasNextEvent():
        sim.advanceToEvent()
        sim.processEvents()
        steps += 1
    return steps


def run_recorded(sim, ds, inters, p: dict) -> np.ndarray:
    """The loop with a record of every step: (steps + 1, 8) rows t, q (3), v (3), the largest
    normal impulse over the corners (the C++ driver, siconos_cpp.py, records the same)."""
    rec = [[0.0, *ds.q(), *ds.velocity(), 0.0]]
    while sim.hasNextEvent():
        sim.advanceToEvent()
        impulse = max(float(i.lambda_(1)[0]) for i in inters)
        rec.append([sim.nextTime(), *ds.q(), *ds.velocity(), impulse])
        sim.processEvents()
    return np.array(rec, dtype=float)


def physics_of(rec: np.ndarray, p: dict) -> dict:
    """The physics numbers of a run from its records (run_recorded's rows)."""
    gaps = np.array([corner_gaps(p, q) for q in rec[:, 1:4]])
    e = [energy(p, q, v) for q, v in zip(rec[:, 1:4], rec[:, 4:7], strict=True)]
    return physics(rec[:, 0], rec[:, 1], rec[:, 7], gaps, e, p)


def revolution_time(t: np.ndarray, theta: np.ndarray, n: int) -> float | None:
    """Time (s) at which the crank angle first reaches 2 pi n, interpolated linearly."""
    j = np.flatnonzero(theta >= 2 * math.pi * n)
    if not j.size or j[0] == 0:
        return None
    k = int(j[0])
    frac = (2 * math.pi * n - theta[k - 1]) / (theta[k] - theta[k - 1])
    return float(t[k - 1] + frac * (t[k] - t[k - 1]))


def physics(t, theta, impulse, gaps, e, p) -> dict:
    """First impact: end of the first step whose largest normal impulse exceeds 1e-6 N times h
    (the threshold the driver also applies to nlpmbd's forces)."""
    hit = np.flatnonzero(impulse > 1e-6 * p["h"])
    pen = float(max(0.0, -gaps.min()))
    return {
        "first_impact": float(t[hit[0]]) if hit.size else None,
        "first_revolution": revolution_time(t, theta, 1),
        "two_revolutions": revolution_time(t, theta, 2),
        "max_penetration": pen,
        "max_penetration_c": pen / p["c"],
        "energy_start": e[0],
        "energy_end": e[-1],
        "theta_end": float(theta[-1]),
    }


def run_python(p: dict, physics: bool) -> tuple[dict, np.ndarray | None]:
    """The timed run with the loop in Python: times, steps, crank speed; with `physics` the
    records of every step (timed too: a --physics run is not a timing run)."""
    tic = time.perf_counter()
    sim, ds, inters = build(p, build_plugin())
    setup = time.perf_counter() - tic
    tic = time.perf_counter()
    rec = run_recorded(sim, ds, inters, p) if physics else None
    steps = len(rec) - 1 if rec is not None else run_timed(sim)
    out = dict(setup_time=setup, loop_time=time.perf_counter() - tic, steps=steps)
    out["crank_speed_end"] = float(ds.velocity()[0])
    return out, rec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--h", type=float, default=1e-5)
    ap.add_argument("--t-end", type=float, default=0.01)
    ap.add_argument("--clearance", type=float, default=1e-3)
    ap.add_argument("--restitution", type=float, default=0.4)
    ap.add_argument("--mu", type=float, default=0.01)
    ap.add_argument("--theta", type=float, default=0.5)
    ap.add_argument("--newton-tol", type=float, default=1e-10)
    ap.add_argument("--geometry", default="{}", help="JSON overriding TABLE1")
    ap.add_argument("--physics", action="store_true", help="record every step")
    ap.add_argument("--driver", choices=("python", "cpp"), default="python",
                    help="the time loop in Python, or in C++ (siconos_cpp.py)")  # fmt: skip
    a = ap.parse_args(argv)
    p = {**TABLE1, **json.loads(a.geometry)}
    p.update(
        c=a.clearance,
        e=a.restitution,
        mu=a.mu,
        h=a.h,
        t_end=a.t_end,
        theta=a.theta,
        newton_tol=a.newton_tol,
    )
    if a.driver == "cpp":
        from siconos_cpp import run_cpp  # its sibling (this file runs as a script)

        out, rec = run_cpp(p, build_plugin(), a.physics)
    else:
        out, rec = run_python(p, a.physics)
    if rec is not None:
        out.update(physics_of(rec, p))
    out.update(h=a.h, t_end=a.t_end, driver=a.driver)
    out["siconos"] = str(getattr(__import__("siconos"), "version", "?"))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
