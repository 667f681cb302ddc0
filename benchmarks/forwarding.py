"""A CasADi Callback that forwards to a Function and lets a subclass look at each evaluation
(`seen`): how benchmarks and tests count what happens inside a step's graph in CasADi's VM."""

from __future__ import annotations

import casadi as ca


class Forwarding(ca.Callback):
    """`f` as a Callback; `seen(inputs, outputs)` (by name) after each evaluation."""

    def __init__(self, f: ca.Function) -> None:
        ca.Callback.__init__(self)
        self.f = f
        self.construct(f.name() + "_counted", {})

    def seen(self, inputs: dict, outputs: dict) -> None:
        """What a subclass records of one evaluation (nothing here)."""

    def get_n_in(self) -> int:
        return self.f.n_in()

    def get_n_out(self) -> int:
        return self.f.n_out()

    def get_name_in(self, i: int) -> str:
        return self.f.name_in(i)

    def get_name_out(self, i: int) -> str:
        return self.f.name_out(i)

    def get_sparsity_in(self, i: int) -> ca.Sparsity:
        return self.f.sparsity_in(i)

    def get_sparsity_out(self, i: int) -> ca.Sparsity:
        return self.f.sparsity_out(i)

    def eval(self, args: list) -> list:
        out = self.f.call(args)
        self.seen(
            dict(zip(self.f.name_in(), args, strict=True)),
            dict(zip(self.f.name_out(), out, strict=True)),
        )
        return out
