"""Chained chunks (run/chunks.py): cheap chunks evaluated back to back and read by Python as one
take the same steps, bit for bit, as chunks read one at a time, with fewer readings."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.io.schema import SCHEMA
from nlpmbd.run import chunks

CASES = {
    # fixed h, no contacts
    "pendulum": ({}, {"t_end": 0.3, "h_min": 1e-3, "h_max": 1e-3}),
    # the error controller: rejected attempts inside the chunks, h_next carried between them
    "pendulum ctrl": ({}, {"t_end": 0.3, "h_min": 1e-4, "h_max": 1e-3,
                           "step_control": "controller"}),
    # contacts that close and open, projections, chunks that stop at a failed step
    "box_drop": ({}, {"t_end": 0.3, "h_min": 2e-3, "h_max": 2e-3}),
}  # fmt: skip
_RUN = chunks.ChunkRunner.run


def _run(case: str, params: dict, kw: dict, chain: int, monkeypatch) -> tuple:
    monkeypatch.setattr(chunks, "CHAIN_MAX", chain)
    readings = []

    def counted(self, X, P):
        rows = _RUN(self, X, P)
        readings.append(rows.k)
        return rows

    monkeypatch.setattr(chunks.ChunkRunner, "run", counted)
    system, _ = get_case(case.split()[0]).build(params)
    options = SimulationOptions(solver="qp", codegen="off", chunk_steps=16, **kw)
    return simulate(system, options), readings


@pytest.mark.parametrize("name", CASES)
def test_chained_chunks_take_the_same_steps(name, monkeypatch):
    params, kw = CASES[name]
    one, read_one = _run(name, params, kw, 1, monkeypatch)
    chained, read_chained = _run(name, params, kw, 8, monkeypatch)
    for spec in SCHEMA:
        if spec.name != "solve_time":
            a, b = getattr(one, spec.name), getattr(chained, spec.name)
            assert np.array_equal(a, b), spec.name
    counters = ("chunk_steps", "controller_rejections", "qp_cold_solves", "qp_fallback_steps")
    assert {k: one.meta[k] for k in counters} == {k: chained.meta[k] for k in counters}
    assert one.meta["chunk_steps"] > 0
    # chained readings hold more than one chunk's steps, so there are fewer of them
    assert max(read_chained) > 16 >= max(read_one)
    assert len(read_chained) < len(read_one)
