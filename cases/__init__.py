"""Case studies; REGISTRY is what the CLI lists (through the "nlpmbd.cases" entry point)."""

from nlpmbd.case import Case

from . import box_drop, free_body, pendulum

REGISTRY: dict[str, Case] = {c.name: c for c in (pendulum.CASE, free_body.CASE, box_drop.CASE)}

__all__ = ["REGISTRY"]
