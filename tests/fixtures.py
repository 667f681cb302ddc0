"""Test-only helpers."""

from __future__ import annotations

from nlpmbd import System
from nlpmbd.registry import get_case


def tilted_box(height: float = 0.05, tilt_deg: float = 20.0, spin: float = 3.0) -> System:
    """The box_drop case: a tilted, spinning box dropped on the floor (8 corner contacts)."""
    system, _ = get_case("box_drop").build({"height": height, "tilt": tilt_deg, "spin": spin})
    return system
