"""Cases and studies are found through entry points (pyproject.toml): the groups "nlpmbd.cases"
({name: Case}) and "nlpmbd.studies" ({name: Study}). The engine never imports a case, a study or
a joint by name, so dependencies flow cases -> joints -> nlpmbd, and any installed package can
add its own."""

from __future__ import annotations

from difflib import get_close_matches
from importlib import metadata
from typing import Any, TypeVar

from ..errors import InputError
from ..model.case import Case
from ..validation import short_repr
from .study import Study

T = TypeVar("T")


def _load(group: str, kind: type[T]) -> dict[str, T]:
    found: dict[str, T] = {}
    for ep in metadata.entry_points(group=group):
        table: Any = ep.load()
        for name, item in dict(table).items():
            if isinstance(item, kind):
                found.setdefault(name, item)
    return dict(sorted(found.items()))


def load_cases() -> dict[str, Case]:
    return _load("nlpmbd.cases", Case)


def load_studies() -> dict[str, Study]:
    return _load("nlpmbd.studies", Study)


def get_case(name: str) -> Case:
    cases = load_cases()
    if name not in cases:
        # the close names, not all of them: the line stays short however many are installed
        close = ", ".join(get_close_matches(name, cases, n=3))
        hint = f"did you mean {close}? " if close else ""
        raise InputError(
            f"unknown case {short_repr(name)}; {hint}`nlpmbd list` shows the {len(cases)} cases"
        )
    return cases[name]


def get_study(name: str) -> Study:
    studies = load_studies()
    if name not in studies:
        known = ", ".join(studies) or "none"
        raise InputError(f"unknown study {short_repr(name)}; known studies: {known}")
    return studies[name]
