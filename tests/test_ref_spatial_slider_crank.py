"""The IFToMM spatial slider-crank against the published solutions (issue 31, item 10;
benchmarks/reference_problems/spatial_slider_crank.py): the default run at h = 1e-4, 1 s."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.reference_problems import load_csv, missing_reason, peer_folder
from benchmarks.reference_problems.spatial_slider_crank import FOLDER, compare, run, summary

pytestmark = pytest.mark.skipif(peer_folder(FOLDER) is None, reason=missing_reason(FOLDER))


def test_default_run_against_masarati_and_its_own_model():
    folder = peer_folder(FOLDER)
    assert folder is not None
    result, _ = run()
    assert np.all(result.status == 0)
    c = compare(result, load_csv(folder, "masarati_20ms.csv"), summary(folder))
    # Same data, independent minimal-coordinate model: at h = 1e-4 the default scheme is
    # within 2e-7 m; 1e-5 m leaves room for round-off, not for a modelling error.
    assert c["minimal_max"] < 1e-5
    # Before the crank's first fast passage both published solutions and ours agree: 8e-5 m
    # here, below the 1.9e-4 m that Masarati and Gonzalez themselves differ by at 0.3 s.
    assert c["masarati_early"] < 1.5e-4
    # Over 1 s the published solutions integrate a mass distribution 0.5 % apart from the
    # benchmark data as modelled here (the page docs/reference_problems/spatial_slider_crank.md
    # gives the evidence): 4.8e-3 m, guarded, not accepted; the 1e-3 m is not met.
    assert c["masarati_max"] < 6e-3
