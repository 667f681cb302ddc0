"""Per-pair contact materials of a model file (io/model_file.py): a body's `material`, the
ground's, and a table of pairs with their restitution, friction and impact law.

```toml
[materials]
ground = "concrete"                          # the ground's material (optional)
[[materials.pairs]]
between = ["steel", "concrete"]              # two materials (or one twice)
restitution = 0.5                            # HardContact's keys: restitution, mu, mu_static,
mu = 0.4                                     # impact
impact = "energetic"

[[bodies]]
name = "rod"
material = "steel"
```

A joint with gaps that gives no `contact` takes the hard contact of its bodies' pair (its
parent and child, or its body and the ground); one whose bodies have materials without a pair
is an error, and an explicit `contact` wins.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..model.contact import HardContact
from .model_schema import GROUND_NAMES, Where, check_keys, located, string, table, tables

MATERIAL_KEYS = ("ground", "pairs")
PAIR_KEYS = ("between", "restitution", "mu", "mu_static", "impact")


class Materials:
    """The pairs of a file's [materials] and its bodies' materials, by name."""

    def __init__(self, document: Mapping[str, Any], where: Where) -> None:
        at = where.key("materials")
        section = table(document.get("materials", {}), at)
        check_keys(section, at, MATERIAL_KEYS)
        self.of: dict[str, str] = {}
        if "ground" in section:
            ground = string(section["ground"], at.key("ground"))
            self.of.update(dict.fromkeys(GROUND_NAMES, ground))
        self.pairs: dict[frozenset, dict[str, Any]] = {}
        for index, pair in enumerate(tables(section.get("pairs", []), at.key("pairs"))):
            self._pair(pair, at.key("pairs").item(index))
        bodies = document.get("bodies", [])
        for index, body in enumerate(bodies if isinstance(bodies, list) else []):
            if isinstance(body, Mapping) and "material" in body:
                here = where.key("bodies").item(index).key("material")
                self.of[str(body.get("name"))] = string(body["material"], here)

    def _pair(self, pair: dict[str, Any], at: Where) -> None:
        check_keys(pair, at, PAIR_KEYS, ("between",))
        between = pair["between"]
        if not isinstance(between, list) or len(between) != 2:
            raise at.key("between").error('must be two material names, e.g. ["steel", "ice"]')
        names = [string(n, at.key("between").item(k)) for k, n in enumerate(between)]
        key = frozenset(names)
        if key in self.pairs:
            raise at.key("between").error(f"the pair {names} is given twice")
        law = {k: v for k, v in pair.items() if k != "between"}
        try:
            HardContact(**law)
        except InputError as err:
            raise located(err, at, ["contact"], law) from None
        self.pairs[key] = law

    def contact(self, entry: dict[str, Any], cls: type, at: Where) -> dict[str, Any]:
        """`entry` with the contact of its bodies' pair where it gives none and `cls` takes
        one (unchanged otherwise)."""
        params = _parameters(cls)
        if "contact" in entry or "contact" not in params or not self.pairs:
            return entry
        names = [entry[k] for k in ("parent", "child", "body") if k in params and k in entry]
        if len(names) == 1:  # a body against the ground (plane_contact, sphere_contact)
            names.append("GROUND")
        if len(names) != 2 or not all(isinstance(n, str) and n in self.of for n in names):
            return entry
        materials = [self.of[n] for n in names]
        law = self.pairs.get(frozenset(materials))
        if law is None:
            raise at.key("contact").error(
                f"no [[materials.pairs]] entry between {materials[0]!r} and {materials[1]!r} "
                f"(the materials of {names[0]} and {names[1]}); add one or give contact"
            )
        return {**entry, "contact": {"law": "hard", **law}}


def _parameters(cls: type) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return {}
