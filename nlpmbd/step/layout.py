"""Named layouts of a step's vectors: parameters, unknowns, constraint rows, chunk records.

A Layout is an ordered list of named blocks; it gives each block's slice, splits a stacked
vector (NumPy or CasADi) into its blocks and stacks blocks back. Solvers and the predictor read
positions from a Layout, never from hand-counted offsets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np


class Layout:
    """Consecutive named blocks of a vector; blocks of size 0 are allowed (absent features)."""

    def __init__(self, blocks: Iterable[tuple[str, int]]) -> None:
        self.sizes: dict[str, int] = {}
        self.slices: dict[str, slice] = {}
        start = 0
        for name, size in blocks:
            if name in self.sizes:
                raise ValueError(f"layout block {name!r} given twice")
            self.sizes[name] = int(size)
            self.slices[name] = slice(start, start + int(size))
            start += int(size)
        self.size = start

    def __getitem__(self, name: str) -> slice:
        return self.slices[name]

    def __contains__(self, name: str) -> bool:
        return name in self.slices

    def split(self, vector: Any) -> dict[str, Any]:
        """The blocks of `vector` (any object sliceable along its first axis)."""
        return {name: vector[s] for name, s in self.slices.items()}

    def symbolic_stack(self, blocks: Mapping[str, Any]) -> Any:
        """A CasADi vector from its blocks (expressions); a missing block must have size 0."""
        import casadi as ca

        parts = []
        for name, size in self.sizes.items():
            if name in blocks:
                parts.append(blocks[name])
            elif size:
                raise ValueError(f"block {name!r} ({size} entries) is missing")
        return ca.vertcat(*parts)

    def stack(self, blocks: Mapping[str, Any]) -> np.ndarray:
        """A NumPy vector from its blocks; a missing block must have size 0."""
        parts = []
        for name, size in self.sizes.items():
            if name in blocks:
                part = np.ravel(np.asarray(blocks[name], dtype=float))
                if part.size != size:
                    raise ValueError(f"block {name!r} has {part.size} entries, expected {size}")
                parts.append(part)
            elif size:
                raise ValueError(f"block {name!r} ({size} entries) is missing")
        return np.concatenate(parts) if parts else np.zeros(0)
