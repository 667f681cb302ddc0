"""The row kinds' extension point (nlpmbd/step/rows/): a contact law and its rows defined outside
the engine. Copies of SpringDamperContact with its SoftGap row and of the Tresca friction row,
written here against the public interface (GapRow, FrictionRow, register) and registered for
their own law types, give arrays equal to the built-in ones on both step paths: the engine
assembles whatever rows a law registers, and no engine file knows these. A copy that differs
in one coefficient gives other arrays: the registered rows are the ones used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import casadi as ca
import numpy as np
import pytest

import nlpmbd_cases.stick_slip as stick_slip
from nlpmbd.model.contact import HardContact
from nlpmbd.step.rows import FrictionRow, GapRow, register
from tests.regression.runs import Run, run_arrays


@dataclass(frozen=True)
class CopiedSpringDamper(HardContact):
    """SpringDamperContact's parameters, copied (no restitution: its damping dissipates)."""

    penetrates: ClassVar[bool] = True
    stiffness: float = 1e4
    damping: float = 0.0


@dataclass(frozen=True)
class CopiedHard(HardContact):
    """HardContact as it is, under another type: its gaps take the copied Tresca row."""


class CopiedSoftGap(GapRow):
    """SoftGap copied: a = K h / (K h + chi), k = h / (K h + chi), w = h (K h + chi)."""

    compliant = True

    def __init__(self, stiffness: float, damping: float) -> None:
        self.K, self.chi = stiffness, damping

    def scale(self, h: Any) -> Any:
        return self.K * h / (self.K * h + self.chi)

    def compliance(self, h: Any) -> Any:
        return h / (self.K * h + self.chi)

    def slack_weight(self, h: Any) -> Any:
        return h * (self.K * h + self.chi)


class CopiedHardGap(GapRow):
    def scale(self, h: Any) -> Any:
        return 1.0

    def compliance(self, h: Any) -> Any:
        return 0.0


class CopiedTresca(FrictionRow):
    """Tresca copied: the static coefficient below the stick speed, and the NLP's smoothed
    Tresca term (2c/h) g (|u|_eps - eps) with its force."""

    def __init__(self, mu: float, mu_static: float) -> None:
        self.mu, self.mu_static = mu, mu_static

    def coefficient(self, slip_speed: Any, stick_speed: float) -> Any:
        return ca.if_else(slip_speed < stick_speed, self.mu_static, self.mu)

    def nlp_term(self, c: Any, h: Any, g: Any, u: Any, creep: float) -> tuple[Any, Any]:
        norm = ca.sqrt(ca.dot(u, u) + creep**2)
        return (2 * c / h) * g * (norm - creep), g * u / norm


@dataclass(frozen=True)
class OffSpringDamper(CopiedSpringDamper):
    """The copy with its row's damping doubled: must not give the built-in arrays."""


@dataclass(frozen=True)
class OffHard(HardContact):
    """HardContact whose friction row ignores mu_static: must not give the built-in arrays."""


register(
    CopiedSpringDamper,
    lambda law: CopiedSoftGap(law.stiffness, law.damping),
    lambda law: CopiedTresca(law.mu, law.mu_static),
)
register(CopiedHard, lambda law: CopiedHardGap(), lambda law: CopiedTresca(law.mu, law.mu_static))
register(
    OffSpringDamper,
    lambda law: CopiedSoftGap(law.stiffness, 2 * law.damping),
    lambda law: CopiedTresca(law.mu, law.mu_static),
)

register(OffHard, lambda law: CopiedHardGap(), lambda law: CopiedTresca(law.mu, law.mu))

PATHS = {"nlp": {"solver": "nlp"}, "qp": {"solver": "qp", "codegen": "off"}}


def _arrays(monkeypatch: Any, contact: str, copy: type | None, options: dict) -> dict:
    """run_arrays of stick_slip (friction mu 0.15 / 0.2, two gaps) with `contact`'s law, or the
    same law's parameters under the type `copy`."""
    if copy is not None:
        built_in = stick_slip._law

        def copied(params: Any) -> Any:
            law = built_in(params)
            fields = {"mu": law.mu, "mu_static": law.mu_static}
            if copy in (CopiedHard, OffHard):
                return copy(restitution=law.restitution, **fields)
            return copy(stiffness=law.stiffness, damping=law.damping, **fields)

        monkeypatch.setattr(stick_slip, "_law", copied)
    run = Run("copy", "stick_slip", {"contact": contact}, {"t_end": 0.1, **options})
    return run_arrays(run)


def _differences(a: dict, b: dict) -> list[str]:
    assert a.keys() == b.keys()
    return [k for k in a if not np.array_equal(a[k], b[k], equal_nan=True)]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("contact", "copy"), [("spring_damper", CopiedSpringDamper), ("hard", CopiedHard)]
)
def test_copied_rows_give_the_built_in_arrays(
    monkeypatch: Any, path: str, contact: str, copy: type
) -> None:
    built_in = _arrays(monkeypatch, contact, None, PATHS[path])
    assert np.max(np.abs(built_in["friction_force"])) > 0.01  # friction acts (N)
    assert np.max(built_in["lam"]) > 0.1  # the gaps carry the slider (N)
    copied = _arrays(monkeypatch, contact, copy, PATHS[path])
    assert _differences(built_in, copied) == []


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("contact", "copy"), [("spring_damper", OffSpringDamper), ("hard", OffHard)]
)
def test_the_registered_rows_are_the_ones_used(
    monkeypatch: Any, path: str, contact: str, copy: type
) -> None:
    built_in = _arrays(monkeypatch, contact, None, PATHS[path])
    off = _arrays(monkeypatch, contact, copy, PATHS[path])
    assert {"q", "friction_force"} <= set(_differences(built_in, off))
