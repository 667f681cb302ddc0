"""The CasADi conic plugins that solve the step QP (step/qp_graph.py): their options and the
solver Function of a QP's sparsity."""

from __future__ import annotations

from typing import Any

import casadi as ca

from .quiet import silent_stdout

#: QP solver options per CasADi conic plugin: quiet, no exception on failure (checked below).
QP_OPTIONS: dict[str, dict[str, Any]] = {
    # a step QP has tens of variables: 100 iterations means cycling on a degenerate active set
    "qrqp": {"print_iter": False, "print_header": False, "print_info": False, "max_iter": 100},
    "qpoases": {"printLevel": "none"},
    "daqp": {"daqp": {"primal_tol": 1e-12, "dual_tol": 1e-12}},  # default tolerances 1e-6
    "osqp": {"osqp": {"verbose": False, "eps_abs": 1e-12, "eps_rel": 1e-12, "polish": True}},
}
#: DAQP's options for QPs with friction: proximal-point iterations (eps_prox, kg). The friction
#: split variables carry almost no curvature (W_REG), which DAQP's dual factorisation otherwise
#: resolves to ~1e-6 relative (stick_slip: 13% of steps failed their checks). eta_prox ends
#: them at the accuracy the checks demand: EoM residuals 4e-13 N on a sliding cube, where
#: eps_prox 1e-7 leaves 3e-8 N and 1e-3 is 3x slower. Without friction they only cost accuracy
#: (a damped spin, 1e4 steps: 2e-8 relative, 1e-12 without).
DAQP_PROXIMAL = {"eps_prox": 1e-6, "eta_prox": 1e-14}


def qp_solver(
    name: str, plugin: str, h: ca.Sparsity, a: ca.Sparsity, friction: bool = False
) -> ca.Function:
    opts = {"error_on_fail": False, **QP_OPTIONS.get(plugin, {})}
    if plugin == "daqp" and friction:
        opts["daqp"] = {**opts["daqp"], **DAQP_PROXIMAL}
    with silent_stdout():  # qpOASES prints a licence banner whatever printLevel says
        return ca.conic(name, plugin, {"h": h, "a": a}, opts)
