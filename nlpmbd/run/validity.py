"""Is a run's result believable? Checks a user of a multibody code expects, with named thresholds.

Two kinds (run/limits.py refuses runs that could not finish before they start):

- During the run (`RunChecks.diverged`): a body flying off to DIVERGENCE_FACTOR times the
  system's size stops the run (SolverFailure with the partial result).
- After the run, complete or partial (`RunChecks.warnings`): one line per breach, stored in
  meta["warnings"].

The length scale L of a system (`length_scale`) is the larger of the largest distance of a body's
centre of mass from the global origin at t = 0 (where ground joints usually sit) and the largest
body half-diagonal sqrt(1.5 tr(J) / m) (exact for a box: the half-diagonal of the box with that
inertia). It scales the constraint drift and the divergence test.
"""

from __future__ import annotations

import casadi as ca
import numpy as np

from ..io.result import SimulationResult
from ..io.schema import ARRAYS
from ..model.contact import ForceLaw
from ..model.symbolic import SymbolicModel
from ..model.system import System
from ..step.config import Integrator
from ..step.rows import nlp_omits
from .option_groups import StepControl
from .options import SimulationOptions

#: A body's centre of mass farther than this many times L from the origin means the run diverged.
DIVERGENCE_FACTOR = 1e6
#: Warn when the ideal-constraint violation |Phi_eq(q, t)| (eq_residual) exceeds this fraction of
#: L. The step enforces the linearised constraints, so the true ones drift by O(h^2 w^2 l) per
#: step and are corrected the next step; a drift of 0.1% of the system's size means h does not
#: resolve the motion. Phi_eq mixes metres and dimensionless direction conditions; both are held
#: to this level (a direction error of 1e-3 rad moves a point at distance L by 1e-3 L).
DRIFT_TOL = 1e-3
#: Warn when max |p^T p - 1| of an update (before renormalisation) exceeds this: it equals
#: (h |w| / 2)^2, so 1e-3 means rotations of more than 0.063 rad (3.6 degrees) per step.
NORM_TOL = 1e-3
#: Warn when the true gap after a step, before the penetration correction (gap_uncorrected),
#: exceeds PENETRATION_TOL clearances in more than PENETRATION_STEPS of the steps that start near
#: contact: within one step the bodies moved through more than the whole play, over and over, so
#: h does not resolve the motion across the clearance (sliding at speed V penetrates by
#: ~V^2 h^2 / (2c)) and the correction moves positions by more than the clearance each time.
#: 0.1 of a clearance (the curvature guard's re-solve level) would flag the paper's own default
#: runs (`revolute`: 87 of 1004 steps above it in 2 s); isolated overshoots are impacts that the
#: correction absorbs (`revolute`, 5 s: 3 of 2528 steps above one clearance, up to 2.1).
PENETRATION_TOL = 1.0
PENETRATION_STEPS = 0.01
#: A step starts near contact when some contact is open by less than this fraction of its
#: clearance (the curvature term's own "near contact", step_problem.py). A step from the middle
#: of the play is the landing of an impact; from the centred start a radial gap's linearisation
#: has no gradient and cannot see the wall at all (`cylindrical` lands 19 clearances deep in its
#: first step at the paper's h = 1e-2 s, then stays in contact with no overshoot).
NEAR_CONTACT = 0.5
#: Warn when the total energy rises above its initial value by more than this fraction of the
#: energy scale in a system on which nothing does work (no applied loads or springs, no driving
#: constraints): the exact motion keeps its energy or loses it (inelastic contacts, friction),
#: so a gain beyond the scheme's first-order drift (`free_body`: 2e-3 of its energy in 10 s at
#: h = 1e-3 s) is a numerical artefact. The energy scale is the largest of the kinetic energy,
#: the range of the potential energy over the run and m_total |g| L.
ENERGY_GAIN_TOL = 1e-2
#: Warn when a compliant contact's step h exceeds this times sqrt(m_eff / k_eff), about 31 steps
#: per period of the contact oscillation (the explicit force is stable up to 2 sqrt(m / k)).
#: k_eff = n K delta_max^(n - 1) at the largest penetration of the run, m_eff the mass of the
#: lighter moving body of the joint (contact.py).
COMPLIANT_RESOLUTION = 0.2
#: Warn when the run's error estimate (meta `error_estimate`: the sum of its steps' local
#: position error estimates over ControlLaw.CALIBRATION, about its global position error; run/
#: controller.py) exceeds UNRESOLVED times error_tol: the result is not converged in h. On the
#: ideal pendulum the estimate was 0.7-1.0 of the true error with integrator verlet and 4x to
#: 8x it with euler (docs/guide/defaults.md, "How good is an answer").
UNRESOLVED = 10.0
#: Warn when more than this fraction of a second-order run's steps were taken by the first-order
#: scheme, the retry ladder's last rung (step/retry.py). Their accuracy needs no check of its own:
#: each adds its first-order local error estimate to error_estimate (UNRESOLVED judges it). The
#: warning says that the rung is no longer the rare rescue it is meant to be but a share of the
#: run taken at another order (a convergence study in h would be misled), as PENETRATION_STEPS
#: tells isolated overshoots from a systematic one (`four_bar_clearance` at its defaults: 1 of
#: 12258 steps to 0.92 s).
FIRST_ORDER_STEPS = 0.01


def unconverged(result: SimulationResult) -> str | None:
    """The warning of a run whose error estimate exceeds UNRESOLVED error_tol, naming the
    option that fixes it; None when it does not."""
    options = SimulationOptions.from_dict(result.meta.get("options", {}))
    estimate, tol = float(result.meta.get("error_estimate", 0.0)), options.time.error_tol
    if estimate <= UNRESOLVED * tol:
        return None
    t = options.time
    # what auto resolved to; "scheme" in results written before it was called integrator
    resolved = result.meta.get("integrator", result.meta.get("scheme"))
    scheme = Integrator(resolved or options.scheme.integrator.value)
    if scheme is Integrator.EULER and options.scheme.integrator is not Integrator.AUTO:
        fix = "--integrator verlet (second order, error-controlled)"
    elif options.fixed_step:
        control = "" if t.step_control is StepControl.CONTROLLER else "--step-control controller "
        fix = (
            f"a range of h for the error controller ({control}--h-min {t.h_max / 100:.3g} "
            f"--h-max {t.h_max:.3g}) or a smaller --h"
        )
    elif t.step_control is not StepControl.CONTROLLER:
        fix = "--step-control controller (error control)"
    else:
        at_min = float(np.mean(result.h <= t.h_min * (1 + 1e-9)))
        fix = f"a lower --h-min ({at_min:.0%} of the steps at h_min = {t.h_min:.3g} s)"
    return (
        f"estimated position error {estimate:.3g} m is above {UNRESOLVED:g} error_tol = "
        f"{UNRESOLVED * tol:.3g} m: the result is not converged in h; use {fix}"
    )


def length_scale(system: System) -> float:
    """L of the module docstring, m (> 0: every body has a positive inertia)."""
    sizes = [0.0]
    for body in system.bodies:
        sizes.append(float(np.linalg.norm(body.position)))
        sizes.append(float(np.sqrt(1.5 * np.trace(body.inertia) / body.mass)))
    for flexible in system.flexible:
        sizes.append(float(np.max(np.linalg.norm(flexible.reference, axis=1))))
    return max(sizes)


def does_no_work(system: System, model: SymbolicModel) -> bool:
    """True when nothing but gravity (in the potential energy) and the contacts and joints does
    work: no applied loads or springs (whose energy the result does not hold) and no driving
    constraints (dPhi_eq/dt structurally zero)."""
    if system.loads or system.point_loads or system.flexible:  # damping does work too
        return False
    q, t = ca.SX.sym("q", model.n_q), ca.SX.sym("t")
    rate = model.Phi_eq_t(q, t)
    return rate.nnz() == 0 or bool(rate.is_zero())


class RunChecks:
    """The checks of one simulation, prepared once (length scale, work, compliant laws)."""

    def __init__(self, system: System, model: SymbolicModel) -> None:
        self.scale = length_scale(system)
        self.names = [b.name for b in system.bodies]
        self.names += [f"{f.name}[{k}]" for f in system.flexible for k in range(f.n_nodes)]
        self.n_rigid = len(system.bodies)
        self.no_work = does_no_work(system, model)
        self.weight = float(np.sum(model.masses)) * float(np.linalg.norm(model.gravity))
        #: what the NLP path, the QP path's fallback, leaves out of the model (rows it has not)
        self.qp_only = nlp_omits(model)
        self.contact_scales = np.asarray(system.gap_scales, dtype=float)
        self.force_laws = []  # (joint name, law, first column, columns, lighter moving mass)
        col = 0
        for joint in system.compliant_joints:
            masses = [b.mass for b in joint.bodies if b in system.bodies]
            self.force_laws.append((joint.name, joint.contact, col, joint.n_gap, min(masses)))
            col += joint.n_gap

    def diverged(self, t: np.ndarray, q: np.ndarray) -> str | None:
        """Why the run diverged at rows (t, q) of a step or a chunk, or None."""
        found = self.diverged_at(t, q)
        return found[1] if found else None

    def diverged_at(self, t: np.ndarray, q: np.ndarray) -> tuple[int, str] | None:
        """(the first row of (t, q) that diverged, why), or None."""
        limit = DIVERGENCE_FACTOR * self.scale
        # max |q| <= limit without the array |q| (fresh memory each chunk); False for NaN
        if np.max(q, initial=0.0) <= limit and np.min(q, initial=0.0) >= -limit:
            return None  # else look closer
        q = np.atleast_2d(q)
        with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN are what we look for
            n = 7 * self.n_rigid
            rigid = np.linalg.norm(q[:, :n].reshape(q.shape[0], -1, 7)[:, :, :3], axis=2)
            nodes = np.linalg.norm(q[:, n:].reshape(q.shape[0], -1, 2), axis=2)
            r = np.concatenate([rigid, nodes], axis=1)
        bad = np.argwhere(~(r <= limit))
        if bad.size == 0:
            return None
        row, body = bad[0]
        return int(row), (
            f"diverged: body {self.names[body]!r} is at |r| = {r[row, body]:.3g} m at "
            f"t = {np.atleast_1d(t)[row]:.6g} s, more than {DIVERGENCE_FACTOR:.0e} times the "
            f"system's size L = {self.scale:.3g} m; use a smaller h"
        )

    def warnings(self, result: SimulationResult) -> list[str]:
        """One line per validity check the run breaks (empty when all is well)."""
        out = [self._non_finite(result)]
        # a partial result of a diverged run holds huge numbers: overflow is no error here
        with np.errstate(over="ignore", invalid="ignore"):
            if result.n_steps:
                out += [self._drift(result), self._norm(result), self._penetration(result)]
                out += [self._energy_gain(result), *self._compliant(result)]
                out += [unconverged(result), self._first_order(result), self._fallback(result)]
        return [w for w in out if w]

    def _non_finite(self, r: SimulationResult) -> str | None:
        bad = [name for name in ARRAYS if not np.all(np.isfinite(getattr(r, name)))]
        return f"non-finite values in {', '.join(bad)}" if bad else None

    def _first_order(self, r: SimulationResult) -> str | None:
        k = int(r.meta.get("first_order_steps", 0))
        if k <= FIRST_ORDER_STEPS * r.n_steps:
            return None
        return (
            f"{k} of {r.n_steps} steps ({k / r.n_steps:.1%}, limit {FIRST_ORDER_STEPS:.0%}) were "
            "taken by the first-order scheme after the second-order step failed them: the run "
            "is first order there; use --integrator euler, or a smaller --h-max"
        )

    def _fallback(self, r: SimulationResult) -> str | None:
        k = int(r.meta.get("qp_fallback_steps", 0))
        if not (k and self.qp_only):
            return None
        return (
            f"{k} of {r.n_steps} steps fell back to the NLP path, which has {self.qp_only}: "
            "those steps are approximate there; use a smaller --h-max"
        )

    def _drift(self, r: SimulationResult) -> str | None:
        k = int(np.argmax(r.eq_residual))
        worst = float(r.eq_residual[k])
        if worst <= DRIFT_TOL * self.scale:
            return None
        return (
            f"ideal constraints violated by |Phi_eq| = {worst:.3g} at t = {r.t[k]:.6g} s, more "
            f"than {DRIFT_TOL:g} of the system's size L = {self.scale:.3g} m; use a smaller h"
        )

    def _norm(self, r: SimulationResult) -> str | None:
        k = int(np.argmax(r.norm_residual))
        worst = float(r.norm_residual[k])
        if worst <= NORM_TOL:
            return None
        return (
            f"|p'p - 1| = {worst:.3g} before renormalisation at t = {r.t[k + 1]:.6g} s "
            f"(limit {NORM_TOL:g}): rotations of {2 * np.sqrt(worst):.3g} rad per step are not "
            "resolved; use a smaller h"
        )

    def _penetration(self, r: SimulationResult) -> str | None:
        # gap_uncorrected is the largest gap over all contacts: it is compared with the
        # smallest clearance, and only when every contact has one (plane contacts have none)
        c = self.contact_scales
        if c.size == 0 or np.any(c <= 0):
            return None
        near = np.max(r.gap[:-1] / c, axis=1) >= -NEAR_CONTACT  # at the start of each step
        depth = np.where(near, r.gap_uncorrected, -np.inf) / float(c.min())
        over = int(np.sum(depth > PENETRATION_TOL))
        if over <= PENETRATION_STEPS * np.sum(near):
            return None
        k = int(np.argmax(depth))
        return (
            f"penetration before correction exceeded the clearance in {over} of "
            f"{int(np.sum(near))} steps near contact (limit {PENETRATION_STEPS:.0%}), up to "
            f"{depth[k]:.3g} clearances ({r.gap_uncorrected[k]:.3g} m, clearance {c.min():.3g} m) "
            f"at t = {r.t[k + 1]:.6g} s: the step does not resolve the motion across the "
            "clearance; use a smaller h"
        )

    def _energy_gain(self, r: SimulationResult) -> str | None:
        if not self.no_work:
            return None
        kinetic, potential, total = r.energy.T
        scale = max(
            float(np.max(kinetic)),
            float(np.max(potential) - np.min(potential)),
            self.weight * self.scale,
            1e-300,
        )
        k = int(np.argmax(total))
        gain = float(total[k] - total[0])
        if gain <= ENERGY_GAIN_TOL * scale:
            return None
        return (
            f"total energy rose by {gain:.3g} J ({gain / scale:.3g} of the energy scale "
            f"{scale:.3g} J) by t = {r.t[k]:.6g} s with nothing doing work (limit "
            f"{ENERGY_GAIN_TOL:g}); use a smaller h"
        )

    def _compliant(self, r: SimulationResult) -> list[str]:
        out = []
        h = float(np.max(r.h))
        for name, law, col, n, mass in self.force_laws:
            delta = float(np.max(r.compliant_gap[:, col : col + n], initial=0.0))
            if delta <= 0:
                continue  # never in contact: nothing to resolve
            assert isinstance(law, ForceLaw)
            k_eff = law.stiffness_at(delta)
            limit = COMPLIANT_RESOLUTION * np.sqrt(mass / k_eff)
            if h > limit:
                out.append(
                    f"compliant contact {name!r}: h = {h:.3g} s does not resolve its stiffness "
                    f"k_eff = {k_eff:.3g} N/m at the largest penetration {delta:.3g} m (m_eff "
                    f"= {mass:.3g} kg): h should be below {COMPLIANT_RESOLUTION:g} "
                    f"sqrt(m_eff / k_eff) = {limit:.3g} s"
                )
        return out
