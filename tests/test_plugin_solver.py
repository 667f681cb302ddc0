"""A step solver that is not nlpmbd's, written here in a few dozen lines and passed to
`simulate(..., solver=...)`: no engine module changes. It solves the step's QP of a system
without contacts, min 1/2 (v - v_free)^T M (v - v_free) s.t. Phi_eq,v v = -(Phi_eq/h + Phi_eq,t),
as one linear KKT system with NumPy, and uses the kernel's position update."""

from __future__ import annotations

import time

import casadi as ca
import numpy as np
import pytest
from fixtures import pendulum_theta_error, pendulum_theta_reference

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.step.solver import SOLVED, StepInputs, StepSolution, StepSolver


class KKTStep(StepSolver):
    def __init__(self, kernel, options) -> None:
        super().__init__(kernel)
        m = kernel.model
        q, v = ca.SX.sym("q", 7 * m.n_bodies), ca.SX.sym("v", 6 * m.n_bodies)
        t, h = ca.SX.sym("t"), ca.SX.sym("h")
        self.forces = ca.Function("f", [t, q, v], [m.Q(t, q, v) - m.S(q, v)])
        self.rows = ca.Function(
            "rows", [q, t, h], [m.Phi_eq_v(q, t), -(m.Phi_eq(q, t) / h + m.Phi_eq_t(q, t))]
        )
        self.update = ca.Function("update", [q, v, h], list(kernel.update(q, v, h)))
        self.M = m.M

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        tic, h, M = time.perf_counter(), inputs.h_hi, self.M
        f = np.asarray(self.forces(inputs.t, inputs.q, inputs.v)).ravel()
        v_free = inputs.v + h * np.linalg.solve(M, f)
        A, b = (np.asarray(x) for x in self.rows(inputs.q, inputs.t, h))
        n, e = M.shape[0], A.shape[0]
        kkt = np.block([[M, A.T], [A, np.zeros((e, e))]])
        x = np.linalg.solve(kkt, np.concatenate([M @ v_free, b.ravel()]))
        v, lam_eq = x[:n], x[n:] / h
        q, drift = (np.asarray(a).ravel() for a in self.update(inputs.q, v, h))
        eom = float(np.linalg.norm(M @ (v - v_free) / h + A.T @ lam_eq))
        return StepSolution(
            h, q, v, np.zeros(0), lam_eq, eom, 0.0, float(drift[0]), SOLVED, 1,
            time.perf_counter() - tic, "KKT solved",
        )  # fmt: skip


@pytest.mark.slow
def test_a_solver_of_ones_own_runs_the_ideal_pendulum():
    system, _ = get_case("pendulum").build({})
    # KKTStep is the first-order step (one solve, forces at the start): the QP it is compared
    # with must be too, and the run asked for the accuracy checked below (5e-3 rad), so that its
    # error estimate (5e-4 m) is no reason to warn
    options = SimulationOptions(
        t_end=1.0, h_min=1e-3, h_max=1e-3, integrator="euler", error_tol=1e-4
    )
    ours = simulate(system, options, solver=KKTStep)
    qp = simulate(system, options.replace(solver="qp", codegen="off"))
    assert ours.completed and set(ours.meta["options"]) == set(qp.meta["options"])
    # the same QP, solved another way: the same motion to rounding
    assert np.abs(ours.q - qp.q).max() < 1e-9 and np.abs(ours.lam_eq - qp.lam_eq).max() < 1e-6
    # and against the minimal-coordinate ODE: first order in h, like the engine's own paths
    reference = pendulum_theta_reference(ours.t[-1])
    assert pendulum_theta_error(ours, reference) < 5e-3
    assert ours.meta["warnings"] == []
