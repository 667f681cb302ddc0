"""Case studies; REGISTRY is what the CLI lists (through the "nlpmbd.cases" entry point)."""

from nlpmbd.case import Case

from . import free_body, pendulum

REGISTRY: dict[str, Case] = {c.name: c for c in (pendulum.CASE, free_body.CASE)}

__all__ = ["REGISTRY"]
