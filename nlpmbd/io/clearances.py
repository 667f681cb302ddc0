"""The clearance each gap closes, as a result's metadata holds it: once per gap.

contact_scales gives it per contact column (contact_labels), contact_soft marks the columns of
spring-damper contacts, which penetrate by design (no penetration fraction), and
compliant_scales gives it per compliant column (compliant_labels). A joint's clearance in
joint_geometry is the clearance of its first gap, and a revolute clearance joint's axial play
that of its gap "stop1" (GAP_KEYS), filled in here; the run leaves them out of the stored
description (`stored_description`). Results written before contact_soft (format 2
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
#: Description keys whose value is a gap's clearance: key -> that gap's label (None: the
#: joint's first gap).
GAP_KEYS: dict[str, str | None] = {CLEARANCE_KEY: None, "axial_play": "stop1"}


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


def gap_clearances(meta: Mapping[str, Any]) -> dict[str, dict[str | None, float]]:
    """Per joint with gaps, {gap label: its clearance} (contact columns, then compliant
    columns), None for its first gap; empty for results without contact_soft."""
    out: dict[str, dict[str | None, float]] = {}
    if SOFT_KEY not in meta:
        return out
    for labels, scales in (
        ("contact_labels", "contact_scales"),
        ("compliant_labels", "compliant_scales"),
    ):
        for label, c in zip(meta.get(labels, []), meta.get(scales, []), strict=False):
            joint, _, gap = str(label).partition(".")
            gaps = out.setdefault(joint, {None: float(c)})
            gaps.setdefault(gap, float(c))
    return out


def joint_geometry(meta: Mapping[str, Any]) -> dict[str, Any]:
    """meta joint_geometry with each GAP_KEYS entry (> 0) that the description leaves out filled
    in from its gap's clearance (see the module docstring)."""
    geometry = meta.get("joint_geometry") or {}
    if not isinstance(geometry, dict):
        return {}
    gaps = gap_clearances(meta)
    out = dict(geometry)
    for joint, description in geometry.items():
        if not isinstance(description, dict):
            continue
        held = {key: gaps.get(joint, {}).get(gap, 0.0) for key, gap in GAP_KEYS.items()}
        filled = {k: c for k, c in held.items() if k not in description and c > 0}
        out[joint] = {**description, **filled} if filled else description
    return out


def stored_description(
    description: dict[str, Any], clearances: Sequence[float], labels: Sequence[str]
) -> dict[str, Any]:
    """A joint's description (Joint.describe()) as a result stores it: without the GAP_KEYS
    entries that equal their gap's clearance (`clearances` per gap, `labels` its gap labels),
    which contact_scales holds."""
    by_gap: dict[str | None, float] = dict(zip(labels, clearances, strict=True))
    if clearances:
        by_gap[None] = float(clearances[0])
    kept = dict(description)
    for key, gap in GAP_KEYS.items():
        given = description.get(key)
        if isinstance(given, bool) or not isinstance(given, int | float):
            continue
        if gap in by_gap and given > 0 and float(given) == by_gap[gap]:
            del kept[key]
    return kept
