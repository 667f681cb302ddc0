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


def test_an_open_frictional_contact_on_a_spinning_body_stays_on_the_qp_path():
    """A rod spinning at 2 rad/s in flight above rough ground (mu 0.4): its contact is open, the
    friction bound 0, and the free split variable p takes the slip, -1 m/s; the curvature of p
    (W_REG) gives a force of W_REG m |p| / h = 1e-6 N, which the check must allow for by |p|
    (by max(p), it was 0 and every step of the first 65 ms fell back to the NLP)."""
    from tests.test_impact_laws import rod_system

    system = rod_system(1.0, 0.4, (0.0, 0.0, 2.0), 0.9, "newton", gravity=9.81, lift=0.1)
    r = simulate(system, SimulationOptions(t_end=0.02, h_min=1e-4, h_max=1e-4))
    assert r.meta["qp_fallback_steps"] == 0 and r.meta["solver_path"] == "qp"
    assert np.max(np.abs(r.friction_force)) < 2e-6  # the curvature's force only
