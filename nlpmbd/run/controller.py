"""Step-size control of nlpmbd's own (step_control = "controller"), an alternative to the
paper's NLP-chosen h, which is not error control: with no active contact the Gauss objective
does not depend on h."""

from __future__ import annotations

import numpy as np

from .options import SimulationOptions


class StepController:
    """Every step is solved at a fixed h. The local error of the semi-implicit Euler position
    update q_n = q + h v_n against the trapezoidal one q + h (v_n + v_{n-1}) / 2 is the
    mass-weighted RMS displacement (m)
        err = h/2 * sqrt(dv^T M dv / m_total),  dv = v_n - v_{n-1},
    and the next step is
        h_next = clip(h * clamp(0.9 * sqrt(error_tol / err), 0.5, 2), h_min, h_max)
    (err = O(h^2) for smooth motion, hence the square root). The first step is h_min, since
    nothing is known yet. No step is rejected on err: an impact makes dv large whatever h is,
    so h only shrinks after it and grows back. Steps are rejected for penetration only (the run
    loop), and after such a rejection h does not grow on the next step (the usual rule after a
    rejected step; otherwise every other step is rejected while penetration limits h).
    """

    #: the second-order scheme's controller has its own rules (SecondOrderController)
    rejects_on_error = False

    def __init__(self, options: SimulationOptions, M: np.ndarray, total_mass: float) -> None:
        grid = options.time
        self.h_min, self.h_max, self.tol = grid.h_min, grid.h_max, grid.error_tol
        self.M = np.asarray(M, dtype=float)
        self.total_mass = float(total_mass)

    def first(self) -> float:
        return self.h_min

    def norm(self, dx: np.ndarray) -> float:
        """The mass-weighted RMS size of a velocity-space vector."""
        dx = np.asarray(dx, dtype=float)
        return float(np.sqrt(max(dx @ self.M @ dx, 0.0) / self.total_mass))

    def error(
        self, h: float, q0: np.ndarray, v_prev: np.ndarray, q1: np.ndarray, v_new: np.ndarray
    ) -> float:
        return 0.5 * h * self.norm(np.asarray(v_new) - np.asarray(v_prev))

    def next(self, h: float, err: float, rejected: bool = False) -> float:
        factor = min(2.0, max(0.5, 0.9 * float(np.sqrt(self.tol / max(err, 1e-300)))))
        if rejected:  # h just failed the penetration test: do not grow it straight back
            factor = min(factor, 1.0)
        return min(self.h_max, max(self.h_min, h * factor))

    def too_large(self, h: float, err: float) -> bool:
        return False


def mid_velocity(h: float, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    """The velocity v with q1 = advance(q0, v, h) (model/kinematics.py), exactly: per body
    (r1 - r0) / h and w' = (2/h) G(p0) p1 / (p0 . p1), since advance normalises
    p0 + h/2 G(p0)^T w' and G G^T = I, G p0 = 0 for a unit p0."""
    out = []
    for k in range(q0.size // 7):
        r0, p0, r1, p1 = (
            q0[7 * k : 7 * k + 3],
            q0[7 * k + 3 : 7 * k + 7],
            q1[7 * k : 7 * k + 3],
            q1[7 * k + 3 : 7 * k + 7],
        )
        e0, e = p0[0], p0[1:]
        G = np.column_stack([-e, -_skew(e) + e0 * np.eye(3)])
        out += [(r1 - r0) / h, (2 / h) * G @ p1 / float(p0 @ p1)]
    return np.concatenate(out)


def _skew(e: np.ndarray) -> np.ndarray:
    return np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])


class SecondOrderController(StepController):
    """Error control of the second-order scheme (step/verlet.py), in error per unit time.

    Its embedded estimate of the local position error uses the step's three velocities, v0,
    the mid-step v_half (from q0 and q1, mid_velocity) and v1: Stoermer-Verlet's position
    misses h^3/6 of the jerk, and v1 - 2 v_half + v0 = h/2 (a1 - a0) = h^2/2 jerk + O(h^3), so

        err = h/3 |v1 - 2 v_half + v0|_M     (m, mass-weighted RMS; O(h^3)).

    Errors of a run add up over its steps, so the controller keeps err / h, the error per
    second, at error_tol / t_end times a calibration factor CALIBRATION: the global position
    error of the run is then about error_tol whatever t_end is (calibrated on the ideal
    pendulum, checked on the free body; README). h_next = h clip(0.9 (target / rate)^(1/2),
    0.2, 2) (rate = err / h = O(h^2)). A step whose rate is more than twice the target is
    solved again at its h_next: at an impact or a contact switch the velocity jumps, the rate
    is large whatever h, and the step is retried down to h_min, where the impact's instant
    is resolved to h_min; h then doubles back step by step.
    """

    CALIBRATION = 10.0
    rejects_on_error = True

    def __init__(self, options: SimulationOptions, M: np.ndarray, total_mass: float) -> None:
        super().__init__(options, M, total_mass)
        span = options.time.t_end
        self.target = self.CALIBRATION * self.tol / span

    def error(
        self, h: float, q0: np.ndarray, v_prev: np.ndarray, q1: np.ndarray, v_new: np.ndarray
    ) -> float:
        v_half = mid_velocity(h, np.asarray(q0, float), np.asarray(q1, float))
        return h / 3 * self.norm(np.asarray(v_new) - 2 * v_half + np.asarray(v_prev))

    def next(self, h: float, err: float, rejected: bool = False) -> float:
        rate = err / h
        factor = min(2.0, max(0.2, 0.9 * float(np.sqrt(self.target / max(rate, 1e-300)))))
        if rejected:
            factor = min(factor, 1.0)
        return min(self.h_max, max(self.h_min, h * factor))

    def too_large(self, h: float, err: float) -> bool:
        return h > self.h_min and err / h > 2 * self.target
