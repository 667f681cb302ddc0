"""A step taken at a fixed h (by the QP) as a point of the step NLP, and the test whether it
solves the NLP, whose h ranges over [h_lo, h_hi].

At a fixed h the QP is the NLP; otherwise the QP's point solves the NLP when the multiplier of
the bound s <= h_hi / h_max is nonnegative, lam_x_s = -dL/ds >= 0 (the objective would still
fall with a larger h), and it passes the kernel's acceptance test. NLPStep.adopt uses it for
the predictor (step/predictor.py), the compiled chunks' PREDICTED sizing for the test alone
(run/chunk_graph.py). Implicit form only, without friction, restitution, compliant contacts or
flexible bodies (run/solvers.py, predictable): the point has no blocks for them.
"""

from __future__ import annotations

from typing import Any

import casadi as ca

from ..model.rotation import g_matrix
from .graph import NLPGraph
from .layout import named_function


def nlp_point(
    g: NLPGraph, h_max: float, qm: Any, h: Any, v: Any, lam: Any, lam_eq: Any
) -> tuple[Any, Any]:
    """The step at h (velocities v, forces lam, lam_eq) as a point (x, lam_g) of the NLP of the
    implicit form: s = h / h_max, q_dot from v and the linearised norm rows, the rows'
    multipliers from the forces."""
    blocks = []
    for k in range(g.n_bodies):
        e = qm[7 * k + 3 : 7 * k + 7]
        ee = ca.dot(e, e)
        # v = 2 G p_dot and the linearised norm row [eq. 23]: p^T p - 1 + 2 h p^T p_dot = 0
        pd = g_matrix(e).T @ v[6 * k + 3 : 6 * k + 6] / (2 * ee) + e * (1 - ee) / (2 * h * ee)
        blocks += [v[6 * k : 6 * k + 3], pd]
    # the compliant equalities' slacks (step/dependent.py): their rows hold at k lambda / h
    give = g.eq_rho * h * lam_eq if g.eq_rho > 0 else ca.MX(0, 1)
    x = g.layout_x.symbolic_stack({"s": h / h_max, "qd": ca.vertcat(*blocks), "give": give})
    # implicit form: y = 2 c lam / (rs h^2) (step/graph.py); the norm rows' multipliers are 0
    c, rs = g.objective_scale, g.row_scale
    lam_g = g.layout_g.symbolic_stack(
        {
            "norm": ca.MX.zeros(g.layout_g.sizes["norm"]),
            "eq": 2 * c * lam_eq / (rs * h**2),
            "gap": 2 * c * lam / (rs * h**2),
        }
    )
    return x, lam_g


def dL_ds(g: NLPGraph, P: Any, x: Any, lam_g: Any) -> Any:
    """dL/ds, the Lagrangian's derivative in the scaled step s = h / h_max."""
    return g.lagrangian_gradient.call({"P": P, "x": x, "lam_g": lam_g})["grad"][g.layout_x["s"]]


def takes_h_max(
    g: NLPGraph, h_max: float, t: Any, q: Any, v: Any, use: Any, h: Any, o: dict
) -> Any:
    """1 when the step at h = h_max (outputs `o`: v_new, lam, lam_eq) solves the NLP whose h
    ranges below it: dL/ds <= 0. The compiled chunks' form of NLPStep.adopt's test."""
    P = g.layout_p.symbolic_stack({"t": t, "q": q, "v": v, "use_curvature": use})
    x, lam_g = nlp_point(g, h_max, q, h, o["v_new"], o["lam"], o["lam_eq"])
    return dL_ds(g, P, x, lam_g) <= 0


def adoption_function(g: NLPGraph, h_max: float) -> ca.Function:
    """(P, h, v, lam, lam_eq) -> the step as a point (x, lam_g) of the NLP, with dL/ds, the
    NLP's constraint violation (m) and its post outputs there (post_<name>): one call."""
    P, h = ca.MX.sym("P", g.layout_p.size), ca.MX.sym("h")
    v, lam = ca.MX.sym("v", g.n_v), ca.MX.sym("lam", g.layout_g.sizes["gap"])
    lam_eq = ca.MX.sym("lam_eq", g.layout_g.sizes["eq"])
    x, lam_g = nlp_point(g, h_max, g.layout_p.split(P)["q"], h, v, lam, lam_eq)
    rows = g.rows.call({"P": P, "x": x})["g"]
    viol = ca.mmax(ca.vertcat(0, rows - g.ubg, g.lbg - rows)) / g.row_scale
    post = g.post.call({"P": P, "x": x, **g.multipliers(lam_g)})
    outs = {"x": x, "lam_g": lam_g, "dLds": dL_ds(g, P, x, lam_g), "viol": viol}
    outs.update({f"post_{k}": a for k, a in post.items()})
    ins = {"P": P, "h": h, "v": v, "lam": lam, "lam_eq": lam_eq}
    return named_function("adoption", ins, outs)
