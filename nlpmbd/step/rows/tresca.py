"""Coulomb friction as a Tresca row (rows/base.py): the bound g_j = mu_j lambda_j with mu_j the
static coefficient for a contact that starts the step sticking (slip speed below the Friction
setting stick_speed) and the kinetic one otherwise: the one stick/slip switch of both paths
(the NLP's Tresca term and Coulomb check, step/friction.py; the QP's friction bounds,
step/qp_friction.py). HardContact's and SpringDamperContact's friction row."""

from __future__ import annotations

from typing import Any

import casadi as ca

from .base import FrictionRow


class Tresca(FrictionRow):
    """mu (kinetic) and mu_static (>= mu), dimensionless."""

    def __init__(self, mu: float, mu_static: float) -> None:
        self.mu, self.mu_static = mu, mu_static

    def coefficient(self, slip_speed: Any, stick_speed: float) -> Any:
        return ca.if_else(slip_speed < stick_speed, self.mu_static, self.mu)
