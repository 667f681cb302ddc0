"""The clearance each gap closes, as a result's metadata holds it: once per gap.

contact_scales gives it per contact column (contact_labels), contact_soft marks the columns of
spring-damper contacts, which penetrate by design (no penetration fraction), and
compliant_scales gives it per compliant column (compliant_labels). A joint's clearance in
joint_geometry is the clearance of its first gap, filled in here; the run leaves it out of the
stored description (`stored_description`). Results written before contact_soft (format 2
without it) held 0 in contact_scales for soft columns and the joint's clearance in
joint_geometry: they read as they always did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from ..validation import short_repr
from .schema import CLEARANCE_KEY

#: The key whose presence marks the per-gap form (every gap's clearance, and the soft mask).
SOFT_KEY = "contact_soft"


def penetration_scales(meta: Mapping[str, Any], n: int) -> np.ndarray:
    """(n,) per contact column the clearance its penetration is measured against: 0 for soft
    columns and columns without a clearance (none recorded counts as none). InputError when
    contact_scales or contact_soft do not give n values."""
    given = meta.get("contact_scales")
    try:
        scales = np.zeros(n) if given is None else np.asarray(given, dtype=float)
    except (TypeError, ValueError):
        scales = np.zeros(0)
    if scales.shape != (n,):
        raise InputError(
            f"meta contact_scales must give one clearance (m) per contact column ({n}), "
            f"got {short_repr(given)}"
        )
    soft = meta.get(SOFT_KEY)
    if soft is None:
        return scales
    if not (isinstance(soft, list) and len(soft) == n and all(isinstance(s, bool) for s in soft)):
        raise InputError(
            f"meta {SOFT_KEY} must give one true/false per contact column ({n}), "
            f"got {short_repr(soft)}"
        )
    return np.where(np.asarray(soft, dtype=bool), 0.0, scales)


def joint_clearances(meta: Mapping[str, Any]) -> dict[str, float]:
    """Per joint with gaps, the clearance of its first gap (contact columns, then compliant
    columns); empty for results without contact_soft."""
    out: dict[str, float] = {}
    if SOFT_KEY not in meta:
        return out
    for labels, scales in (
        ("contact_labels", "contact_scales"),
        ("compliant_labels", "compliant_scales"),
    ):
        for label, c in zip(meta.get(labels, []), meta.get(scales, []), strict=False):
            out.setdefault(str(label).split(".", 1)[0], float(c))
    return out


def joint_geometry(meta: Mapping[str, Any]) -> dict[str, Any]:
    """meta joint_geometry with the clearance of each joint's first gap (> 0) as its
    "clearance", where the description leaves it out (see the module docstring)."""
    geometry = meta.get("joint_geometry") or {}
    if not isinstance(geometry, dict):
        return {}
    first = joint_clearances(meta)
    out = dict(geometry)
    for joint, description in geometry.items():
        c = first.get(joint, 0.0)
        if isinstance(description, dict) and CLEARANCE_KEY not in description and c > 0:
            out[joint] = {**description, CLEARANCE_KEY: c}
    return out


def stored_description(description: dict[str, Any], clearances: Sequence[float]) -> dict[str, Any]:
    """A joint's description (Joint.describe()) as a result stores it: without its clearance
    when that is its first gap's (`clearances`, per gap), which contact_scales holds."""
    given = description.get(CLEARANCE_KEY)
    if isinstance(given, bool) or not isinstance(given, int | float):
        return description
    if clearances and given > 0 and float(given) == float(clearances[0]):
        return {k: v for k, v in description.items() if k != CLEARANCE_KEY}
    return description
