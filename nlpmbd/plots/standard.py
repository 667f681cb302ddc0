"""Panels of the standard figures (plots/figures.py): each draws one figure's data onto given
axes. Positions, forces and gaps get a minimum y span (plots/scales.py) so rounding noise draws
flat; forces start at row 1 (row 0 is a placeholder zero) and are drawn at the start of their
step; an `Overlay` (plots/difference.py) adds the compared result dashed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..io.result import SimulationResult
from .difference import Overlay
from .scales import (
    force_rows,
    labels,
    log_floor,
    min_span,
    note,
    position_span,
    relative_span,
    solver_tol,
    style,
    velocity_span,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def per_body(
    axes: list[Axes], result: SimulationResult, width: int, over: Overlay | None = None
) -> None:
    """x, y, z of every body's centre of mass (width 7: positions, 6: velocities)."""
    n_bodies = result.q.shape[1] // 7
    bodies = labels(result.meta.get("bodies"), n_bodies, "body")
    cols = result.q if width == 7 else result.v
    marker = "o" if result.t.size < 2 else None
    other = over.result.body_names if over else []
    name, unit = ("{}", "m") if width == 7 else ("d{}/dt", "m/s")
    span = position_span(result) if width == 7 else velocity_span(result)
    for i, (ax, coord) in enumerate(zip(axes, "xyz", strict=True)):
        for k, body in enumerate(bodies):
            label = body if i == 0 else "_nolegend_"
            kw = style(k)
            (line,) = ax.plot(result.t, cols[:, width * k + i], marker=marker, label=label, **kw)
            if over and body in other:
                ref = over.result.q if width == 7 else over.result.v
                j = other.index(body)
                over.dashed(
                    ax, over.result.t, ref[:, width * j + i], line, body if i == 0 else None
                )
        ax.set_ylabel(f"{name.format(coord)} ({unit})")
        min_span(ax, span)
    if not bodies:
        note(axes[0], "no bodies")


def joint_forces(axes: list[Axes], result: SimulationResult, over: Overlay | None = None) -> None:
    """CF-x, CF-y, CF-z of every joint on its moving body, from row 1 at the step starts."""
    names = labels(result.meta.get("joints"), result.joint_force.shape[1], "joint")
    other = list(over.result.meta.get("joints", [])) if over else []
    t, rows = force_rows(result)
    span = relative_span([result.joint_force[rows]], 1e-6)
    for i, (ax, coord) in enumerate(zip(axes, "xyz", strict=True)):
        for k, name in enumerate(names):
            label = name if i == 0 else "_nolegend_"
            y = result.joint_force[rows, k, i]
            (line,) = ax.plot(t, y, lw=0.9, label=label, **style(k))
            if over and name in other:
                t_ref, rows_ref = force_rows(over.result)
                y_ref = over.result.joint_force[rows_ref, other.index(name), i]
                over.dashed(ax, t_ref, y_ref, line, name if i == 0 else None)
        ax.set_ylabel(f"CF-{coord} (N)")
        min_span(ax, span)


def contact_points(axes: list[Axes], result: SimulationResult) -> None:
    """Tracks of the distinct contact points (a vertex shared by two gaps is drawn once)."""
    names = labels(result.meta.get("contact_labels"), result.lam.shape[1], "contact")
    seen: list[np.ndarray] = []
    for j, label in enumerate(names):
        track = result.contact_point[:, j, :]
        if any(track.shape == s.shape and np.allclose(track, s) for s in seen):
            continue
        kw = style(len(seen))
        seen.append(track)
        for i, ax in enumerate(axes):
            ax.plot(result.t, track[:, i], lw=0.9, label=label if i == 0 else "_nolegend_", **kw)
    for ax, coord in zip(axes, "xyz", strict=True):
        ax.set_ylabel(f"{coord} (m)")
        min_span(ax, position_span(result))


def step_size(axes: list[Axes], result: SimulationResult) -> None:
    from matplotlib.ticker import LogFormatter, MaxNLocator

    t1, h = result.t[1:], result.h
    axes[0].set_ylabel("step size h (ms)")
    axes[1].set_ylabel(result.iteration_unit)
    if h.size == 0:
        for ax in axes:
            note(ax, "no steps")
        return
    axes[0].plot(t1, 1e3 * h, ".-", ms=3, lw=0.8)
    if h.min() > 0 and h.max() > 3 * h.min():
        axes[0].set_yscale("log")
        for axis_ticks in (axes[0].yaxis.set_major_formatter, axes[0].yaxis.set_minor_formatter):
            axis_ticks(LogFormatter(labelOnlyBase=False))  # "0.5", "2", not "2x10^0"
    else:  # from zero: a (nearly) constant h must not magnify rounding noise
        axes[0].set_ylim(0.0, 1.15e3 * h.max())
    axes[1].plot(t1, result.iterations, ".-", ms=3, lw=0.8, color="0.3", label="iterations")
    for code, label, color in ((1, "acceptable", "tab:orange"), (2, "retried", "tab:red")):
        hit = result.status == code
        if hit.any():
            axes[1].plot(t1[hit], result.iterations[hit], "o", mfc="none", color=color, label=label)
    axes[1].set_ylim(0, 1.15 * result.iterations.max() + 1)
    axes[1].yaxis.set_major_locator(MaxNLocator(integer=True))


def residuals(axes: list[Axes], result: SimulationResult) -> None:
    """Log panels floored at 1e-12 of their largest value, not below 1e-3 of the NLP tolerance
    (a panel whose values all lie below that is left empty, with a note)."""
    t, t1 = result.t, result.t[1:]
    panels = (
        (t1, result.eom_residual, "equations of motion", "norm (N, N m)"),
        (t1, result.norm_residual, r"Euler parameters $|p^Tp - 1|$", "max over bodies (1)"),
        (t, result.eq_residual, "ideal joint constraints", "norm (m, rad)"),
        (t1, result.comp_residual, r"complementarity $|\lambda\Phi|$", "max (N m)"),
    )
    for ax, (x, values, title, unit) in zip(axes, panels, strict=True):
        ax.set_title(title, fontsize="medium")
        ax.set_ylabel(unit)
        if values.size == 0:
            note(ax, "no steps")
            continue
        if values is result.eq_residual and result.lam_eq.shape[1] == 0:
            note(ax, "no ideal joints or driving constraints")
            continue
        if values is result.comp_residual and result.lam.shape[1] == 0:
            note(ax, "no contacts")
            continue
        floor, peak = log_floor(values, solver_tol(result)), float(np.max(values))
        if not peak >= floor:
            text = f"all below {floor:.0e} (max {peak:.1e}): zero at the solver's tolerance"
            note(ax, text if peak > 0 else "all zero")
            continue
        ax.semilogy(x, np.maximum(values, floor), ".-", ms=3, lw=0.8)
        if np.any(values < floor):
            note(ax, f"values below {floor:.0e} drawn at {floor:.0e}", y=0.9)


def energy(axes: list[Axes], result: SimulationResult, over: Overlay | None = None) -> None:
    e = result.energy
    for col, label in enumerate(("kinetic", "potential", "total")):
        marker = "o" if e.shape[0] < 2 else None
        (line,) = axes[0].plot(result.t, e[:, col], marker=marker, label=label)
        if over:
            over.dashed(axes[0], over.result.t, over.result.energy[:, col], line, label)
    axes[0].set_ylabel("energy (J)")
    (line,) = axes[1].plot(result.t, e[:, 2] - e[0, 2], color="tab:green", label="E(t) - E(0)")
    if over:
        eo = over.result.energy[:, 2]
        over.dashed(axes[1], over.result.t, eo - eo[0], line, "E(t) - E(0)")
    axes[1].set_ylabel("total energy change (J)")
    span = relative_span([e], 1e-9, 1e-12)
    for ax in axes:
        min_span(ax, span)


def contacts(axes: list[Axes], result: SimulationResult) -> None:
    """Normal forces (from row 1, at the step starts) and gaps; distinct styles per contact."""
    names = labels(result.meta.get("contact_labels"), result.lam.shape[1], "contact")
    t, rows = force_rows(result)
    for j, label in enumerate(names):
        axes[0].plot(t, result.lam[rows, j], lw=0.9, label=label, **style(j))
        axes[1].plot(result.t, result.gap[:, j], lw=0.9, **style(j))  # the legend above applies
    axes[1].axhline(0.0, color="0.4", lw=0.8, ls="--")
    axes[0].set_ylabel("normal force (N)")
    axes[1].set_ylabel("gap (m, > 0 = penetration)")
    min_span(axes[0], relative_span([result.lam[rows]], 1e-6))
    min_span(axes[1], position_span(result))
