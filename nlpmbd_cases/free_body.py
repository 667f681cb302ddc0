"""Torque-free rigid box spinning near its intermediate principal axis (no joints, no gravity).

Parameters chosen for nlpmbd: a 0.3 x 0.2 x 0.1 m box of 1 kg (principal moments
m (b^2 + c^2) / 12 etc.), spinning at `omega` about body y (the intermediate axis) with a
small perturbation `perturbation * omega` about x and z. The spin is unstable (the tennis-racket
or Dzhanibekov effect): the body flips periodically, while kinetic energy and the global angular
momentum are conserved exactly by the true motion, which makes their drift a clean measure of the
integrator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nlpmbd import Case, Parameter

if TYPE_CHECKING:
    from nlpmbd import System

PARAMETERS = (
    Parameter("mass", 1.0, "box mass", float, low=0.0, low_open=True, unit="kg"),
    Parameter("a", 0.3, "box edge along body x", float, low=0.0, low_open=True, unit="m"),
    Parameter("b", 0.2, "box edge along body y", float, low=0.0, low_open=True, unit="m"),
    Parameter("c", 0.1, "box edge along body z", float, low=0.0, low_open=True, unit="m"),
    Parameter("omega", 2.0, "spin rate about body y", float, low=0.0, unit="rad/s"),
    Parameter("perturbation", 0.01, "relative spin about body x and z", float, low=0.0, high=1.0),
    Parameter(
        "e0",
        1.0,
        "initial orientation, Euler parameter e0 (must be unit)",
        float,
        low=-1.0,
        high=1.0,
    ),
    Parameter("e1", 0.0, "initial orientation, Euler parameter e1", float, low=-1.0, high=1.0),
    Parameter("e2", 0.0, "initial orientation, Euler parameter e2", float, low=-1.0, high=1.0),
    Parameter("e3", 0.0, "initial orientation, Euler parameter e3", float, low=-1.0, high=1.0),
)


def build(params: Mapping[str, Any]) -> System:
    from nlpmbd import RigidBody, System

    m, a, b, c = params["mass"], params["a"], params["b"], params["c"]
    inertia = (m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12, m * (a**2 + b**2) / 12)
    w, eps = params["omega"], params["perturbation"]
    system = System(gravity=(0.0, 0.0, 0.0))
    orientation = [params[k] for k in ("e0", "e1", "e2", "e3")]
    system.add_body(
        RigidBody(
            "box", m, inertia, orientation=orientation, angular_velocity=(eps * w, w, eps * w)
        )
    )
    return system


CASE = Case(
    name="free_body",
    description="torque-free box spinning near its intermediate axis (no joints, no gravity)",
    parameters=PARAMETERS,
    builder=build,
    t_end=10.0,
    h_min=1e-3,
    h_max=1e-3,
)
