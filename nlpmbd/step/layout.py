"""Named layouts of a step's vectors: parameters, unknowns, constraint rows, chunk records.

A Layout is an ordered list of named blocks; it gives each block's slice, splits a stacked
vector (NumPy or CasADi) into its blocks and stacks blocks back. Solvers and the predictor read
positions from a Layout, never from hand-counted offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
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


def named_function(name: str, inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> Any:
    """A CasADi Function with named inputs and outputs, in the mappings' order: call it with a
    dict (`f.call({...})` returns a dict), never by position."""
    import casadi as ca

    return ca.Function(name, list(inputs.values()), list(outputs.values()), [*inputs], [*outputs])


def symbols_like(values: Mapping[str, Any]) -> dict[str, Any]:
    """An MX symbol in the shape of each value (outputs that a `switch` keeps or recomputes)."""
    import casadi as ca

    return {k: ca.MX.sym(f"o_{k}", a.sparsity()) for k, a in values.items()}


#: Outputs that count work and add up over the solves a step makes: QP solves, those made cold
#: (no guessed active set, or a missed one: step/qp_warm.py), the loops that made their last
#: round (cut rounds, releases of induced impacts, the friction fixed point's substitution) and
#: the friction fixed point's rounds (step/qp_graph.py).
COUNTS = ("solves", "cold", "capped_cuts", "capped_releases", "capped_friction", "rounds")


def counts(**given: Any) -> dict[str, Any]:
    """COUNTS by name: `given`, the others 0."""
    import casadi as ca

    return {k: given.get(k, ca.MX(0)) for k in COUNTS}


def adding(taken: Mapping[str, Any], kept: Mapping[str, Any]) -> dict[str, Any]:
    """`taken` (a branch's outputs, for `switch`) with the COUNTS of `kept` (the outputs it
    replaces) added: a re-solve's count includes the solves before it."""
    return {k: (kept[k] + a if k in COUNTS and k in kept else a) for k, a in taken.items()}


def switch(
    name: str, inputs: Mapping[str, Any], outputs: Mapping[str, Any], taken: Mapping[str, Any]
) -> Callable[[Any, Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]:
    """A step that recomputes some outputs or keeps them: `outputs` are symbols of their values,
    `taken` the recomputed ones, expressions of the symbols `inputs` and `outputs`. Returns
    `call(condition, input values, output values)`: `taken` where the condition holds, else
    the output values. Only the branch taken is evaluated (CasADi's Function.if_else, whose
    inputs and outputs are positional: mapped to names here, once)."""
    import casadi as ca

    names = [*outputs]
    ins = [*inputs.values(), *outputs.values()]
    f = ca.Function.if_else(
        name,
        ca.Function(f"{name}_taken", ins, [taken[n] for n in names]),
        ca.Function(f"{name}_kept", ins, [outputs[n] for n in names]),
    )

    def call(
        condition: Any, input_values: Mapping[str, Any], output_values: Mapping[str, Any]
    ) -> dict[str, Any]:
        args = [*(input_values[n] for n in inputs), *(output_values[n] for n in names)]
        return dict(zip(names, f.call([condition, *args]), strict=True))

    return call
