"""Compliant contact on the fast path (issue 14): its force is explicit, a load held over each
QP step, and the contacts' memory (the penetration speed at which each began) is chunk state.
At equal fixed h the fast path and the NLP path integrate the same equations: positions,
contact forces and penetrations agree to rounding, every step taken in the chunks."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case

# (case, parameters, t_end, h): a slider dropping onto a compliant guide face and sliding with
# Ambrosio friction; a driven slider-crank whose slider hits compliant guide faces
CASES = [
    ("stick_slip", {"contact": "compliant", "restitution": 0.5}, 0.3, 1e-4),
    ("slider_crank_driven", {"guide": "compliant", "mu": 0.1}, 0.01, 1e-5),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params", "t_end", "h"), CASES, ids=[c[0] for c in CASES])
def test_fast_path_agrees_with_the_nlp_path_on_compliant_contact(name, params, t_end, h):
    runs = {}
    for solver in ("nlp", "qp"):
        system, _ = get_case(name).build(params)
        opts = SimulationOptions(t_end=t_end, h_min=h, h_max=h, solver=solver, codegen="off")
        runs[solver] = simulate(system, opts)
    fast, nlp = runs["qp"], runs["nlp"]
    assert fast.meta["chunk_steps"] == len(fast.h) and np.all(fast.status == 0)
    assert nlp.compliant_gap.max() > 0  # the contacts were loaded
    assert np.abs(fast.q - nlp.q).max() < 1e-9
    force = np.abs(nlp.compliant_force).max()
    assert np.abs(fast.compliant_force - nlp.compliant_force).max() < 1e-6 * force
    assert np.abs(fast.compliant_gap - nlp.compliant_gap).max() < 1e-9
