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

    def __init__(self, options: SimulationOptions, M: np.ndarray, total_mass: float) -> None:
        grid = options.time
        self.h_min, self.h_max, self.tol = grid.h_min, grid.h_max, grid.error_tol
        self.M = np.asarray(M, dtype=float)
        self.total_mass = float(total_mass)

    def first(self) -> float:
        return self.h_min

    def error(self, h: float, v_prev: np.ndarray, v_new: np.ndarray) -> float:
        dv = np.asarray(v_new, dtype=float) - np.asarray(v_prev, dtype=float)
        return 0.5 * h * float(np.sqrt(max(dv @ self.M @ dv, 0.0) / self.total_mass))

    def next(self, h: float, err: float, rejected: bool = False) -> float:
        factor = min(2.0, max(0.5, 0.9 * float(np.sqrt(self.tol / max(err, 1e-300)))))
        if rejected:  # h just failed the penetration test: do not grow it straight back
            factor = min(factor, 1.0)
        return min(self.h_max, max(self.h_min, h * factor))
