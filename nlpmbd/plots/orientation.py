"""The orientation figure: per body its intrinsic Cardan angles (unwrapped, in degrees; for a
body turning about one axis only, that angle is its joint angle) and its angular velocity in body
axes, one line per body in the colours of the position figure; an overlay is drawn dashed. Rows
in which no body turns (the tilts of a planar mechanism) are left out."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..io.result import SimulationResult
from .difference import Overlay
from .kinematics import best_sequence, cardan_angles
from .scales import labels, min_span, note, style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Smallest y spans: angles (deg) and angular velocities (rad/s).
ANGLE_SPAN = 1e-3
RATE_SPAN = 1e-4
#: A row is drawn when some body's angle spans, or its rate reaches, this much (rad, rad/s).
TURNING = 1e-7
ORDINALS = ("1st", "2nd", "3rd")


def body_angles(result: SimulationResult) -> dict[str, tuple[np.ndarray, str]]:
    """Per body: ((n+1, 3) Cardan angles in degrees, sequence) (kinematics.cardan_angles), in
    one sequence for all bodies (kinematics.best_sequence), so that rows compare."""
    names = labels(result.meta.get("bodies"), result.q.shape[1] // 7, "body")
    ps = [result.q[:, 7 * k + 3 : 7 * k + 7] for k in range(len(names))]
    seq = best_sequence(ps)
    out = {}
    for name, p in zip(names, ps, strict=True):
        angles, _ = cardan_angles(p, seq)
        out[name] = (np.degrees(angles), seq)
    return out


def active_rows(result: SimulationResult, other: SimulationResult | None = None) -> list[int]:
    """The angle rows (0, 1, 2) in which some body of either result turns; [2] (the angle
    about Z of a planar mechanism) when none does."""
    rows: set[int] = set()
    for res in (result, other) if other is not None else (result,):
        for deg, _ in body_angles(res).values():
            rows |= {i for i in range(3) if np.ptp(np.radians(deg[:, i])) > TURNING}
        w = res.v.reshape(res.v.shape[0], -1, 6)[:, :, 3:]
        rows |= {i for i in range(3) if np.max(np.abs(w[:, :, i]), initial=0.0) > TURNING}
    return sorted(rows) or [2]


def orientation(
    axes: list[Axes],
    result: SimulationResult,
    over: Overlay | None = None,
    rows: tuple[int, ...] = (0, 1, 2),
) -> None:
    """Axes as a len(rows) x 2 grid (row-major): angles left, angular velocities right."""
    left, right = axes[0::2], axes[1::2]
    angles = body_angles(result)
    other = body_angles(over.result) if over else {}
    for k, (name, (deg, seq)) in enumerate(angles.items()):
        kw = style(k)
        for row, i in enumerate(rows):
            label = f"{name} ({seq})" if row == 0 else "_nolegend_"
            (line,) = left[row].plot(result.t, deg[:, i], lw=0.9, label=label, **kw)
            if over and name in other and other[name][1] == seq:
                over.dashed(left[row], over.result.t, other[name][0][:, i], line, None)
            (line,) = right[row].plot(result.t, result.v[:, 6 * k + 3 + i], lw=0.9, **kw)
            if over and name in over.result.body_names:
                j = over.result.body_names.index(name)
                over.dashed(right[row], over.result.t, over.result.v[:, 6 * j + 3 + i], line, None)
    sequences = {seq for _, seq in angles.values()}
    common = sequences.pop() if len(sequences) == 1 else None
    for row, i in enumerate(rows):
        about = f" about {common[i].lower()}" if common else ""
        left[row].set_ylabel(f"{ORDINALS[i]} Cardan angle{about} (deg)")
        right[row].set_ylabel(f"$\\omega'_{'xyz'[i]}$ (rad/s, body axes)")
        min_span(left[row], ANGLE_SPAN)
        min_span(right[row], RATE_SPAN)
    if not angles:
        note(left[0], "no bodies")
