"""Energy balance of the vector gaps' cutting planes (step/cuts.py): a frictionless mechanism
whose contacts are all plastic, under gravity alone, gains energy in no step.

What the last cut leaves of a pin's or ball's offset outside its disc (up to CUT_TOL c) is
pushed out through the velocity at the next step, at up to CUT_TOL c / h: a spurious
restitution that grows as h shrinks. With CUT_TOL = 1e-3 the spatial slider-crank with play at
every joint (c = 0.1 mm) gains more than 1e-9 J in 1009 of its 3000 steps at h = 1e-4 s (up to
2.8e-6 J in one); with CUT_TOL = 1e-6 in none (the largest rise 9e-16 J;
benchmarks/results/spatial_lag.md).
"""

from __future__ import annotations

import numpy as np

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case

#: J: far above the second-order scheme's smooth energy error per step here (< 1e-15 J)
RISE = 1e-9


def test_no_step_gains_energy() -> None:
    system = get_case("spatial_slider_crank").build({"clearance_at": "all"})[0]
    res = simulate(system, SimulationOptions(t_end=0.3, h_min=1e-4, h_max=1e-4))
    rise = np.diff(res.energy[:, 2])
    assert rise.max() <= RISE, (
        f"{np.count_nonzero(rise > RISE)} steps gain up to {rise.max():.2e} J"
    )
