"""The ideal pendulum in MuJoCo: a peer side of benchmarks/peer_defaults.py.

Run ONLY by an interpreter with `mujoco` installed (a separate virtual environment, e.g.
`python3 -m venv /work/venv-peers && /work/venv-peers/bin/pip install mujoco`); it imports numpy
and mujoco, never nlpmbd. Prints one JSON line: setup time, the wall time of the mj_step loop
over the run (`loop_time`), the same run by `mujoco.rollout` (a C loop, no Python call per step:
`rollout_time`), steps, version; with --theta FILE it saves (t, theta) of a separate, untimed
run to FILE (.npy, shape (2, n+1)).

Model (nlpmbd_cases/pendulum.py, joint = ideal): one body on a hinge along Z through the origin,
m = 1 kg, centre of mass 0.5 m along the body's x axis, inertia at the centre of mass
diag(2e-3, 0.085, 0.085) kg m^2 (J_zz = 0.085 about the pin axis), gravity 9.81 m/s^2 along
-Y, released at rest horizontally (qpos = 0: the centre of mass on +X). The hinge angle is
theta of the minimal-coordinate ODE I_O theta'' = -m g L cos(theta). No geoms, no contacts,
no damping or armature: MuJoCo's Euler integrator is then semi-implicit (symplectic) Euler.
"""

import argparse
import json
import time

import mujoco
import numpy as np

MJCF = """
<mujoco model="pendulum">
  <option timestep="{h!r}" gravity="0 {gy!r} 0" integrator="{integrator}"/>
  <worldbody>
    <body name="pendulum" pos="0 0 0">
      <joint name="pin" type="hinge" axis="0 0 1" pos="0 0 0" damping="0" armature="0"/>
      <inertial pos="{L!r} 0 0" mass="{m!r}" diaginertia="{jxx!r} {jyy!r} {jzz!r}"/>
    </body>
  </worldbody>
</mujoco>
"""


def build(args: argparse.Namespace) -> mujoco.MjModel:
    xml = MJCF.format(
        h=args.h,
        gy=-args.g,
        integrator=args.integrator,
        L=args.cm_x,
        m=args.mass,
        jxx=args.jxx,
        jyy=args.jyy,
        jzz=args.jzz,
    )
    return mujoco.MjModel.from_xml_string(xml)


def loop(model: mujoco.MjModel, steps: int) -> float:
    """Wall time of `steps` calls of mj_step from the initial state."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    step = mujoco.mj_step
    tic = time.perf_counter()
    for _ in range(steps):
        step(model, data)
    return time.perf_counter() - tic


def rollout(model: mujoco.MjModel, steps: int) -> float | None:
    """Wall time of the same run by mujoco.rollout (one C call), or None without it."""
    try:
        from mujoco import rollout as mj_rollout
    except ImportError:
        return None
    data = mujoco.MjData(model)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, state, spec)
    out = np.empty((1, steps, state.size))
    tic = time.perf_counter()
    mj_rollout.rollout(model, data, state[None, :], nstep=steps, state=out)
    return time.perf_counter() - tic


def timings(model: mujoco.MjModel, args: argparse.Namespace) -> dict:
    """The run's row: the loop and rollout times over t_end at h, steps, the integrator."""
    steps = int(round(args.t_end / args.h))
    return {
        "loop_time": loop(model, steps),
        "rollout_time": rollout(model, steps),
        "steps": steps,
        "h": args.h,
        "t_end": steps * args.h,
        "integrator": args.integrator,
        "mujoco": mujoco.__version__,
    }


def trajectory(model: mujoco.MjModel, steps: int) -> np.ndarray:
    """(t, theta) at every step, from a run of its own (not timed)."""
    data = mujoco.MjData(model)
    out = np.empty((2, steps + 1))
    out[:, 0] = data.time, data.qpos[0]
    for k in range(steps):
        mujoco.mj_step(model, data)
        out[:, k + 1] = data.time, data.qpos[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--t-end", type=float, default=10.0)
    ap.add_argument("--integrator", default="Euler", choices=("Euler", "RK4", "implicitfast"))
    for name, default in (
        ("mass", 1.0),
        ("cm-x", 0.5),
        ("g", 9.81),
        ("jxx", 2e-3),
        ("jyy", 0.085),
        ("jzz", 0.085),
    ):
        ap.add_argument(f"--{name}", type=float, default=default)
    ap.add_argument("--theta", help="save (t, theta) of an untimed run to this .npy file")
    args = ap.parse_args()
    tic = time.perf_counter()
    model = build(args)
    setup = time.perf_counter() - tic
    row = {"setup_time": setup, **timings(model, args)}
    if args.theta:
        np.save(args.theta, trajectory(model, row["steps"]))
    print(json.dumps(row))


if __name__ == "__main__":
    main()
