"""The ideal planar chain in MuJoCo: the peer side of benchmarks/chain_peers.py.

Run ONLY by an interpreter with `mujoco` installed (the peers' virtual environment, e.g.
/work/venv-peers); it imports numpy and mujoco, never nlpmbd. Prints one JSON line: setup
time, the wall time of the mj_step loop over the run (`loop_time`), the same run by
`mujoco.rollout` (a C loop, no Python call per step: `rollout_time`), steps, version; with
--angles FILE it saves the joint angles of a separate, untimed run to FILE (.npy, shape
(N + 1, n + 1): row 0 the time, row i + 1 joint i's angle).

Model (nlpmbd_cases/chain.py, layout = planar, joint = ideal): N links, each 0.2 m, 1 kg,
centre of mass mid-link, inertia about it diag(5e-5, 1/300, 1/300) kg m^2 in body axes with
body x along the link; every hinge axis global Z; link 0 pinned to the ground at the origin,
link i to link i-1's tip; released at rest straight along +X; gravity 9.81 m/s^2 along -Y.
The joint angles (qpos) are relative: link i's angle to +X is the sum of angles 0..i. No
geoms, no contacts, no damping or armature: MuJoCo's Euler integrator is then semi-implicit
(symplectic) Euler.
"""

import argparse
import json
import time

import mujoco
import numpy as np

# run as a script: its folder is on sys.path (mujoco_pendulum.py, the pendulum's peer side)
from mujoco_pendulum import timings

LENGTH, MASS = 0.2, 1.0  # m, kg: every link
INERTIA = (5e-5, MASS * LENGTH**2 / 12, MASS * LENGTH**2 / 12)  # kg m^2, body x along the link

MJCF = """
<mujoco model="chain">
  <option timestep="{h!r}" gravity="0 {gy!r} 0" integrator="{integrator}"/>
  <worldbody>
{bodies}
  </worldbody>
</mujoco>
"""

LINK = """<body name="link{i}" pos="{x!r} 0 0">
<joint name="j{i}" type="hinge" axis="0 0 1" pos="0 0 0" damping="0" armature="0"/>
<inertial pos="{cm!r} 0 0" mass="{m!r}" diaginertia="{jxx!r} {jyy!r} {jzz!r}"/>
"""


def chain_xml(links: int) -> str:
    """The nested bodies: link 0 at the origin, link i at link i-1's tip (its x = 0.2 m)."""
    jxx, jyy, jzz = INERTIA
    opened = [
        LINK.format(i=i, x=0.0 if i == 0 else LENGTH, cm=LENGTH / 2, m=MASS,
                    jxx=jxx, jyy=jyy, jzz=jzz)
        for i in range(links)
    ]  # fmt: skip
    return "".join(opened) + "</body>\n" * links


def build(args: argparse.Namespace) -> mujoco.MjModel:
    xml = MJCF.format(
        h=args.h, gy=-args.g, integrator=args.integrator, bodies=chain_xml(args.links)
    )
    return mujoco.MjModel.from_xml_string(xml)


def trajectory(model: mujoco.MjModel, steps: int) -> np.ndarray:
    """(t, joint angles) at every step, from a run of its own (not timed)."""
    data = mujoco.MjData(model)
    out = np.empty((1 + model.nq, steps + 1))
    out[0, 0], out[1:, 0] = data.time, data.qpos
    for k in range(steps):
        mujoco.mj_step(model, data)
        out[0, k + 1], out[1:, k + 1] = data.time, data.qpos
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", type=int, default=4)
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--g", type=float, default=9.81)
    ap.add_argument("--integrator", default="Euler", choices=("Euler", "RK4", "implicitfast"))
    ap.add_argument("--angles", help="save (t, joint angles) of an untimed run to this .npy file")
    args = ap.parse_args()
    tic = time.perf_counter()
    model = build(args)
    setup = time.perf_counter() - tic
    row = {"links": args.links, "setup_time": setup, **timings(model, args)}
    if args.angles:
        np.save(args.angles, trajectory(model, row["steps"]))
    print(json.dumps(row))


if __name__ == "__main__":
    main()
