"""Impact laws: how a contact of the impact set (step/impacts.py) leaves it, one kind per
contact (HardContact.impact), beside its gap and friction rows (rows/base.py).

- Newton (kinematic, the default): the row Phi_v v <= -e Phi_v vm of both paths; the contact
  leaves at e times its approach speed.
- Poisson (kinetic): the restitution impulse is e times the compression impulse, p_f =
  (1 + e) p_c in the normal impulse p.
- Energetic (Stronge): the normal force's work during restitution is -e^2 times its work during
  compression, F(p_f) = (1 - e^2) F(p_c) with F(p) the work absorbed up to p.

The last two are stated along the impact's process in p, slip stopping, sticking or reversing
on the way (step/impact_process.py, `Process`): their `end` gives the normal impulse p_f at
which the impact ends, and the QP step applies the process's impulses (step/qp_graph.py). The
three coincide where the slip keeps its direction throughout (and without friction). With
friction Newton's law may add energy where the slip stops or reverses (its end's normal speed
is fixed whatever friction did on the way); the energetic law never does (friction only
dissipates along the process, and the normal force returns e^2 of what it absorbed).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import casadi as ca

from ...errors import InputError
from ...model.contact import HardContact


class ImpactLaw(ABC):
    """The impact law of one contact of restitution e."""

    #: a row of the step (Newton's); else the impact's impulses come from its process
    kinematic: ClassVar[bool] = False

    def __init__(self, restitution: float) -> None:
        self.e = restitution

    @abstractmethod
    def end(self, process: Any) -> Any:
        """p_f: the normal impulse (N s) at which the impact of `process` ends."""


class Newton(ImpactLaw):
    """Kinematic: the normal approach speed c_n(p_f) = -e c_n(0)."""

    kinematic = True

    def end(self, process: Any) -> Any:
        return process.at_speed(-self.e * process.c0)


class Poisson(ImpactLaw):
    """Kinetic: p_f = (1 + e) p_c."""

    def end(self, process: Any) -> Any:
        return (1 + self.e) * process.compression()


class Energetic(ImpactLaw):
    """Energetic (Stronge): F(p_f) = (1 - e^2) F(p_c)."""

    def end(self, process: Any) -> Any:
        return process.at_work((1 - self.e**2) * process.work(process.compression()))


#: HardContact.impact -> its kind (another package may add one)
LAWS: dict[str, Callable[[float], ImpactLaw]] = {
    "newton": Newton,
    "poisson": Poisson,
    "energetic": Energetic,
}


def impact_law(law: Any) -> ImpactLaw:
    """The impact law of a gap under the contact law `law` (Newton for any but HardContact's
    other laws)."""
    name = getattr(law, "impact", "newton") if isinstance(law, HardContact) else "newton"
    return LAWS[name](float(getattr(law, "restitution", 0.0)))


class ImpactLaws:
    """Per gap of a model (SymbolicModel.gap_laws) its impact law."""

    def __init__(self, laws: Any) -> None:
        self.laws = [impact_law(law) for law in laws]
        #: (M,) 1 where the gap has Newton's row (its restitution row when e > 0), else 0
        self.rows = ca.DM([float(k.kinematic) for k in self.laws])
        #: the gaps whose impacts run Stronge's process (a process law and e > 0)
        self.process = [j for j, k in enumerate(self.laws) if not k.kinematic and k.e > 0]

    def check_nlp(self) -> None:
        """InputError where a process law is asked of the NLP path (Newton's rows only)."""
        if self.process:
            name = type(self.laws[self.process[0]]).__name__.lower()
            raise InputError(
                f"contact.impact {name!r} needs the QP path, solver 'qp' (auto takes the NLP "
                f"for step_control 'nlp' over an h range or formulation 'mpcc'); the NLP path "
                f"has Newton's law only"
            )
