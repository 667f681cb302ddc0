"""The QP predictor: a StepSolver composed of a QPStep and an NLPStep.

It solves the step's QP at h = h_hi first and keeps it when it is a KKT point of the NLP: at a
fixed h the QP is the NLP; otherwise the QP point solves the NLP when the multiplier of the
bound s <= h_hi / h_max is nonnegative, lam_x_s = -dL/ds >= 0 (the objective would still fall
with a larger h). The point must also pass the kernel's acceptance test. Otherwise IPOPT runs,
warm-started from the QP point (primal and dual). Only for the implicit form without friction,
restitution or compliant contacts (the QP has none of them).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import casadi as ca
import numpy as np

from ..model.rotation import g_matrix
from .layout import named_function
from .nlp import NLPStep, Start
from .numeric import Numeric
from .qp import QPStep
from .quiet import quiet_for
from .solver import SOLVED, StepInputs, StepSolution, StepSolver


@dataclass(frozen=True)
class _Guess:
    x: np.ndarray
    lam_x: np.ndarray
    lam_g: np.ndarray
    post: dict  # the NLP's post outputs at x (NLPGraph.post)
    solved: bool


def nlp_point(nlp: NLPStep, qm: Any, h: Any, v: Any, lam: Any, lam_eq: Any) -> tuple[Any, Any]:
    """The QP's step at h (velocities v, forces lam, lam_eq) as a point (x, lam_g) of the NLP
    of the implicit form: s = h / h_max, q_dot from v and the linearised norm rows, the rows'
    multipliers from the forces."""
    g = nlp.graph
    blocks = []
    for k in range(g.n_bodies):
        e = qm[7 * k + 3 : 7 * k + 7]
        ee = ca.dot(e, e)
        # v = 2 G p_dot and the linearised norm row [eq. 23]: p^T p - 1 + 2 h p^T p_dot = 0
        pd = g_matrix(e).T @ v[6 * k + 3 : 6 * k + 6] / (2 * ee) + e * (1 - ee) / (2 * h * ee)
        blocks += [v[6 * k : 6 * k + 3], pd]
    x = g.layout_x.symbolic_stack({"s": h / nlp.h_max, "qd": ca.vertcat(*blocks)})
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


def _dLds(nlp: NLPStep, P: Any, x: Any, lam_g: Any) -> Any:
    """dL/ds, the Lagrangian's derivative in the scaled step s = h / h_max."""
    g = nlp.graph
    return g.lagrangian_gradient.call({"P": P, "x": x, "lam_g": lam_g})["grad"][g.layout_x["s"]]


def takes_h_max(nlp: NLPStep, t: Any, q: Any, v: Any, use: Any, h: Any, o: dict) -> Any:
    """1 when the QP's step at h = h_max (outputs `o`: v_new, lam, lam_eq) solves the NLP whose
    h ranges below it: the multiplier of the bound s <= 1 is nonnegative, dL/ds <= 0 (the
    objective would still fall with a larger h). The compiled chunks' form of Predictor's test
    (run/chunk_graph.py)."""
    g = nlp.graph
    P = g.layout_p.symbolic_stack({"t": t, "q": q, "v": v, "use_curvature": use})
    x, lam_g = nlp_point(nlp, q, h, o["v_new"], o["lam"], o["lam_eq"])
    return _dLds(nlp, P, x, lam_g) <= 0


class Predictor(StepSolver):
    variable_h = True

    def __init__(self, qp: QPStep, nlp: NLPStep) -> None:
        super().__init__(nlp.kernel)
        self.qp, self.nlp = qp, nlp
        self.predicted = 0
        self._function = Numeric(self._predictor_function())  # NumPy in and out, no DM

    def counters(self) -> dict[str, int]:
        return {"predicted_steps": self.predicted}

    def _predictor_function(self) -> ca.Function:
        """(P, h) -> the QP step at h as a point (x, lam_g) of the NLP, with dL/ds, the QP's own
        acceptance flag, the NLP's constraint violation and its post outputs: one call."""
        g = self.nlp.graph
        N = g.n_bodies
        P, h = ca.MX.sym("P", g.layout_p.size), ca.MX.sym("h")
        p = g.layout_p.split(P)
        normal = ca.MX.zeros(self.kernel.model.n_gap)  # the predictor runs without friction
        applied = ca.MX.zeros(6 * N)  # nor with compliant contacts (run/solvers.py)
        inputs = {"t": p["t"], "q": p["q"], "v": p["v"], "h": h}
        inputs.update(use_curvature=p["use_curvature"], applied=applied, normal=normal)
        o = self.qp.attempt.call(inputs)
        x, lam_g = nlp_point(self.nlp, p["q"], h, o["v_new"], o["lam"], o["lam_eq"])
        rows = g.rows.call({"P": P, "x": x})["g"]
        viol = ca.mmax(ca.vertcat(0, rows - g.ubg, g.lbg - rows)) / g.row_scale
        post = g.post.call({"P": P, "x": x, **g.multipliers(lam_g)})
        outs = {"x": x, "lam_g": lam_g, "dLds": _dLds(self.nlp, P, x, lam_g), "ok": o["ok"]}
        outs["viol"] = viol
        outs.update({f"post_{k}": a for k, a in post.items()})
        return named_function("predictor", {"P": P, "h": h}, outs)

    def _predict(self, P: np.ndarray, h_lo: float, h_hi: float) -> _Guess | None:
        """The QP at h = h_hi as a point of the NLP; None when the QP failed."""
        with quiet_for(self.qp.plugin):
            o = self._function.named(P=P, h=h_hi)
        if not float(o["ok"]):
            return None
        x, lam_g, dLds = np.ravel(o["x"]), np.ravel(o["lam_g"]), float(o["dLds"])
        lam_x = np.zeros(self.nlp.graph.layout_x.size)
        lam_x[self.nlp.graph.layout_x["s"]] = -dLds
        post = {k: o[f"post_{k}"] for k in self.nlp.graph.post.name_out()}
        solved = (h_lo == h_hi or dLds <= 0.0) and self.nlp.accepts(float(o["viol"]), post)
        return _Guess(x, lam_x, lam_g, post, solved)

    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        tic = time.perf_counter()
        nlp = self.nlp
        P = nlp.parameters(inputs)
        guess = self._predict(P, inputs.h_lo, inputs.h_hi)
        if guess is not None and guess.solved:
            self.predicted += 1
            elapsed = time.perf_counter() - tic
            return nlp.solution(
                P, guess.x, guess.lam_x, guess.lam_g, SOLVED, 0, "QP predictor", elapsed, guess.post
            )
        if guess is not None:  # IPOPT from the QP point, primal and dual
            start: Start | None = Start(guess.x, guess.lam_x, guess.lam_g)
        elif warm is not None and warm.warm is not None and "x" in warm.warm:
            start = Start(warm.warm["x"], warm.warm["lam_x"], warm.warm["lam_g"])
        else:
            start = None
        return nlp.run(P, inputs, start, nlp.row_bounds(inputs), tic)
