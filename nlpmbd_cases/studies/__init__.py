"""The named studies of `nlpmbd study NAME` (entry point group "nlpmbd.studies")."""

from __future__ import annotations

from nlpmbd.apps.study import Study

from .clearance_sweep import CLEARANCE_SWEEP
from .ideal_vs_clearance import IDEAL_VS_CLEARANCE
from .step_ranges import STEP_RANGES
from .step_strategies import STEP_STRATEGIES

STUDIES: dict[str, Study] = {
    s.name: s for s in (IDEAL_VS_CLEARANCE, STEP_RANGES, CLEARANCE_SWEEP, STEP_STRATEGIES)
}
