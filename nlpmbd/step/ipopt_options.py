"""IPOPT options given by the user: checked before anything is built."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..validation import short_repr


def check_ipopt_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options as a dict of names to an int, a finite float or text (InputError if not)."""
    if not isinstance(options, Mapping):
        raise InputError(f"ipopt must be a dict of IPOPT options, got {short_repr(options)}")
    for key, value in options.items():
        ok_value = isinstance(value, str) or (
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        )
        if not isinstance(key, str) or not key.strip() or not ok_value:
            raise InputError(
                f"ipopt options must map names to an int, a finite float or text, got "
                f"{short_repr(key)}={short_repr(value)}"
            )
    return dict(options)
