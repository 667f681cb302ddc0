"""A contact law that is not nlpmbd's, written here and used by a joint: a linear spring-dashpot
f = k delta + c delta_dot, a ForceLaw subclass with its two hooks; no engine module changes.
An undamped ball dropped on it comes back with its speed after half a period pi sqrt(m / k),
having penetrated v0 sqrt(m / k) (closed forms of the linear oscillator); with damping it
loses energy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from nlpmbd import ForceLaw, RigidBody, SimulationOptions, System, simulate
from nlpmbd_joints import PlaneContact


@dataclass(frozen=True)
class SpringDashpot(ForceLaw):
    stiffness: float  # N/m
    damping: float = 0.0  # N s/m

    def normal_force(self, delta: Any, rate: Any, impact_speed: Any) -> Any:
        return self.stiffness * delta + self.damping * rate

    def stiffness_at(self, delta: float) -> float:
        return self.stiffness


def drop(law: ForceLaw, v0: float = 1.0, m: float = 1.0, h: float = 2e-5):
    system = System(gravity=(0, 0, 0))
    ball = system.add_body(
        RigidBody("ball", m, (1e-3,) * 3, position=(0, 0.1 + 1e-4, 0), velocity=(0, -v0, 0))
    )
    system.add_joint(PlaneContact("floor", ball, [(0, -0.1, 0)], contact=law))
    return simulate(system, SimulationOptions(t_end=0.05, h_min=h, h_max=h))


def test_undamped_linear_law_follows_the_oscillator():
    k, m, v0 = 1e4, 1.0, 1.0
    r = drop(SpringDashpot(k), v0, m)
    inside = r.compliant_gap[:, 0] > 0
    duration = r.h[0] * np.count_nonzero(inside)
    assert duration == pytest.approx(np.pi * np.sqrt(m / k), rel=0.01)
    assert r.compliant_gap[:, 0].max() == pytest.approx(v0 * np.sqrt(m / k), rel=0.01)
    assert r.v[-1, 1] == pytest.approx(v0, rel=0.01)  # it comes back up with its speed
    assert r.gap.size == 0 and r.meta["warnings"] == []


def test_damping_of_the_law_dissipates():
    """The engine pushes with max(k delta + c delta_dot, 0) (model/contact_terms.py): the ball
    leaves where the force vanishes, tan(w_d t) = -c w_d / (k - c z w), with the damped
    oscillator's speed there: e = 0.7441 for z = 0.1 (not exp(-z pi / sqrt(1 - z^2)) = 0.729,
    which counts the pull of a tensile force). Measured 0.7439 at h = 2e-5 s (h w = 2e-3)."""
    k, c, m, v0 = 1e4, 20.0, 1.0, 1.0
    r = drop(SpringDashpot(k, damping=c), v0, m)
    w, z = np.sqrt(k / m), c / (2 * np.sqrt(k * m))
    wd = w * np.sqrt(1 - z**2)
    t_off = (np.pi - np.arctan(c * wd / (k - c * z * w))) / wd
    e = np.exp(-z * w * t_off) * (np.cos(wd * t_off) - z * w / wd * np.sin(wd * t_off))
    assert -e == pytest.approx(0.7441, abs=1e-4)
    assert r.v[-1, 1] == pytest.approx(-e * v0, rel=1e-3)
