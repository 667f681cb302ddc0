"""Journal orbits of radial clearance joints (a pin in a hole, a ball in a socket) from a result's
q and the joint's description (Joint.describe(), stored in meta["joint_geometry"], its clearance
in meta["contact_scales"]: io/clearances.py).

A joint is drawn when its description holds KIND ("pin" or "ball") and these keys (bodies by
name, "ground" for the fixed frame; points and vectors in the axes of their body, m):

    clearance       radial clearance c (m)
    outer, inner    the hole (socket) body and the pin (ball) body
    points          comma list of the gap labels of the radial gaps, e.g. "end1,end2"
    points_on       "inner" or "outer": the body that carries those points
    <label>_x/y/z   each such point, in the body `points_on`
    ref_x/y/z       the centre it is measured from, in the other body
    axis_x/y/z      (pins) the unit axis through ref, in the other body
    axial_play      (optional) total axial play c_a between the gaps "stop1" and "stop2"

Offset d of a point: for a pin its distance vector from the axis line, d = w - (w . u) u with
w = P - ref (the gap's own d); for a ball d = P - ref. The journal's offset is d when the points
are on the inner body and -d otherwise, expressed in the outer body's axes and divided by c.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..io.clearances import joint_geometry
from ..io.result import SimulationResult
from .kinematics import body_pose, global_points, to_body_axes

#: The description key that marks a radial clearance joint, and its values.
KIND = "clearance_kind"
KINDS = ("pin", "ball")
#: A contact is active when its force exceeds this fraction of the joint's largest force.
ACTIVE_FRACTION = 1e-6


@dataclass(frozen=True)
class Track:
    """One journal point of a joint: its offset and the normal force of its gap."""

    joint: str
    label: str
    coords: np.ndarray  # (n+1, 2) pins: in the plane across the axis; (n+1, 3) balls; / c
    axis_names: tuple[str, ...]  # outer-body directions of the coordinates
    frame: str  # the outer body (hole, socket) in whose axes they are
    eccentricity: np.ndarray  # (n+1,) |offset| / c
    force: np.ndarray  # (n+1,) normal force (N); row 0 is a placeholder zero
    impacts: np.ndarray  # rows where the force rises from zero


def radial_joints(result: SimulationResult) -> list[tuple[str, dict]]:
    """(joint, description) of every radial clearance joint of the result, in joint order."""
    geometry = joint_geometry(result.meta)
    return [(j, g) for j, g in geometry.items() if isinstance(g, dict) and g.get(KIND) in KINDS]


def _vec(geometry: dict, stem: str) -> np.ndarray:
    return np.array([float(geometry[f"{stem}_{c}"]) for c in "xyz"])


def plane_axes(u: np.ndarray) -> tuple[np.ndarray, tuple[str, str]]:
    """((2, 3) unit e1, e2 with (e1, e2, u) right-handed, their names): for u along a
    coordinate axis k, e1, e2 are the next two axes in cyclic order."""
    u = u / np.linalg.norm(u)
    k = int(np.argmax(np.abs(u)))
    e1 = np.eye(3)[(k + 1) % 3]
    e1 = e1 - (e1 @ u) * u
    e1 /= np.linalg.norm(e1)
    e = np.array([e1, np.cross(u, e1)])
    return e, (_direction_name(e[0]), _direction_name(e[1]))


def _direction_name(e: np.ndarray) -> str:
    j = int(np.argmax(np.abs(e)))
    if abs(e[j]) > 1 - 1e-9:
        return ("" if e[j] > 0 else "-") + "xyz"[j]
    return "(" + ", ".join(f"{x:.2g}" for x in e) + ")"


def contact_history(result: SimulationResult, label: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(gap, normal force) (n+1,) of the contact `label` ("joint.gap"); a compliant contact's
    force is the magnitude of its force vector. None when the result has no such contact."""
    hard = list(result.meta.get("contact_labels", []))
    if label in hard:
        j = hard.index(label)
        return result.gap[:, j], result.lam[:, j]
    soft = list(result.meta.get("compliant_labels", []))
    if label in soft:
        j = soft.index(label)
        return result.compliant_gap[:, j], np.linalg.norm(result.compliant_force[:, j], axis=1)
    return None


def impacts(force: np.ndarray, fraction: float = ACTIVE_FRACTION) -> np.ndarray:
    """Rows k >= 1 where the force becomes active (> fraction of its maximum, and > 1e-9 N)
    after a row without force (row 0 counts as free)."""
    active = force > max(fraction * float(np.max(force, initial=0.0)), 1e-9)
    if active.size:
        active[0] = False
    return np.flatnonzero(active[1:] & ~active[:-1]) + 1


def joint_tracks(result: SimulationResult, joint: str, geometry: dict) -> list[Track]:
    """The tracks of one radial clearance joint (see the module docstring)."""
    c = float(geometry["clearance"])
    outer, inner = str(geometry["outer"]), str(geometry["inner"])
    on_inner = geometry.get("points_on", "inner") == "inner"
    points_body, ref_body = (inner, outer) if on_inner else (outer, inner)
    ref = global_points(result, ref_body, _vec(geometry, "ref"))
    u = None
    plane, names = np.eye(3), tuple("xyz")
    if geometry[KIND] == "pin":
        u = body_pose(result, ref_body)[1] @ _vec(geometry, "axis")
        plane, (e1, e2) = plane_axes(to_body_axes(result, outer, u[:1])[0])
        names = (e1, e2)
    tracks = []
    for label in str(geometry["points"]).split(","):
        d = global_points(result, points_body, _vec(geometry, label)) - ref
        if u is not None:
            d = d - np.sum(d * u, axis=1)[:, None] * u
        local = to_body_axes(result, outer, d if on_inner else -d) / c
        history = contact_history(result, f"{joint}.{label}")
        force = history[1] if history else np.zeros(result.t.shape[0])
        tracks.append(
            Track(
                joint=joint,
                label=label,
                coords=local @ plane.T,
                axis_names=names,
                frame=outer,
                eccentricity=np.linalg.norm(local, axis=1),
                force=force,
                impacts=impacts(force),
            )
        )
    return tracks


def axial_position(
    result: SimulationResult, joint: str, geometry: dict
) -> tuple[np.ndarray, np.ndarray, tuple[str, str]] | None:
    """(position, forces, (stop at -1, stop at +1)): the pin's axial position relative to the
    hole between the stops as 2 z / c_a, from the stop gaps Phi_1 = -c_a/2 - z and
    Phi_2 = z - c_a/2 (z: the axial offset of the body carrying the end points), the stops'
    normal forces (n+1, 2), and which stop the pin touches at -1 and +1; None without stops."""
    play = float(geometry.get("axial_play", 0.0))
    stops = [contact_history(result, f"{joint}.stop{k}") for k in (1, 2)]
    if not play > 0 or stops[0] is None or stops[1] is None:
        return None
    z = 0.5 * (stops[1][0] - stops[0][0])
    ends = ("stop1", "stop2")
    if geometry.get("points_on", "inner") != "inner":
        z, ends = -z, ("stop2", "stop1")
    return z / (0.5 * play), np.column_stack([stops[0][1], stops[1][1]]), ends
