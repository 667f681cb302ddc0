"""The step of `four_bar_clearance`'s default run that stopped it at 0.923 s (issue 22,
problem 1), from its state (tests/data/four_bar_clearance_0923.npz: t, q, v and the normal
forces of the step before, from a checkpoint of the default run): the QP path's friction fixed
point settles it (step/qp_rounds.py, the continuation), at the fixed point that plain
substitution reaches with enough rounds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions
from nlpmbd.model.symbolic import SymbolicModel
from nlpmbd.run.solvers import build_kernel
from nlpmbd.step.config import DEFAULT_FRICTION
from nlpmbd.step.qp_graph import attempt_function
from nlpmbd_cases.four_bar_clearance import CASE

STATE = Path(__file__).with_name("data") / "four_bar_clearance_0923.npz"


@pytest.mark.slow
def test_the_step_at_0923_settles_at_substitutions_fixed_point():
    system, _ = CASE.build({})
    options = SimulationOptions(t_end=1.0, h_min=CASE.h_min, h_max=CASE.h_max)
    kernel = build_kernel(SymbolicModel.build(system), options)
    assert kernel.verlet  # the default scheme, whose two stages both need the continuation
    s = np.load(STATE)
    args = {"t": float(s["t"]), "q": s["q"], "v": s["v"], "h": float(s["h"])}
    args.update(use_curvature=kernel.use, applied=np.zeros(s["v"].size), normal=s["lam"])
    # the chunks' rounds (8): the substitution ends 30x its tolerance off, the restart from
    # above does not come down; 40 rounds: the substitution alone settles
    steps = [attempt_function(kernel, "daqp", DEFAULT_FRICTION, n) for n in (8, 40)]
    ours, plain = (f(**args) for f in steps)
    assert float(ours["ok"]) == 1.0 and float(plain["ok"]) == 1.0
    lam, ref = np.asarray(ours["lam"]).ravel(), np.asarray(plain["lam"]).ravel()
    assert np.abs(lam - ref).max() < 1e-6 * np.abs(ref).max()
