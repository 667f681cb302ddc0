"""The ideal pendulum in Exudyn: a peer side of benchmarks/peer_defaults.py.

Run ONLY by an interpreter with `exudyn` installed (the peers' virtual environment, `pip install
exudyn`); it imports numpy and exudyn, never nlpmbd. Prints one JSON line: setup time (building
and assembling the system), the wall time of exu.SolveDynamic over the run with no output
(`loop_time`, including the solver's own initialisation), steps, version; with --theta FILE it
saves (t, theta) of a separate, untimed run with a position sensor stored at every step (.npy,
shape (2, n+1)).

Model: the same body as nlpmbd's (nlpmbd_cases/pendulum.py, joint = ideal) in the same
redundant coordinates: a spatial rigid body with Euler parameters (7 coordinates), m = 1 kg,
centre of mass at (0.5, 0, 0), inertia at it diag(2e-3, 0.085, 0.085) kg m^2, a revolute joint
along Z at the origin (5 algebraic equations), gravity 9.81 m/s^2 along -Y, at rest. Exudyn's
default implicit solver: generalized-alpha (spectral radius 0.9), index-3 constraints, modified
Newton.
"""

import argparse
import json
import time

import exudyn as exu
import numpy as np
from exudyn.utilities import RigidBodyInertia, SensorBody


def build(args: argparse.Namespace, sensor: bool):
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.CreateGround(referencePosition=[0.0, 0.0, 0.0])
    inertia = RigidBodyInertia(
        mass=args.mass, inertiaTensor=np.diag([args.jxx, args.jyy, args.jzz])
    )
    body = mbs.CreateRigidBody(
        inertia=inertia,
        referencePosition=[args.cm_x, 0.0, 0.0],
        gravity=[0.0, -args.g, 0.0],
        nodeType=exu.NodeType.RotationEulerParameters,
        returnDict=True,
    )
    mbs.CreateRevoluteJoint(
        itemNumbers=[ground, body["bodyNumber"]], position=[0.0, 0.0, 0.0], axis=[0.0, 0.0, 1.0]
    )
    s = None
    if sensor:
        s = mbs.AddSensor(
            SensorBody(
                bodyNumber=body["bodyNumber"],
                storeInternal=True,
                outputVariableType=exu.OutputVariableType.Position,
            )
        )
    mbs.Assemble()
    return sc, mbs, s


def settings(h: float, steps: int, sensor: bool) -> "exu.SimulationSettings":
    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = steps
    s.timeIntegration.endTime = steps * h
    s.timeIntegration.verboseMode = 0
    s.solution.file.write = False
    s.solution.sensors.writePeriod = h if sensor else steps * h
    s.show.statistics = False
    s.show.computationTime = False
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--t-end", type=float, default=10.0)
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
    steps = int(round(args.t_end / args.h))
    tic = time.perf_counter()
    _, mbs, _ = build(args, sensor=False)
    s = settings(args.h, steps, sensor=False)
    setup = time.perf_counter() - tic
    tic = time.perf_counter()
    exu.SolveDynamic(mbs, s)
    loop = time.perf_counter() - tic
    row = {
        "setup_time": setup,
        "loop_time": loop,
        "steps": steps,
        "h": args.h,
        "t_end": steps * args.h,
        "exudyn": exu.__version__,
    }
    if args.theta:
        _, mbs, sensor = build(args, sensor=True)
        exu.SolveDynamic(mbs, settings(args.h, steps, sensor=True))
        data = mbs.GetSensorStoredData(sensor)
        np.save(args.theta, np.vstack([data[:, 0], np.arctan2(data[:, 2], data[:, 1])]))
    print(json.dumps(row))


if __name__ == "__main__":
    main()
