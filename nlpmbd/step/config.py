"""The step layer's modes and tolerances: enums and small frozen dataclasses that the run layer's
options are made of (run/options.py validates them, once, with everything else)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Formulation(enum.StrEnum):
    """How each step's NLP is written (docs/FORMULATION.md sections 4 and 8).

    IMPLICIT: unknowns h and q_dot only; minimise K^T M^-1 K subject to the linearised
      constraints. Its KKT conditions are the equations of motion plus complementarity, and the
      forces are the scaled constraint multipliers. Default (fewer iterations, docs/method/step.md).
    MPCC: the paper's NLP [eq. 25] with explicit multipliers lambda, the equations of motion as
      equality constraints and Scholtes-relaxed complementarity lambda_j (-Phi_lin_j) <= sigma.
    """

    IMPLICIT = "implicit"
    MPCC = "mpcc"


class GapCorrection(enum.StrEnum):
    """How the O(h^2 w^2 l) violation of the true gap after a step is removed
    (docs/method/clearance_joints.md, "Penetration"): the second-order term of the linearised
    gap, the position projection, both, or neither; AUTO (default) the first, and both with
    restitution (`resolved`). The projection moves positions only: in sustained contact the
    velocity keeps the outward normal part it gains as the contact normal turns within the step,
    and the next step's inelastic row removes it, a small plastic impact every step (O(h) energy
    loss: the clearance pendulum lags 186 mm after 10 s at h = 1e-3 s with projection alone, 2.0
    mm converged; benchmarks/results/defaults_table.md)."""

    AUTO = "auto"
    CURVATURE_PROJECTION = "curvature+projection"
    PROJECTION = "projection"
    CURVATURE = "curvature"
    NONE = "none"

    def resolved(self, restitution: bool) -> GapCorrection:
        """AUTO: curvature, with the projection too for a system with restitution (what a step
        leaves in the gaps would be pushed out through the velocity at the next impact, adding
        energy: +1.1 % of a tumbling pin's kinetic energy in one step at e = 0.5)."""
        if self is not GapCorrection.AUTO:
            return self
        return GapCorrection.CURVATURE_PROJECTION if restitution else GapCorrection.CURVATURE

    @property
    def curvature(self) -> bool:
        return "curvature" in self.value

    @property
    def projection(self) -> bool:
        return "projection" in self.value


class GapLinearization(enum.StrEnum):
    """How a pin's or ball's radial gap |d| - c enters the step (step/cuts.py). SCALAR: its
    value and gradient, Phi + h Phi_v v <= 0, which bounds only the offset's component along
    its current direction (the paper's [eq. 24]). VECTOR (default): the whole linearised
    offset, |d + h D v| <= c, by cutting planes (QP path) or convex rows (NLP path): at c -> 0
    the ideal joint's equality."""

    SCALAR = "scalar"
    VECTOR = "vector"


class Integrator(enum.StrEnum):
    """The time-stepping scheme (`--integrator`; step/verlet.py).

    EULER: one velocity step per step, the forces at the step's start and the constraints
      linearised at its end (symplectic Euler with position-level contact, the paper's
      [eqs. 22-26]); first order.
    VERLET: kick h/2 - drift h - kick h/2 (a RATTLE-type Stoermer-Verlet split): the first QP
      (or NLP) gives the mid-step velocity whose drift closes the gaps and equalities at the
      step's end, now to second order; the second QP the end velocity, tangent to the closed
      contacts and joints. Second order in smooth phases; impacts, friction and compliant
      forces as in EULER; two solves per step.
    AUTO: VERLET where it applies, EULER for systems with flexible bodies (whose implicit
      internal forces are first order), compliant contacts (their force is held over the step:
      in both of Verlet's kicks it adds energy every step, h^2 w^2 / 2 of it for a linear
      spring, and a stiff contact diverges), spring-damper contacts (their implicit damping
      acts in both stages: 1.5x the damping, 12 % off a damped oscillator at any h) or Newton
      restitution (an impact's velocity stage can add kinetic energy: +0.4 % at a pin's
      impact with e = 0.5).
    """

    AUTO = "auto"
    EULER = "euler"
    VERLET = "verlet"

    def resolved(self, first_order: bool) -> Integrator:
        """The scheme a system takes (AUTO resolved; `first_order`: it has flexible bodies,
        compliant or spring-damper contacts or restitution)."""
        if self is not Integrator.AUTO:
            return self
        return Integrator.EULER if first_order else Integrator.VERLET


class SolverPath(enum.StrEnum):
    """NLP: IPOPT per step, h a variable of the NLP when h_min < h_max (the paper). QP: the
    convex QP of the step at a fixed h (h_max, or the error controller's); chunks of steps in
    one CasADi Function, the NLP for the steps they fail. AUTO (default): QP wherever its steps
    are the NLP's (a fixed h or the controller's, the implicit form), else NLP."""

    AUTO = "auto"
    NLP = "nlp"
    QP = "qp"


class QPPlugin(enum.StrEnum):
    """CasADi conic plugins for the QP. qrqp and DAQP are compiled to C with the chunk (qrqp is
    generated inline; DAQP's headers and library ship in CasADi's wheel). AUTO is DAQP, a dual
    active-set method (run with proximal-point iterations when there is friction): on the
    N-link chain it is 14x (N = 8) to 190x (N = 32) faster than qrqp, whose sparse QR grows as
    N^3, and qrqp cycles on the degenerate active sets of friction QPs, where ideal joints or a
    second sticking contact fix a slip direction already. qpOASES is the backup of both."""

    AUTO = "auto"
    QRQP = "qrqp"
    DAQP = "daqp"
    QPOASES = "qpoases"
    OSQP = "osqp"


#: The plugins CasADi generates C code for (the chunk is compiled with them).
COMPILED_PLUGINS = frozenset({QPPlugin.QRQP, QPPlugin.DAQP})


@dataclass(frozen=True)
class Verification:
    """Unscaled tolerances that decide whether a solver's point is a solved step: constraint
    violation (m, rad), equations-of-motion residual relative to the forces at play (1), and
    complementarity |lambda Phi_lin| (N m); contact forces must be >= -complementarity."""

    constraints: float = 1e-9
    eom: float = 1e-8
    complementarity: float = 1e-8


@dataclass(frozen=True)
class Friction:
    """Numerical settings of Coulomb friction on hard contacts (step/friction.py).

    A step's fixed point ends when the EoM residual with the friction forces of the Coulomb law
    at the step's own normal forces is within the kernel's Verification bound (solved), or when
    mu |lambda_new - lambda_old| <= tol max(mu lambda, 1 N) without that (stalled: FAILED), or
    after `iterations` solves (FAILED, counted as unconverged). `memory`: residuals mixed by
    the Anderson acceleration of the normal-force update (0: plain substitution). |D v| is
    smoothed as sqrt(|D v|^2 + creep^2) - creep: a sticking contact creeps at most `creep`
    m/s. A contact slipping slower than `stick_speed` m/s at the start of a step uses the static
    coefficient.
    """

    tol: float = 1e-9
    iterations: int = 50
    creep: float = 1e-7
    stick_speed: float = 1e-4
    memory: int = 5


DEFAULT_VERIFICATION = Verification()
DEFAULT_FRICTION = Friction()
