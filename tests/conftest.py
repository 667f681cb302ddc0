"""Test-session setup: the independent references' cache lives in pytest's cache directory
(tests/reference_cache.py)."""

from __future__ import annotations

import pytest
import reference_cache


def pytest_configure(config: pytest.Config) -> None:
    cache = getattr(config, "cache", None)  # None under `-p no:cacheprovider`
    if cache is not None:
        reference_cache.DIRECTORY = cache.mkdir("references")
