"""Step-size control of nlpmbd's own (step_control = "controller"), an alternative to the
paper's NLP-chosen h, which is not error control: with no active contact the Gauss objective
does not depend on h.

The control law is written once, as CasADi expressions (`ControlLaw`): the compiled chunks
(run/chunks.py) evaluate it inside their graph, the Python loop (`StepController`) through one
Function of the same expressions, so both take the same steps.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from ..model.rotation import g_matrix
from ..step.layout import Layout, named_function
from ..step.numeric import Numeric
from .options import SimulationOptions

#: The control law's run parameters (ControlLaw.limits), a vector so that compiled chunks take
#: them as one input.
LIMITS = Layout([("h_min", 1), ("h_max", 1), ("target", 1)])


class ControlLaw:
    """The local error estimate of a step and the next h, symbolic (SX or MX).

    First-order scheme: the local error of the semi-implicit Euler position update
    q_n = q + h v_n against the trapezoidal one q + h (v_n + v_{n-1}) / 2 is the mass-weighted
    RMS displacement (m)
        err = h/2 |v_n - v_{n-1}|_M,   |x|_M = sqrt(x^T M x / m_total),
    and h_next = clip(h clamp(0.9 sqrt(error_tol / err), 0.5, 2), h_min, h_max) (err = O(h^2)
    for smooth motion). No step is rejected on err: an impact makes the velocity jump whatever
    h is, so h only shrinks after it and grows back.

    Second-order scheme (step/verlet.py), in error per unit time: its embedded estimate uses the
    step's three velocities v0, the mid-step v_half (from q0 and q1, `mid_velocity`) and v1:
    Stoermer-Verlet's position misses h^3/6 of the jerk, and v1 - 2 v_half + v0 = h/2 (a1 - a0)
    = h^2/2 jerk + O(h^3), so
        err = h/3 |v1 - 2 v_half + v0|_M     (m; O(h^3)).
    Errors of a run add up over its steps, so the controller keeps err / h, the error per
    second, at error_tol / t_end times CALIBRATION: the global position error is then about
    error_tol whatever t_end is (calibrated on the ideal pendulum, checked on the free body;
    docs/guide/defaults.md). h_next = h clip(0.9 (target / rate)^(1/2), 0.2, 2) (rate =
    err / h = O(h^2)). A
    step whose rate is more than twice the target is solved again at its h_next: at an impact
    or a contact switch the velocity jumps, the rate is large whatever h, and the step is
    retried down to h_min, where the impact's instant is resolved to h_min; h then doubles back
    step by step.

    After a step rejected for any reason h does not grow on the next step (the usual rule;
    otherwise every other step is rejected while penetration limits h).
    """

    CALIBRATION = 10.0

    def __init__(self, M: np.ndarray, total_mass: float, n_rigid: int, verlet: bool) -> None:
        self.M = ca.sparsify(ca.DM(np.asarray(M, dtype=float)))
        self.total_mass, self.n_rigid = float(total_mass), n_rigid
        self.verlet = self.rejects_on_error = verlet

    def limits(self, options: SimulationOptions) -> np.ndarray:
        """The law's run parameters [h_min, h_max, target]: the target is error_tol (first
        order) or the error rate CALIBRATION error_tol / t_end (second order). They enter the
        expressions as inputs, so that a compiled chunk serves every t_end and step range."""
        g = options.time
        target = self.CALIBRATION * g.error_tol / g.t_end if self.verlet else g.error_tol
        return LIMITS.stack({"h_min": g.h_min, "h_max": g.h_max, "target": target})

    def norm(self, dx: Any) -> Any:
        """The mass-weighted RMS size of a velocity-space vector (m/s for velocities)."""
        return ca.sqrt(ca.fmax(ca.bilin(self.M, dx, dx), 0) / self.total_mass)

    def error(self, h: Any, q0: Any, v0: Any, q1: Any, v1: Any) -> Any:
        if not self.verlet:
            return 0.5 * h * self.norm(v1 - v0)
        v_half = mid_velocity(h, q0, q1, self.n_rigid)
        return h / 3 * self.norm(v1 - 2 * v_half + v0)

    def next(self, h: Any, err: Any, rejected: Any, limits: Any) -> Any:
        """The next h after a step of size h with error err (`rejected`: 1 after a rejection;
        `limits`: [h_min, h_max, target])."""
        lim = LIMITS.split(limits)
        h_min, h_max, target = lim["h_min"], lim["h_max"], lim["target"]
        if self.verlet:
            ratio, low = target / ca.fmax(err / h, 1e-300), 0.2
        else:
            ratio, low = target / ca.fmax(err, 1e-300), 0.5
        factor = ca.fmin(2.0, ca.fmax(low, 0.9 * ca.sqrt(ratio)))
        factor = ca.if_else(rejected > 0, ca.fmin(factor, 1.0), factor)
        return ca.fmin(h_max, ca.fmax(h_min, h * factor))

    def too_large(self, h: Any, err: Any, limits: Any) -> Any:
        """1 when the step must be solved again at a smaller h (second order only)."""
        if not self.verlet:
            return 0 * h
        lim = LIMITS.split(limits)
        return (h > lim["h_min"]) * (err / h > 2 * lim["target"])


def mid_velocity(h: Any, q0: Any, q1: Any, n_rigid: int) -> Any:
    """The velocity v with q1 = advance(q0, v, h) (model/kinematics.py), exactly: per body
    (r1 - r0) / h and w' = (2/h) G(p0) p1 / (p0 . p1), since advance normalises
    p0 + h/2 G(p0)^T w' and G G^T = I, G p0 = 0 for a unit p0; nodes (x1 - x0) / h."""
    out = []
    for k in range(n_rigid):
        r0, p0 = q0[7 * k : 7 * k + 3], q0[7 * k + 3 : 7 * k + 7]
        r1, p1 = q1[7 * k : 7 * k + 3], q1[7 * k + 3 : 7 * k + 7]
        out += [(r1 - r0) / h, (2 / h) * g_matrix(p0) @ p1 / ca.dot(p0, p1)]
    if q0.shape[0] > 7 * n_rigid:
        out.append((q1[7 * n_rigid :] - q0[7 * n_rigid :]) / h)
    return ca.vertcat(*out)


class StepController:
    """The control law (ControlLaw) for the Python loop: every step is solved at a fixed h; the
    first is h_min, since nothing is known yet."""

    def __init__(self, law: ControlLaw, options: SimulationOptions, n_q: int, n_v: int) -> None:
        self.law, self.rejects_on_error = law, law.rejects_on_error
        self.limits = law.limits(options)
        lim = LIMITS.split(self.limits)
        self.h_min, self.h_max = lim["h_min"].item(), lim["h_max"].item()
        h, rejected, err, limits = (
            ca.SX.sym("h"),
            ca.SX.sym("rejected"),
            ca.SX.sym("err"),
            ca.SX.sym("limits", LIMITS.size),
        )
        q0, q1 = ca.SX.sym("q0", n_q), ca.SX.sym("q1", n_q)
        v0, v1 = ca.SX.sym("v0", n_v), ca.SX.sym("v1", n_v)
        step = {"h": h, "q0": q0, "v0": v0, "q1": q1, "v1": v1}
        self._error = Numeric(named_function("error", step, {"err": law.error(h, q0, v0, q1, v1)}))
        decide = {"h_next": law.next(h, err, rejected, limits)}
        decide["too_large"] = law.too_large(h, err, limits)
        ins = {"h": h, "err": err, "rejected": rejected, "limits": limits}
        self._next = Numeric(named_function("next_h", ins, decide))

    # fmt: skip

    def first(self) -> float:
        return self.h_min

    def error(
        self, h: float, q0: np.ndarray, v_prev: np.ndarray, q1: np.ndarray, v_new: np.ndarray
    ) -> float:
        return float(self._error.named(h=h, q0=q0, v0=v_prev, q1=q1, v1=v_new)["err"])

    def next(self, h: float, err: float, rejected: bool = False) -> float:
        o = self._next.named(h=h, err=err, rejected=float(rejected), limits=self.limits)
        return float(o["h_next"])

    def too_large(self, h: float, err: float) -> bool:
        o = self._next.named(h=h, err=err, rejected=0.0, limits=self.limits)
        return bool(o["too_large"])


def control_law(model: Any, verlet: bool) -> ControlLaw:
    """The control law of a run's model (its mass matrix, total mass and rigid bodies)."""
    return ControlLaw(model.M, float(np.sum(model.masses)), model.n_bodies, verlet)
