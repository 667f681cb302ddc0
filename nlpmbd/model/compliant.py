"""The standard compliant contact law (a ForceLaw, model/contact.py), for comparing hard and
soft contact on one mechanism (flores_et_al_2008).

Normal force
    f_n = K delta^n (1 + D(e) delta_dot / delta_dot_minus),  delta = max(Phi, 0),
D = 3 (1 - e^2) / 4 (Lankarani-Nikravesh) or 3 (1 - e) / 2 (Hunt-Crossley), delta_dot_minus the
penetration speed when the contact began (kept by the stepper), n = 1.5 (Hertz, curved
surfaces) or 1 (the linear law for flat faces), f_n >= 0; friction -mu c_d f_n t_hat with the
dynamic correction c_d of Ambrosio (0 below v0, 1 above v1, a cubic ramp between). The force is
explicit (evaluated at the start of the step like every applied force): the step must resolve
the contact, h < ~ 0.2 sqrt(m_eff / (n K delta^(n-1))).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import casadi as ca

from ..errors import InputError
from ..validation import finite_scalar, short_repr
from .contact import ForceLaw, _coefficient

#: Smallest penetration speed at the start of a contact used in the damping term (m/s): a
#: contact that starts by creeping in has no meaningful impact speed.
MIN_IMPACT_SPEED = 1e-3


def _ramp(s: Any, v0: float, v1: float) -> Any:
    """Ambrosio's dynamic correction c_d: 0 below v0, 1 above v1, smooth cubic between."""
    u = ca.fmin(ca.fmax((s - v0) / (v1 - v0), 0), 1)
    return u * u * (3 - 2 * u)


#: Hysteresis factor D(e) per damping law.
DAMPING = {
    "lankarani-nikravesh": lambda e: 0.75 * (1 - e * e),
    "hunt-crossley": lambda e: 1.5 * (1 - e),
}


@dataclass(frozen=True)
class CompliantContact(ForceLaw):
    """A continuous contact force law (see the module docstring); units N, m, s."""

    stiffness: float  # K, N/m^n
    exponent: float = 1.5  # n: 1.5 Hertz, 1 flat faces
    restitution: float = 1.0  # e in [0, 1]
    damping: str = "lankarani-nikravesh"
    mu: float = 0.0
    friction_speeds: tuple[float, float] = (1e-4, 1e-3)  # v0 < v1 of the friction ramp, m/s

    def __post_init__(self) -> None:
        k = finite_scalar("contact.stiffness", self.stiffness)
        if k <= 0:
            raise InputError(f"contact.stiffness must be > 0 (N/m^n), got {k!r}")
        object.__setattr__(self, "stiffness", k)
        n = finite_scalar("contact.exponent", self.exponent)
        if not 1.0 <= n <= 3.0:
            raise InputError(f"contact.exponent must be in [1, 3], got {n!r}")
        object.__setattr__(self, "exponent", n)
        object.__setattr__(
            self, "restitution", _coefficient("contact.restitution", self.restitution, 1.0)
        )
        if self.damping not in DAMPING:
            raise InputError(
                f"contact.damping must be one of {sorted(DAMPING)}, got {short_repr(self.damping)}"
            )
        object.__setattr__(self, "mu", _coefficient("contact.mu", self.mu))
        try:
            v0, v1 = (finite_scalar("contact.friction_speeds", s) for s in self.friction_speeds)
        except (TypeError, ValueError):
            raise InputError(
                f"contact.friction_speeds must be two speeds (v0, v1), got "
                f"{short_repr(self.friction_speeds)}"
            ) from None
        if not 0 <= v0 < v1:
            raise InputError(f"contact.friction_speeds must satisfy 0 <= v0 < v1, got ({v0}, {v1})")
        object.__setattr__(self, "friction_speeds", (v0, v1))

    @property
    def damping_factor(self) -> float:
        """D(e) of the hysteresis term."""
        return DAMPING[self.damping](self.restitution)

    def normal_force(self, delta: Any, rate: Any, impact_speed: Any) -> Any:
        speed = ca.fmax(impact_speed, MIN_IMPACT_SPEED)
        return self.stiffness * delta**self.exponent * (1 + self.damping_factor * rate / speed)

    def tangential_force(self, normal: Any, v_t: Any) -> Any | None:
        if self.mu <= 0:
            return None
        s = ca.sqrt(ca.dot(v_t, v_t) + 1e-24)
        return -(self.mu * _ramp(s, *self.friction_speeds) * normal * v_t / s)

    def stiffness_at(self, delta: float) -> float:
        return self.exponent * self.stiffness * delta ** (self.exponent - 1)
