"""The branches of the QP step's graph (step/qp_graph.py): a second solve that runs only when
the first asks for it, and the fixed point of Coulomb friction built from such rounds.

The fixed point substitutes the normal forces of one round into the friction bounds of the
next (g_j = mu_j lambda_j). Where the step's sliding solution needs ever larger normal forces,
the map's slope reaches 1 and the rounds crawl or climb without end: Painleve's configurations
(a rod sliding with mu above its critical value, where the normal force of a sliding contact
would be -A / B with B -> 0 or < 0). The velocity-level step then sticks the contact with a
finite tangential impulse (a tangential impact). A fixed point that has not settled is
therefore started once more from above, from normal forces whose friction stops any slip
within the step: it sticks where sticking is consistent, and comes down to the sliding solution
otherwise.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .layout import switch, symbols_like


def _secant(x: Any, f: Any, before: tuple[Any, Any] | None) -> Any:
    """The next normal forces after a round that mapped x to f: the secant root of f - x per
    contact through the round before (exact where the map is linear; a slope near 1 makes
    plain substitution crawl), else f; kept >= 0."""
    if before is None:
        return f
    xp, fp = before
    r, dr = f - x, (f - x) - (fp - xp)
    usable = ca.fabs(dr) > 1e-9 * (1 + ca.fabs(f))
    secant = x - r * (x - xp) / (dr + (1 - usable))
    return ca.fmax(usable * secant + (1 - usable) * f, 0)


def _rounds(at: ca.Function, args: dict, x: Any, out: dict, rounds: int, tag: str) -> dict:
    """Rounds after the first; substitution, or with `tag` (the restart) secant steps."""
    before = None
    for k in range(rounds - 1):
        nxt = _secant(x, out["lam"], before if tag else None)
        syms, n = symbols_like(out), ca.MX.sym("normal", x.shape)
        again = at.call({**args, "normal": n, "fdirs": syms["fdirs_next"]})
        step = switch(f"friction_round_{tag}{k}", {**args, "normal": n}, syms, again)
        before, x = (x, out["lam"]), nxt
        out = step(1 - out["settled"], {**args, "normal": nxt}, out)
    return out


def fixed_point(at: ca.Function, args: dict, normal: Any, rounds: int, model: Any) -> dict:
    """Rounds of `at` (step/qp_graph.py: args, normal, fdirs -> ATTEMPT_OUT, fdirs_next), each
    with the normal forces and the friction polygons' cuts of the round before, until one is
    `settled` (Coulomb's law holds at its own normal forces, to the EoM tolerance), then as
    many from above if none did (module docstring); ok requires it."""
    cuts = ca.DM.zeros(at.sparsity_in("fdirs").shape)
    first = at.call({**args, "normal": normal, "fdirs": cuts})
    out = _rounds(at, args, normal, first, rounds, "")
    v, h = args["v"], args["h"]
    mu = np.asarray(model.mu_static, dtype=float)
    stop = float(np.sum(model.masses)) * ca.mmax(ca.fabs(v)) / h
    big = stop * ca.DM(np.where(mu > 0, 1 / np.maximum(mu, 1e-12), 0.0))
    syms = symbols_like(out)
    top = ca.fmax(big, normal)
    above = _rounds(at, args, top, at.call({**args, "normal": top, "fdirs": cuts}), rounds, "s")
    restart = switch("stick_restart", {**args, "normal": normal}, syms, above)
    out = restart(1 - out["settled"], {**args, "normal": normal}, out)
    out["ok"] = out["ok"] * out["settled"]
    return out
