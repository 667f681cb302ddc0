"""Simulation options: typed, frozen, validated on construction."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, fields
from typing import Any

from .errors import InputError
from .validation import finite_scalar, short_repr


class Formulation(enum.StrEnum):
    """How each step's NLP is written (FORMULATION.md sections 4 and 8).

    IMPLICIT: unknowns h and q_dot only; minimise K^T M^-1 K subject to the linearised
      constraints. Its KKT conditions are the equations of motion plus complementarity, and the
      forces are the scaled constraint multipliers. Default (fewer iterations, see README).
    MPCC: the paper's NLP [eq. 25] with explicit multipliers lambda, the equations of motion as
      equality constraints and Scholtes-relaxed complementarity lambda_j (-Phi_lin_j) <= sigma.
    """

    IMPLICIT = "implicit"
    MPCC = "mpcc"


#: Ways to remove the O(h^2) penetration of the true gaps after a step.
GAP_CORRECTIONS = ("curvature+projection", "projection", "curvature", "none")

#: Who chooses the step size: the per-step NLP (the paper) or nlpmbd's error controller.
STEP_CONTROLS = ("nlp", "controller")

#: How each step is solved: the NLP with IPOPT (h a variable), or the fixed-h QP (qp_step.py).
SOLVERS = ("nlp", "qp")

#: CasADi conic plugins for the QP (qrqp ships with CasADi and can be compiled to C).
QP_SOLVERS = ("qrqp", "qpoases", "osqp")

#: Compile the QP fast path to C: "auto" when a C compiler is found and the run is long enough
#: to pay for the compilation, "on" whenever a compiler is found, "off" never.
CODEGEN = ("auto", "on", "off")


@dataclass(frozen=True)
class SimulationOptions:
    """Options of one simulation.

    t_end : simulated time, s (> 0).
    h_min, h_max : bounds of the step size, s; equal values give a fixed step.
    formulation : Formulation or its string value.
    sigma : Scholtes relaxation of complementarity (N m), MPCC only; the achieved residual is
        reported per step.
    renormalize : project Euler parameters to unit length after each update (positions only; the
        velocities are untouched). The recorded |p^T p - 1| is taken before the projection.
    h_preference : weight of a tiny linear reward for larger h (objective units). With no active
        contact the Gauss objective may not depend on h at all; this makes the choice of h
        deterministic (it goes to h_max) without changing the equations of motion.
    tol : IPOPT tolerance (scaled NLP error) used for every step.
    max_retries : after a failed solve: cold start, a smaller h bound (if h is not fixed), then
        no second-order gap term.
    ipopt : extra IPOPT options, e.g. {"max_iter": 50}.
    gap_correction : how the O(h^2 w^2 l) violation of the true gap after a step is removed
        (the linearised gap [eq. 24] itself holds). "curvature" adds the second-order term
        h^2/2 d^2Phi/ds^2 along the previous velocity to the linearised gap (near contact,
        capped at c/2, dropped for a step where it makes penetration worse); "projection"
        moves the positions (never the velocities) back onto Phi(q) <= 0 by the smallest
        mass-weighted displacement; "curvature+projection" (default) does both; "none".
        See README, "Penetration".
    step_control : who chooses h when h_min < h_max. "nlp" (default): h is a variable of each
        step's NLP, as in the paper; with no active contact the Gauss objective does not depend
        on h, so this is not error control (h mostly sits at h_max). "controller": every step is
        solved at a fixed h in [h_min, h_max] chosen by stepper.StepController: it starts at
        h_min, adapts h to keep a local position-error estimate near error_tol, and halves h to
        re-solve a step whose true gap penetrates by more than 0.1 of a clearance. The last one
        or two steps are shortened or lengthened so that the run ends exactly at t_end.
    error_tol : target local position error per step of the "controller" (m, in (0, 1]); unused
        with "nlp". The estimate is the mass-weighted RMS distance between the semi-implicit
        Euler update and the trapezoidal one, h/2 * sqrt(dv^T M dv / m_total).
    solver : "nlp" (default): each step is the NLP, solved by IPOPT, with h a variable when
        h_min < h_max; a QP at h = h_hi is tried first and kept when it satisfies the NLP's
        KKT conditions (see `predictor`). "qp": each step is the convex QP of the step at a
        fixed h (qp_step.py); needs h_min == h_max or step_control = "controller". At a fixed
        h the whole run is evaluated in chunks of steps by one CasADi Function.
    qp_solver : CasADi conic plugin for the QP: "qrqp" (default), "qpoases" or "osqp".
    codegen : compile the fixed-h QP chunks to C ("auto": if a C compiler is found and the run
        has at least 20000 steps; "on": whenever a compiler is found; "off": never). Without a
        compiler the same Function is evaluated by CasADi's virtual machine.
    predictor : with solver "nlp", solve the step's QP at h = h_hi first and keep it when it
        is a KKT point of the NLP (the h bound's multiplier has the right sign and the
        constraints, EoM and complementarity hold); otherwise IPOPT is run, warm-started.
    """

    t_end: float = 1.0
    h_min: float = 1e-3
    h_max: float = 1e-3
    formulation: Formulation | str = Formulation.IMPLICIT
    sigma: float = 1e-10
    renormalize: bool = True
    h_preference: float = 1e-6
    tol: float = 1e-10
    max_retries: int = 3
    ipopt: dict[str, Any] = field(default_factory=dict)
    gap_correction: str = "curvature+projection"
    step_control: str = "nlp"
    error_tol: float = 1e-6
    solver: str = "nlp"
    qp_solver: str = "qrqp"
    codegen: str = "auto"
    predictor: bool = True

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "t_end", finite_scalar("t_end", self.t_end, low=0.0, low_open=True))
        set_(self, "h_min", finite_scalar("h_min", self.h_min, low=0.0, low_open=True))
        set_(self, "h_max", finite_scalar("h_max", self.h_max, low=0.0, low_open=True))
        if self.h_min > self.h_max:
            raise InputError(f"h_min must be <= h_max, got h_min={self.h_min} > h_max={self.h_max}")
        if self.h_max > self.t_end:
            raise InputError(f"h_max must be <= t_end={self.t_end}, got {self.h_max}")
        try:
            set_(self, "formulation", Formulation(self.formulation))
        except ValueError:
            allowed = ", ".join(f.value for f in Formulation)
            raise InputError(
                f"formulation must be one of {allowed}, got {self.formulation!r}"
            ) from None
        set_(self, "sigma", finite_scalar("sigma", self.sigma, low=0.0, low_open=True, high=1.0))
        set_(self, "h_preference", finite_scalar("h_preference", self.h_preference, low=0.0))
        set_(self, "tol", finite_scalar("tol", self.tol, low=1e-14, high=1e-4))
        if not isinstance(self.renormalize, bool):
            raise InputError(
                f"renormalize must be true or false, got {short_repr(self.renormalize)}"
            )
        if (
            isinstance(self.max_retries, bool)
            or not isinstance(self.max_retries, int)
            or not (0 <= self.max_retries <= 3)
        ):
            raise InputError(f"max_retries must be an integer in [0, 3], got {self.max_retries!r}")
        if not isinstance(self.ipopt, dict):
            raise InputError(f"ipopt must be a dict of IPOPT options, got {short_repr(self.ipopt)}")
        for key, value in self.ipopt.items():
            ok_value = isinstance(value, str) or (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            )
            if not isinstance(key, str) or not key.strip() or not ok_value:
                raise InputError(
                    f"ipopt options must map names to an int, a finite float or text, got "
                    f"{short_repr(key)}={short_repr(value)}"
                )
        set_(self, "ipopt", dict(self.ipopt))
        if not isinstance(self.gap_correction, str) or self.gap_correction not in GAP_CORRECTIONS:
            allowed = ", ".join(GAP_CORRECTIONS)
            raise InputError(
                f"gap_correction must be one of {allowed}, got {short_repr(self.gap_correction)}"
            )
        if not isinstance(self.step_control, str) or self.step_control not in STEP_CONTROLS:
            allowed = ", ".join(STEP_CONTROLS)
            raise InputError(
                f"step_control must be one of {allowed}, got {short_repr(self.step_control)}"
            )
        set_(
            self,
            "error_tol",
            finite_scalar("error_tol", self.error_tol, low=0.0, low_open=True, high=1.0),
        )

        for name, allowed in (("solver", SOLVERS), ("qp_solver", QP_SOLVERS), ("codegen", CODEGEN)):
            value = getattr(self, name)
            if not isinstance(value, str) or value not in allowed:
                raise InputError(
                    f"{name} must be one of {', '.join(allowed)}, got {short_repr(value)}"
                )
        if self.solver == "qp" and self.h_min != self.h_max and self.step_control != "controller":
            raise InputError(
                "solver=qp needs a fixed step (h_min == h_max) or step_control=controller, "
                f"got h in [{self.h_min}, {self.h_max}]"
            )
        if not isinstance(self.predictor, bool):
            raise InputError(f"predictor must be true or false, got {short_repr(self.predictor)}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> SimulationOptions:
        """Options from a dict such as meta.json's `options`; unknown keys are an InputError."""
        if not isinstance(values, dict):
            raise InputError(f"options must be a JSON object, got {short_repr(values)}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise InputError(
                f"unknown option {unknown[0]!r}; options are {', '.join(sorted(known))}"
            )
        return cls(**values)

    @property
    def fixed_step(self) -> bool:
        return self.h_min == self.h_max

    def as_dict(self) -> dict[str, Any]:
        return {
            "t_end": self.t_end,
            "h_min": self.h_min,
            "h_max": self.h_max,
            "formulation": self.formulation.value,
            "sigma": self.sigma,
            "renormalize": self.renormalize,
            "h_preference": self.h_preference,
            "gap_correction": self.gap_correction,
            "step_control": self.step_control,
            "error_tol": self.error_tol,
            "solver": self.solver,
            "qp_solver": self.qp_solver,
            "codegen": self.codegen,
            "predictor": self.predictor,
            "tol": self.tol,
            "max_retries": self.max_retries,
            "ipopt": dict(self.ipopt),
        }
