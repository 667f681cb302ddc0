"""The fast path (QP step in chunks) against the NLP path on the papers' mechanisms with friction
and restitution (issue 14): at equal fixed h, positions within 1e-6 m, the same contact forces,
every step taken in the chunks."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case

# (case, t_end, h): stretches with impacts, sliding and sticking, before any chaotic growth
CASES = [
    ("stick_slip", 1.0, 2e-3),
    ("slider_crank", 0.006, 1e-5),
    ("crank_rocker", 0.1, 1e-3),
    ("slider_crank_moment", 0.3, 1e-3),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "t_end", "h"), CASES, ids=[c[0] for c in CASES])
def test_fast_path_agrees_with_the_nlp_path(name, t_end, h):
    case = get_case(name)
    runs = {}
    for solver in ("nlp", "qp"):
        system, _ = case.build({})
        runs[solver] = simulate(
            # one scheme on both paths: with friction, auto takes euler on the NLP path
            system,
            SimulationOptions(t_end=t_end, h_min=h, h_max=h, solver=solver, integrator="euler"),
        )
    fast, nlp = runs["qp"], runs["nlp"]
    assert fast.meta["options"]["path"]["qp_solver"] == "auto"
    assert fast.meta["chunk_steps"] == len(fast.h) and fast.meta["qp_backup_solves"] == 0
    assert np.abs(fast.friction_force).max() > 0  # friction acted
    assert np.abs(fast.q - nlp.q).max() < 1e-6
    scale = max(1.0, np.abs(nlp.lam).max())
    assert np.abs(fast.lam - nlp.lam).max() < 1e-3 * scale
    assert np.all(fast.status == 0)  # every step passed the kernel's checks at once
