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

Where neither settles but the substitution contracts (CONTRACTING), it is continued from its
last rounds with Anderson acceleration (type II over the last MEMORY differences of its rounds):
it converges, but too slowly for its rounds, where the contacts' normal forces are coupled
through their friction and the start is far off. The four_bar_clearance case, whose pins carry
each other's friction moments (slope 0.15 per round), meets it where the load has jumped
between the two ends of a pin in the step before: 28.7 N off at the start, 5.6e-5 N after 8
rounds against a tolerance of 1.8e-6 N, and the restart from 2.5e7 N does not come down in its
rounds; the continuation settles in one more. Where the substitution crawls or swings (slope
near +-1), a small change says little about the distance to the fixed point and more rounds
would settle short of it (rocking_block's corner switches, continued, missed Housner's ratio by
5x more): such a step still fails, for the backup solver and the NLP. The continuation runs
only where both phases failed, so a step that settled before is unchanged.
"""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .layout import adding, switch, symbols_like

#: Differences of rounds that the continuation's Anderson step mixes (its memory).
MEMORY = 2
#: The continuation runs only where the substitution's last round cut its residual (the change
#: of the friction bounds mu_j lambda_j) to at most this fraction of the round before's: where it
#: crawls (slope near 1, Painleve), a small change says little about the distance to the fixed
#: point, and more rounds would settle short of it.
CONTRACTING = 0.5
#: A difference of residuals within this fraction of its own size of those before it is
#: dropped from the least-squares fit (it adds nothing but round-off).
_DEPENDENT = 1e-8


def secant(x: Any, f: Any, before: tuple[Any, Any] | None) -> Any:
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


def _least_squares(columns: list, b: Any) -> list:
    """gamma minimising |sum_i gamma_i columns_i - b| (a few columns: modified Gram-Schmidt,
    arithmetic only, so that the chunk's C code has it); a column that depends on those before
    it gets gamma_i = 0."""
    q: list = []
    r: dict = {}
    for i, a in enumerate(columns):
        size = ca.norm_2(a)
        for j, qj in enumerate(q):
            r[j, i] = ca.dot(qj, a)
            a = a - r[j, i] * qj
        norm = ca.norm_2(a)
        keep = norm > _DEPENDENT * size + 1e-300
        r[i, i] = ca.if_else(keep, norm, 1)
        q.append(ca.if_else(keep, a / r[i, i], ca.MX.zeros(a.shape)))
    gamma: list = [0] * len(columns)
    for i in reversed(range(len(columns))):
        rest = sum((r[i, j] * gamma[j] for j in range(i + 1, len(columns))), ca.MX(0))
        gamma[i] = (ca.dot(q[i], b) - rest) / r[i, i]
    return gamma


def _anderson(xs: list, fs: list) -> Any:
    """The next normal forces from rounds x_i -> f_i (newest last): Anderson's type-II step
    x + r - sum_i gamma_i (dx_i + dr_i), r = f - x, gamma fitting the residual differences dr_i
    to r over the last MEMORY differences (a secant method in all contacts at once); >= 0."""
    res = [f - x for x, f in zip(xs, fs, strict=True)]
    n = min(MEMORY, len(xs) - 1)
    dx = [xs[-i] - xs[-i - 1] for i in range(1, n + 1)]
    dr = [res[-i] - res[-i - 1] for i in range(1, n + 1)]
    gamma = _least_squares(dr, res[-1])
    step = xs[-1] + res[-1] - sum((g * (a + b) for g, a, b in zip(gamma, dx, dr, strict=True)), 0)
    return ca.fmax(step, 0)


def _rounds(
    at: ca.Function, args: dict, x: Any, out: dict, rounds: int, tag: str
) -> tuple[dict, list, list]:
    """Rounds after the first; substitution, or with `tag` (the restart) secant steps. Also
    the rounds' normal forces in and out, oldest first (the continuation's history)."""
    before = None
    xs, fs = [x], [out["lam"]]
    for k in range(rounds - 1):
        nxt = secant(x, out["lam"], before if tag else None)
        syms, n = symbols_like(out), ca.MX.sym("normal", x.shape)
        again = at.call({**args, "normal": n, "fdirs": syms["fdirs_next"]})
        step = switch(f"friction_round_{tag}{k}", {**args, "normal": n}, syms, adding(again, syms))
        before, x = (x, out["lam"]), nxt
        out = step(1 - out["settled"], {**args, "normal": nxt}, out)
        xs.append(x)
        fs.append(out["lam"])
    return out, xs, fs


def _continued(at: ca.Function, args: dict, history: dict, rounds: int) -> dict:
    """Up to `rounds` Anderson rounds continuing the substitution (module docstring), as the
    outputs of a branch: its inputs `args` and symbols of the substitution's last rounds
    (`history`: x_i -> f_i, oldest first, and the polygons its last round left)."""
    n = (len(history) - 1) // 2
    xs, fs = [history[f"x{i}"] for i in range(n)], [history[f"f{i}"] for i in range(n)]
    cuts = history["fdirs"]
    out: dict = {}
    for k in range(rounds):
        nxt = _anderson(xs, fs)
        if not out:  # the first round always runs: the branch is taken where none settled
            out = at.call({**args, "normal": nxt, "fdirs": cuts})
        else:
            syms, normal = symbols_like(out), ca.MX.sym("normal", nxt.shape)
            again = at.call({**args, "normal": normal, "fdirs": syms["fdirs_next"]})
            step = switch(
                f"friction_round_a{k}", {**args, "normal": normal}, syms, adding(again, syms)
            )
            out = step(1 - out["settled"], {**args, "normal": nxt}, out)
        xs, fs = [*xs[1:], nxt], [*fs[1:], out["lam"]]
    return out


def fixed_point(at: ca.Function, args: dict, normal: Any, rounds: int, model: Any) -> dict:
    """Rounds of `at` (step/qp_graph.py: args, normal, fdirs -> ATTEMPT_OUT, fdirs_next), each
    with the normal forces and the friction polygons' cuts of the round before, until one is
    `settled` (Coulomb's law holds at its own normal forces, to the EoM tolerance), then as
    many from above if none did, then half as many continuing the first ones where they
    contract (module docstring: it settles in one or two; each round is C code in the chunk);
    ok requires it."""
    cuts = ca.DM.zeros(at.sparsity_in("fdirs").shape)
    first = at.call({**args, "normal": normal, "fdirs": cuts})
    plain, xs, fs = _rounds(at, args, normal, first, rounds, "")
    v, h = args["v"], args["h"]
    mu = np.asarray(model.mu_static, dtype=float)
    stop = float(np.sum(model.masses)) * ca.mmax(ca.fabs(v)) / h
    big = stop * ca.DM(np.where(mu > 0, 1 / np.maximum(mu, 1e-12), 0.0))
    syms = symbols_like(plain)
    top = ca.fmax(big, normal)
    above, _, _ = _rounds(
        at, args, top, at.call({**args, "normal": top, "fdirs": cuts}), rounds, "s"
    )
    restart = switch("stick_restart", {**args, "normal": normal}, syms, adding(above, syms))
    out = restart(1 - plain["settled"], {**args, "normal": normal}, plain)
    # the continuation from the substitution's last rounds, which its branch takes as inputs
    tail = {f"x{i}": x for i, x in enumerate(xs[-MEMORY - 1 :])}
    tail.update({f"f{i}": f for i, f in enumerate(fs[-MEMORY - 1 :])}, fdirs=plain["fdirs_next"])
    history = {k: ca.MX.sym(f"history_{k}", a.sparsity()) for k, a in tail.items()}
    syms = symbols_like(out)
    more = _continued(at, args, history, max(1, rounds // 2))
    go_on = switch("friction_continued", {**args, **history}, syms, adding(more, syms))
    weights = ca.DM(mu)
    before, last = (weights * (f - x) for x, f in zip(xs[-2:], fs[-2:], strict=True))
    contracting = ca.norm_2(last) <= CONTRACTING * ca.norm_2(before)
    out = go_on((1 - out["settled"]) * contracting, {**args, **tail}, out)
    out["ok"] = out["ok"] * out["settled"]
    return out
