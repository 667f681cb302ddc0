"""Contact laws of a joint's gaps: how its gaps act on the bodies.

A ContactLaw is one of two kinds. `HardContact` keeps the gaps as unilateral constraints of the
step, the paper's complementarity Phi <= 0, lambda >= 0, lambda Phi = 0 (docs/FORMULATION.md
section 4). A `ForceLaw` takes the gaps out of the step's constraints and pushes the bodies
apart with a force of the penetration instead (model/compliant.py has the standard one); a new
force law is a ForceLaw subclass with two hooks, nothing in the engine changes.

`HardContact` keeps the paper's unilateral constraint Phi <= 0 with lambda >= 0 (docs/FORMULATION.md
section 4) and adds, per joint:

- Coulomb friction in the tangent plane, exact (circular) cone. Each step solves the Tresca
  problem (friction bound g_j = mu_j lambda_j with lambda_j given): the Gauss objective gains
  h sum_j g_j |D_j v|, D_j v the slip velocity at contact j, whose subgradient is a force of
  size <= g_j opposing the slip: sticking inside the cone, sliding with mu lambda on its
  boundary. A fixed-point loop on lambda_j makes g_j = mu_j lambda_j hold at the step's end
  (exact Coulomb, no normal dilation as in Anitescu's convex relaxation). |.| is smoothed as
  sqrt(|D v|^2 + eps^2) - eps with eps = the option stick_creep: a sticking contact creeps at < eps.
  mu_static applies to a contact whose slip speed at the start of the step is below
  the option stick_speed (it sticks, or breaks away with mu_static lambda for one step); mu
  otherwise.
- Newton restitution e, velocity level, as in Moreau-Jean: a contact that approaches
  (Phi_v vm > 0) and would close within the step at that speed (Phi + h Phi_v vm >= 0) gets the
  extra row Phi_v v <= -e Phi_v vm: it leaves with e times its approach speed. The bounce can
  start up to h |Phi_v vm| before touching (an O(h) position error, as in every velocity-level
  scheme); e = 0 adds no row (the paper's perfectly inelastic contact).
- The impact law (`impact`, per contact; docs/FORMULATION.md, "Impact laws"): "newton" (the
  kinematic row above, the default), "poisson" (kinetic: restitution impulse = e x compression
  impulse) or "energetic" (Stronge: the normal force's work in restitution = -e^2 x its work
  in compression). The last two run the contact's impact as Stronge's process in the normal
  impulse, slip stopping, sticking or reversing on the way (step/impact_process.py), on the QP
  path. With friction Newton's law may add energy where the slip stops or
  reverses; the energetic law never does (measured per law: docs/FORMULATION.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import InputError
from ..validation import finite_scalar, short_repr


def _coefficient(name: str, value: object, upper: float | None = None) -> float:
    x = finite_scalar(name, value)
    if x < 0 or (upper is not None and x > upper):
        allowed = f"[0, {upper:g}]" if upper is not None else ">= 0"
        raise InputError(f"{name} must be in {allowed}, got {x!r}")
    return x


class ContactLaw(ABC):  # noqa: B024 - the two kinds below are the interface
    """How a joint's gaps act: HardContact (constraints) or a ForceLaw (a force)."""

    #: a hard joint's gaps penetrate by design (a compliant row, SpringDamperContact): their
    #: penetration is not measured against the clearance
    penetrates: ClassVar[bool] = False


#: The impact laws of HardContact's `impact` (module docstring).
IMPACT_LAWS = ("newton", "poisson", "energetic")


@dataclass(frozen=True)
class HardContact(ContactLaw):
    """Complementarity contact with Coulomb friction (mu, mu_static), restitution e and its
    impact law (`impact`: newton, poisson or energetic; module docstring)."""

    restitution: float = 0.0
    mu: float = 0.0
    mu_static: float = None  # type: ignore[assignment]  # None: the same as mu
    impact: str = "newton"

    def __post_init__(self) -> None:
        if not isinstance(self.impact, str) or self.impact not in IMPACT_LAWS:
            raise InputError(
                f"contact.impact must be one of {', '.join(IMPACT_LAWS)}, "
                f"got {short_repr(self.impact)}"
            )
        object.__setattr__(
            self, "restitution", _coefficient("contact.restitution", self.restitution, 1.0)
        )
        object.__setattr__(self, "mu", _coefficient("contact.mu", self.mu))
        if self.mu_static is None:
            object.__setattr__(self, "mu_static", self.mu)
        mu_s = _coefficient("contact.mu_static", self.mu_static)
        if mu_s < self.mu:
            raise InputError(f"contact.mu_static must be >= contact.mu = {self.mu}, got {mu_s}")
        object.__setattr__(self, "mu_static", mu_s)

    @property
    def has_friction(self) -> bool:
        return self.mu > 0 or self.mu_static > 0


@dataclass(frozen=True)
class SpringDamperContact(HardContact):
    """A compliant contact whose force is implicit in the step: the linear spring-damper
    lambda = max(K delta + chi delta_dot, 0) of Zheng and Wang's nodes (K `stiffness` N/m, chi
    `damping` N s/m, the paper's hysteresis factor), with Coulomb friction (mu, mu_static).

    delta is the penetration at the step's end, linearised as Phi + h Phi_v v, and delta_dot =
    Phi_v v, so lambda is a function of the new velocities: the contact is the complementarity
    row (K h / (K h + chi)) Phi + h Phi_v v - lambda h / (K h + chi) <= 0, lambda >= 0 (a
    constraint with compliance; docs/FORMULATION.md section 12). Unlike a ForceLaw, held over
    the step, it is stable at any h, whatever the mass it acts on. No restitution: chi is the
    dissipation.
    """

    penetrates: ClassVar[bool] = True

    stiffness: float = 1e4
    damping: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.restitution != 0:
            raise InputError(
                f"contact.restitution must be 0 for a SpringDamperContact (damping dissipates), "
                f"got {self.restitution}"
            )
        K = finite_scalar("contact.stiffness", self.stiffness, low=0.0, low_open=True)
        object.__setattr__(self, "stiffness", K)
        object.__setattr__(self, "damping", _coefficient("contact.damping", self.damping))


class ForceLaw(ContactLaw):
    """A compliant contact: the joint's gaps act through a force, not as constraints.

    Per contact, with delta = max(Phi, 0) the penetration (m), its rate (m/s, > 0 while the
    bodies approach) and the penetration speed when the contact began (m/s, kept by the run
    loop), the moving body is pushed along the contact direction by max(normal_force, 0) while
    Phi > 0, plus tangential_force (e.g. friction) against the slip velocity v_t (3-vector,
    m/s). Both are CasADi expressions. The force is explicit: evaluated at the start of each
    step, like every applied force, so the step must resolve the law's stiffness.
    """

    @abstractmethod
    def normal_force(self, delta: Any, rate: Any, impact_speed: Any) -> Any:
        """Normal force magnitude (N) at penetration delta >= 0."""

    def tangential_force(self, normal: Any, v_t: Any) -> Any | None:
        """Force (3-vector, N) along the tangent plane, or None for a frictionless law."""
        return None

    @abstractmethod
    def stiffness_at(self, delta: float) -> float:
        """d normal_force / d delta at penetration delta (N/m): the run's validity check asks
        for h below 0.2 sqrt(m / stiffness_at(largest delta))."""


def check_contact(name: str, contact: object) -> ContactLaw:
    if contact is None:
        return HardContact()
    if not isinstance(contact, (HardContact, ForceLaw)):
        raise InputError(
            f"{name}.contact must be a HardContact or a ForceLaw (e.g. CompliantContact), got "
            f"{short_repr(contact)}"
        )
    return contact
