"""The IFToMM spatial slider-crank against the published solutions (issue 31, item 10;
benchmarks/reference_problems/spatial_slider_crank.py): the default run at h = 1e-4, 1 s."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.reference_problems import load_csv, missing_reason, peer_folder
from benchmarks.reference_problems.spatial_slider_crank import FOLDER, compare, run, summary

pytestmark = pytest.mark.skipif(peer_folder(FOLDER) is None, reason=missing_reason(FOLDER))


@pytest.mark.slow
def test_default_run_against_masarati_and_its_own_model():
    folder = peer_folder(FOLDER)
    assert folder is not None
    result, _ = run()
    assert np.all(result.status == 0)
    c = compare(result, load_csv(folder, "masarati_20ms.csv"), summary(folder))
    # Same data, independent minimal-coordinate model: at h = 1e-4 the default scheme is
    # within 2.2e-7 m; 1e-5 m leaves room for round-off, not for a modelling error.
    assert c["minimal_max"] < 1e-5
    # The acceptance: within 1e-3 m of Masarati over 1 s (9.1e-4 m measured; Masarati
    # and Gonzalez, two published solutions, differ by 7.4e-4 m at 1 s, so no tighter band is
    # justified against Masarati) ...
    assert c["masarati_max"] < 1e-3
    # ... and 3.3e-5 m from Gonzalez at 1 s, 1.7e-7 m at 0.5 s: Gonzalez's solution is the
    # tighter reference; 1e-4 m is a tenth of the published spread.
    assert c["gonzalez"][0.5] < 1e-5 and c["gonzalez"][1.0] < 1e-4
    # before the crank's first fast passage (0.26-0.3 s) the two agree to 2.2e-6 m
    assert c["masarati_early"] < 1e-5
