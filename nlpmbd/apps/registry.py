"""Case discovery through the "nlpmbd.cases" entry point group (see pyproject.toml).

The engine never imports `cases` directly, so dependencies flow cases -> joints -> nlpmbd; any
installed package can add cases by exposing a {name: Case} mapping under that group.
"""

from __future__ import annotations

from importlib import metadata

from ..errors import InputError
from ..model.case import Case


def load_cases() -> dict[str, Case]:
    found: dict[str, Case] = {}
    for ep in metadata.entry_points(group="nlpmbd.cases"):
        table = ep.load()
        for name, case in dict(table).items():
            if isinstance(case, Case):
                found.setdefault(name, case)
    return dict(sorted(found.items()))


def get_case(name: str) -> Case:
    cases = load_cases()
    if name not in cases:
        raise InputError(f"unknown case {name!r}; known cases: {', '.join(cases) or 'none'}")
    return cases[name]
