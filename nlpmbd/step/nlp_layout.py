"""The step NLP's vectors (step/graph.py): the blocks of its parameters P, unknowns x and rows g,
and which of a system's features add them."""

from __future__ import annotations

from typing import Any

from .layout import Layout


def nlp_layouts(
    m: Any, mpcc: bool, eq_rho: float = 0.0, n_soft: int = 0
) -> tuple[Layout, Layout, Layout]:
    """Layouts of P, x and g of the step NLP of model `m`; absent features have size-0 blocks.
    `eq_rho` > 0: the equality rows are compliant (step/dependent.py), with slacks `give`;
    `n_soft` gaps have compliant rows (step/rows/base.py), with slacks `sigma`."""
    N, nc, ne, nv = m.n_bodies, m.n_gap, m.n_eq, m.n_v
    nz = 2 * m.n_nodes if not mpcc else 0  # the flexible bodies' z (step/elastic.py)
    layout_p = Layout(
        [
            ("t", 1),
            ("q", m.n_q),
            ("v", nv),
            ("use_curvature", 1),
            ("friction_normal", nc if m.has_friction else 0),
            ("applied", nv if m.n_compliant else 0),
        ]
    )
    layout_x = Layout(
        [
            ("s", 1),
            ("qd", m.n_q),
            ("z", nz),
            ("sigma", n_soft if not mpcc else 0),  # the compliant gaps' k lambda (m)
            ("give", ne if eq_rho > 0 and not mpcc else 0),  # equalities' k lambda / h (m/s)
            ("lam", nc if mpcc else 0),
            ("lam_eq", ne if mpcc else 0),
        ]
    )
    layout_g = Layout(
        [
            ("norm", N),
            ("eq", ne),
            ("gap", nc),
            ("restitution", nc if m.has_restitution else 0),
            ("elastic", nz),
            ("eom", nv if mpcc else 0),
            ("complementarity", nc if mpcc else 0),
        ]
    )
    return layout_p, layout_x, layout_g
