"""Contact laws of a joint's gaps: hard (complementarity, the paper's) or compliant (a force law).

`HardContact` keeps the paper's unilateral constraint Phi <= 0 with lambda >= 0 (FORMULATION.md
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

`CompliantContact` removes the joint's gaps from the NLP and applies a force law instead, for
comparing hard and soft contact on one mechanism (flores_et_al_2008): normal force
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

from ..errors import InputError
from ..validation import finite_scalar, short_repr



def _coefficient(name: str, value: object, upper: float | None = None) -> float:
    x = finite_scalar(name, value)
    if x < 0 or (upper is not None and x > upper):
        allowed = f"[0, {upper:g}]" if upper is not None else ">= 0"
        raise InputError(f"{name} must be in {allowed}, got {x!r}")
    return x


@dataclass(frozen=True)
class HardContact:
    """Complementarity contact with Coulomb friction (mu, mu_static) and restitution e."""

    restitution: float = 0.0
    mu: float = 0.0
    mu_static: float | None = None  # None: the same as mu

    def __post_init__(self) -> None:
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


#: Hysteresis factor D(e) per damping law.
DAMPING = {
    "lankarani-nikravesh": lambda e: 0.75 * (1 - e * e),
    "hunt-crossley": lambda e: 1.5 * (1 - e),
}


@dataclass(frozen=True)
class CompliantContact:
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


ContactLaw = HardContact | CompliantContact


def check_contact(name: str, contact: object) -> ContactLaw:
    if contact is None:
        return HardContact()
    if not isinstance(contact, (HardContact, CompliantContact)):
        raise InputError(
            f"{name}.contact must be a HardContact or CompliantContact, got {short_repr(contact)}"
        )
    return contact
