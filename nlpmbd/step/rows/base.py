"""The interface of a contact row kind: what one gap of a hard joint contributes to a step,
written once for both step backends (the NLP of step/graph.py and the QP of step/qp_graph.py).

A gap's normal row (docs/FORMULATION.md sections 4 and 12) reads, linearised at qm,

    a Phi(qm) + h Phi_v v (+ T2) - k lambda <= 0,    lambda >= 0,    complementary,

with a (1) and k (m/N, >= 0) the kind's: a hard gap has a = 1, k = 0 (the paper's rigid
unilateral constraint, with the second-order term T2 and the gap projection); a compliant kind
(k > 0) penetrates by design and takes neither. Both backends realise -k lambda by a slack: the
NLP as a variable sigma = k lambda of cost c sigma^2 / (h^2 k), the QP as s = k lambda / h of
cost w s^2 / 2 with w = h^2 / k (`slack_weight`); the row's force is then lambda.

A gap's friction row is the Tresca term h g_j |D_j v| of the step (its NLP form smoothed by the
creep eps, its QP form exact: step/qp_friction.py), with the bound g_j = mu_j lambda_j: the kind
gives mu_j (`coefficient`, the stick/slip switch). The friction fixed point makes lambda_j the
step's own normal force.

Which kinds a contact law's gaps take is registered per law type (`register`, looked up along
the law's class hierarchy): a new in-step contact law is a law class plus, where its rows are
new, a GapRow or FrictionRow subclass and one `register` call; no engine file changes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import casadi as ca


class GapRow(ABC):
    """The normal row of one gap (module docstring)."""

    #: k > 0 at every h: a slack in both backends, no T2, no projection, a scalar row under the
    #: vector linearisation, and the first-order scheme
    compliant: ClassVar[bool] = False

    @abstractmethod
    def scale(self, h: Any) -> Any:
        """a: the factor of Phi(qm) in the row (1 for a hard gap)."""

    @abstractmethod
    def compliance(self, h: Any) -> Any:
        """k (m/N): the row yields k lambda (0 for a hard gap)."""

    def slack_weight(self, h: Any) -> Any:
        """w of the QP slack's cost w s^2 / 2 (kg): h^2 / k, so that h s = k lambda."""
        return h**2 / self.compliance(h)


class FrictionRow(ABC):
    """The friction row of one gap (module docstring)."""

    @abstractmethod
    def coefficient(self, slip_speed: Any, stick_speed: float) -> Any:
        """mu_j of a step: the friction bound is g_j = mu_j lambda_j. `slip_speed`: |D_j vm|
        (m/s) at the step's start; `stick_speed`: the Friction setting below which a contact
        counts as sticking."""

    def nlp_term(self, c: Any, h: Any, g: Any, u: Any, creep: float) -> tuple[Any, Any]:
        """(cost, beta): the NLP's Tresca term (2c/h) g (|u|_eps - eps), |u|_eps =
        sqrt(|u|^2 + eps^2), scaled like the Gauss objective c K^T M^-1 K (step/graph.py), and
        beta = g u / |u|_eps, the friction force on the moving body being -beta (3,), for the
        slip u = D_j v."""
        return tresca_term(c, h, g, u, creep)


def tresca_term(c: Any, h: Any, g: Any, u: Any, creep: float) -> tuple[Any, Any]:
    """(cost, beta) of FrictionRow.nlp_term for a rate u of any length (rows/joint_friction.py)."""
    norm = ca.sqrt(ca.dot(u, u) + creep**2)
    return (2 * c / h) * g * (norm - creep), g * u / norm


#: law type -> (its gaps' normal row, its gaps' friction row), each made from the law
Makers = tuple[Callable[[Any], GapRow], Callable[[Any], FrictionRow]]
_KINDS: dict[type, Makers] = {}


def register(
    law: type, normal: Callable[[Any], GapRow], friction: Callable[[Any], FrictionRow]
) -> None:
    """The row kinds of the gaps of joints whose contact law is a `law` (or a subclass that is
    not registered itself): `normal(law)` and `friction(law)` make them."""
    _KINDS[law] = (normal, friction)


def kinds_of(law: Any) -> tuple[GapRow, FrictionRow]:
    """The (normal, friction) rows of a gap under `law`."""
    for cls in type(law).__mro__:
        if cls in _KINDS:
            normal, friction = _KINDS[cls]
            return normal(law), friction(law)
    raise TypeError(f"no row kinds registered for the contact law {type(law).__name__}")
