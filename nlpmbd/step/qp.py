"""The step at a given h as a convex QP in the velocities (`solver="qp"`, and the predictor).

The QP, its rows, Newton's impact law and Coulomb friction are built in step/qp_graph.py, from
the StepKernel's rows, second-order term, update and acceptance test, as CasADi expressions, so
that a whole step (`whole_step`: attempt, guard, projection) is one Function and a chunk of steps
(run/chunks.py) runs with no Python in the inner loop. QPStep is its StepSolver: one step in
Python (the step-size controller, steps a chunk could not take), with qpOASES as a backup.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import casadi as ca
import numpy as np

from .config import DEFAULT_FRICTION, Friction, QPPlugin
from .kernel import StepKernel
from .layout import COUNTS, named_function, switch, symbols_like
from .numeric import Numeric
from .qp_graph import attempt_function
from .qp_symbols import PREDICTOR, predictor_size
from .quiet import quiet_for, silent_stdout
from .solver import FAILED, SOLVED, StepInputs, StepSolution, StepSolver


def normal_history(warm: StepSolution | None, nc: int) -> np.ndarray:
    """(3, nc): the normal forces of the last three steps, newest first, from a warm start
    (`lam`, and `lam1`, `lam2` where the QP path wrote them; a missing one repeats the one
    after it; zeros without any)."""
    if warm is None or warm.lam.size != nc:
        return np.zeros((3, nc))
    extra = warm.warm or {}
    lam = np.asarray(warm.lam, dtype=float)
    lam1 = np.asarray(extra.get("lam1", lam), dtype=float)
    lam2 = np.asarray(extra.get("lam2", lam1), dtype=float)
    return np.stack([lam, lam1, lam2])


def predictor(warm: StepSolution | None, nv: int) -> dict[str, np.ndarray]:
    """lag, accel and jerk (step/qp_symbols.py, PREDICTOR) where the QP path's chunks wrote
    them into `warm`, else zeros (the cut rounds then predict the step's velocity by its
    start's)."""
    extra = (warm.warm or {}) if warm is not None else {}
    out = {}
    for name in PREDICTOR:
        a = np.asarray(extra.get(name, np.zeros(nv)), dtype=float)
        out[name] = a if a.size == nv else np.zeros(nv)
    return out


def extrapolate(lam: Any, lam1: Any, lam2: Any) -> Any:
    """The friction fixed point's start: the normal forces of the last three steps extrapolated
    (quadratically, to the step's end; the caller clips them at 0). In sustained contact the
    first QP then lands within the EoM tolerance: 1.03 QPs per step on slider_crank, 1.27 on
    crank_rocker, against 1.4 and 2.9 from the last step's forces."""
    return 3 * lam - 3 * lam1 + lam2


#: The attempt's outputs a StepSolution takes as q, v, lam, lam_eq.
_STATE_FORCES = ("q_new", "v_new", "lam", "lam_eq")

#: The attempt's counts of loops that made their last round (step/layout.py COUNTS), in the
#: order of whole_step's `capped` and of the run's counters steps_capped_* (io/schema.py).
CAPS = ("capped_friction", "capped_cuts", "capped_releases")

#: The backup attempt's friction rounds, in units of the first attempt's (QPStep._backup_attempt).
BACKUP_ROUNDS = 5


class QPStep(StepSolver):
    """One QP at h = h_hi; qrqp (or the chosen plugin), then qpOASES if that fails its checks
    (qrqp can stop at a wrong active set when two contacts close at once)."""

    def __init__(
        self,
        kernel: StepKernel,
        plugin: QPPlugin = QPPlugin.QRQP,
        backup: QPPlugin | None = QPPlugin.QPOASES,
        friction: Friction = DEFAULT_FRICTION,
        rounds: int = 8,
        whole: bool = True,
    ) -> None:
        """`rounds`: solves of the friction fixed point within one step (step/qp_graph.py);
        `whole` False: only the first stage of a two-stage scheme (step/verlet.py)."""
        super().__init__(kernel)
        self.plugin, self.backup = plugin, backup if backup != plugin else None
        self.backup_solves = 0
        #: QP solves made cold; per cap of CAPS, the attempts that reached it (Python's)
        self.cold_solves, self.capped = 0, dict.fromkeys(CAPS, 0)
        self._settings = (friction, rounds, whole)
        self.attempt = attempt_function(kernel, plugin, *self._settings)
        with silent_stdout():  # its memory: qpOASES prints a licence banner for each new one
            self._attempt = Numeric(self.attempt)  # NumPy in and out, no DM (the predictor's)

    def counters(self) -> dict[str, int]:
        out = {"qp_backup_solves": self.backup_solves, "qp_cold_solves": self.cold_solves}
        return out | {f"steps_{k}": n for k, n in self.capped.items()}

    @functools.cached_property
    def _backup_attempt(self) -> ca.Function:
        """The backup plugin with BACKUP_ROUNDS times the friction rounds: a step whose normal
        forces swing (a stiff flexible slider wedged on two corners needs ~20 rounds) is
        taken here rather than by the NLP, whose fixed point stalls on it too."""
        friction, rounds, whole = self._settings
        with silent_stdout():  # qpOASES prints a licence banner whatever printLevel says
            return attempt_function(
                self.kernel, self.backup or self.plugin, friction, BACKUP_ROUNDS * rounds, whole
            )

    # ---- a whole step, for the chunks --------------------------------------------------
    @functools.cached_property
    def whole_step(self) -> ca.Function:
        """(t, q, v, h, normal) -> the step: the attempt with T2; the guard (solved again
        without T2 if it still penetrates by more than curvature_guard of a clearance or failed
        its checks; the step that passes and penetrates less is kept); then the gap projection.
        Outputs the raw q (before the projection) too, and flags qp_ok and projection_ok: the
        run loop takes a step that fails either again in Python (qpOASES, then the NLP; or the
        projection's IPOPT fallback); `guarded`: 1 when the guard solved the step again.
        `normal`: the previous step's normal forces (friction)."""
        k, m = self.kernel, self.kernel.model
        t, h, normal = ca.MX.sym("t"), ca.MX.sym("h"), ca.MX.sym("normal", m.n_gap)
        q, v, applied = ca.MX.sym("q", m.n_q), ca.MX.sym("v", m.n_v), ca.MX.sym("applied", m.n_v)
        step = {"t": t, "q": q, "v": v, "h": h, "applied": applied, "normal": normal}
        step.update({n: ca.MX.sym(n, predictor_size(m)) for n in PREDICTOR})
        out = self.attempt.call({**step, "use_curvature": k.use})
        guarded = ca.MX(0)
        if k.uses_curvature:
            out, guarded = self._guard(step, out)
        q_raw = out["q_new"]
        gap_raw = ca.mmax(ca.vertcat(-ca.inf, m.Phi(q_raw))) if m.n_gap else ca.MX(0)
        projected = {"q_new": q_raw, "ok": ca.MX(1), "n_qp": ca.MX(0)}
        if k.projection is not None:
            projected = k.projection.gauss_newton.call({"q": q_raw, "t": t + h})
        outputs = {"q_new": projected["q_new"]}
        outputs.update({n: out[n] for n in ("v_new", "lam", "lam_eq", "eom", "comp", "drift")})
        outputs.update({f"{n}_next": out[f"{n}_next"] for n in PREDICTOR})
        # QP solves: the attempt's (friction rounds, cuts, releases, both stages), the guard's
        # and the projection's Gauss-Newton QPs
        outputs.update(q_raw=q_raw, gap_raw=gap_raw, n_qp=out["solves"] + projected["n_qp"])
        # of which cold: the attempt's without a guessed active set or after a missed one, and
        # all of the projection's (DAQP from scratch)
        outputs["n_cold"] = out["cold"] + projected["n_qp"]
        outputs["capped"] = ca.vertcat(*(out[c] > 0 for c in CAPS))
        outputs.update(qp_ok=out["ok"], projection_ok=projected["ok"], friction=out["friction"])
        outputs["guarded"] = guarded
        ins = {n: step[n] for n in ("t", "q", "v", "h", "normal", "applied", *PREDICTOR)}
        return named_function("qp_step", ins, outputs)

    def _guard(self, step: dict, first: dict) -> tuple[dict, ca.MX]:
        """The curvature guard as a switch: CasADi's Function.if_else evaluates only the branch
        taken, so the second QP runs only when the guard fires (an MX if_else with
        short-circuit costs ~50x more)."""
        pen = self.kernel.penetration
        outs = symbols_like(first)
        plain = self.attempt.call({**step, "use_curvature": 0.0})
        # the re-solve is kept if it passes its checks and the first failed them or penetrates
        # more (the NLP path's guard and the last rung of its retry ladder)
        less = pen(plain["q_new"]) < pen(outs["q_new"])
        better = (plain["ok"] > 0) * ca.logic_or(outs["ok"] == 0, less)
        chosen = {k: ca.if_else(better, plain[k], a) for k, a in outs.items()}
        chosen.update({c: outs[c] + plain[c] for c in COUNTS if c in outs})
        guard = switch("curvature_guard", step, outs, chosen)  # a worse re-solve changes nothing
        redo = ca.logic_or(pen(first["q_new"]) > self.kernel.curvature_guard, first["ok"] == 0)
        return guard(redo, step, first), redo

    # ---- the StepSolver interface (Python loop: step-size controller, failed chunk steps) ----
    def solve(self, inputs: StepInputs, warm: StepSolution | None = None) -> StepSolution:
        """One QP at h = h_hi (the QP has no h to choose; h_lo is not used); the friction fixed
        point starts from the normal forces of `warm` extrapolated (normal_history)."""
        tic = time.perf_counter()
        nc = self.kernel.model.n_gap
        history = normal_history(warm, nc)
        normal = np.maximum(extrapolate(*history), 0.0)
        use = self.kernel.use if inputs.curvature else 0.0
        applied = inputs.applied if inputs.applied is not None else np.zeros(inputs.v.size)
        args = {"t": inputs.t, "q": inputs.q, "v": inputs.v, "h": inputs.h_hi}
        args.update(
            use_curvature=use,
            applied=applied,
            normal=normal,
            **predictor(warm, predictor_size(self.kernel.model)),
        )
        with quiet_for(self.plugin):
            out, ok = self._try(self._attempt.named, args)
        solves = self._count(out)
        if not ok and self.backup is not None:
            with silent_stdout():
                out, ok = self._try(self._backup_attempt, args)
            self.backup_solves += 1
            solves += self._count(out)
        q, v, lam, lam_eq = (np.asarray(out[k], dtype=float).ravel() for k in _STATE_FORCES)
        return StepSolution(
            h=float(inputs.h_hi),
            q=q,
            v=v,
            lam=lam,
            lam_eq=lam_eq,
            eom_residual=float(out["eom"]),
            comp_residual=float(out["comp"]),
            norm_drift=float(out["drift"]),
            status=SOLVED if ok else FAILED,
            iterations=solves,
            solve_time=time.perf_counter() - tic,
            return_status="QP solved" if ok else "QP failed",
            warm={"lam": lam, "lam1": history[0], "lam2": history[1], **self._predictor(out)},
            friction=np.asarray(out["friction"], dtype=float).reshape(3, nc),
        )

    def _predictor(self, out: dict) -> dict[str, np.ndarray]:
        """The next step's PREDICTOR from the attempt's outputs (as the chunks carry them)."""
        return {n: np.asarray(out[f"{n}_next"], dtype=float).ravel() for n in PREDICTOR}

    def _count(self, out: dict) -> int:
        """The attempt's QP solves; its cold solves and caps reached counted."""
        self.cold_solves += int(float(out["cold"]))
        for c in CAPS:
            self.capped[c] += float(out[c]) > 0
        return int(float(out["solves"]))

    def _try(self, attempt: Callable[..., Any], args: dict) -> tuple[dict, bool]:
        try:
            out = attempt(**args)
            return out, bool(float(out["ok"]))
        except RuntimeError:  # CasADi rejects the QP outright (e.g. NaN bounds)
            m, nan = self.kernel.model, np.nan
            failed = {"q_new": args["q"] * nan, "v_new": args["v"] * nan}
            failed.update(lam=np.full(m.n_gap, nan), lam_eq=np.full(m.n_eq, nan))
            failed.update(eom=nan, comp=nan, drift=nan, ok=0.0, settled=0.0, solves=1.0, cold=1.0)
            failed.update(dict.fromkeys(CAPS, 0.0))
            failed["friction"] = np.full((3, m.n_gap), nan)
            failed.update({f"{n}_next": np.zeros(predictor_size(m)) for n in PREDICTOR})
            return failed, False
