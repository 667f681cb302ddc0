"""A result as an HTML table for Jupyter (`SimulationResult._repr_html_`): the run's case or model
file, its summary, its warnings. Cheap (no figure, no page): the 3-D animation is
`nlpmbd.animate(result)` (apps/notebook.py), built only when asked for."""

from __future__ import annotations

from html import escape
from typing import Any

#: The summary's rows: key of SimulationResult.summary(), label, unit.
ROWS: tuple[tuple[str, str, str], ...] = (
    ("steps", "steps", ""),
    ("t_end", "end time", "s"),
    ("median_step_ms", "median step", "ms"),
    ("max_eom_residual", "max equation-of-motion residual", ""),
    ("max_eq_residual", "max equality residual", "m"),
    ("max_norm_residual", "max normal-velocity residual", "m/s"),
    ("max_comp_residual", "max complementarity residual", ""),
    ("max_penetration", "max penetration", "m"),
    ("max_penetration_fraction", "max penetration / clearance", ""),
    ("max_compliant_penetration", "max compliant penetration", "m"),
    ("energy_change", "energy change", "J"),
    ("error_estimate", "error estimate", ""),
    ("failed_steps", "failed steps", ""),
    ("retried_steps", "retried steps", ""),
)

_STYLE = "text-align:left;padding:1px 10px 1px 0"


def number(value: float | int) -> str:
    """How the table prints a summary value (integers whole, others to 4 digits)."""
    return str(value) if isinstance(value, int) else f"{value:.4g}"


def result_title(meta: dict[str, Any]) -> str:
    """The case (or model file), whether the run completed, its solver path."""
    source = meta.get("source")
    if isinstance(source, dict) and source.get("kind") == "model file":
        name = f"model file {source.get('file', '?')}"
    else:
        name = f"case {meta.get('case')}" if meta.get("case") else "run"
    state = "completed" if meta.get("completed") else f"not completed: {meta.get('message', '')}"
    path = meta.get("solver_path")
    return f"{name} ({state}{f', solver {path}' if path else ''})"


def _parameters(meta: dict[str, Any]) -> str:
    params = meta.get("parameters")
    if not isinstance(params, dict) or not params:
        return ""
    text = ", ".join(f"{k} = {v}" for k, v in params.items())
    return f"<details><summary>parameters</summary>{escape(text)}</details>"


def _warnings(meta: dict[str, Any]) -> str:
    found = [str(w) for w in meta.get("warnings") or []]
    if not found:
        return "<p>warnings: none</p>"
    items = "".join(f"<li>{escape(w)}</li>" for w in found)
    return f"<p><b>warnings ({len(found)})</b>:</p><ul>{items}</ul>"


def summary_html(summary: dict[str, float | int], meta: dict[str, Any]) -> str:
    """The table of one result: its title, summary rows, parameters and warnings."""
    rows = "".join(
        f"<tr><th style='{_STYLE}'>{escape(label)}</th>"
        f"<td style='{_STYLE}'>{number(summary[key])}</td>"
        f"<td style='{_STYLE}'>{escape(unit)}</td></tr>"
        for key, label, unit in ROWS
        if key in summary
    )
    return (
        f"<div class='nlpmbd-result'><p><b>SimulationResult</b>: {escape(result_title(meta))}</p>"
        f"<table>{rows}</table>{_parameters(meta)}{_warnings(meta)}"
        "<p style='color:#666'>3-D animation: <code>nlpmbd.animate(result)</code></p></div>"
    )
