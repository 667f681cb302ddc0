"""SimulationOptions: the five option groups (run/option_groups.py) and the one place where their
combinations are checked."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..step.config import Formulation, Friction, QPPlugin, SolverPath, Verification
from ..validation import short_repr
from .option_groups import (
    GROUPS,
    Codegen,
    Output,
    Path,
    Scheme,
    StepControl,
    TimeGrid,
    Tolerances,
    flat_fields,
)


@dataclass(frozen=True, init=False)
class SimulationOptions:
    """Options of one simulation, by group; see run/option_groups.py for every field.

    >>> SimulationOptions(t_end=2.0, h_min=1e-3, h_max=1e-3, solver="qp").path.solver
    <SolverPath.QP: 'qp'>
    """

    time: TimeGrid
    scheme: Scheme
    path: Path
    tolerances: Tolerances
    output: Output

    def __init__(
        self,
        time: TimeGrid | None = None,
        scheme: Scheme | None = None,
        path: Path | None = None,
        tolerances: Tolerances | None = None,
        output: Output | None = None,
        **flat: Any,
    ) -> None:
        given: dict[str, Any] = {
            "time": time,
            "scheme": scheme,
            "path": path,
            "tolerances": tolerances,
            "output": output,
        }
        table = flat_fields()
        per_group: dict[str, dict[str, Any]] = {g: {} for g in GROUPS}
        for key, value in flat.items():
            if key not in table:
                raise InputError(
                    f"unknown option {short_repr(key)}; options are {', '.join(sorted(table))}"
                )
            per_group[table[key][0]][key] = value
        for name, cls in GROUPS.items():
            base = given[name]
            if base is None:
                group = cls(**per_group[name])
            elif not isinstance(base, cls):
                raise InputError(f"options {name} must be a {cls.__name__}, got {short_repr(base)}")
            else:
                changed = per_group[name]
                group = dataclasses.replace(base, **changed) if changed else base  # type: ignore[type-var]
            object.__setattr__(self, name, group)
        self._check_combinations()
        chosen = {f for g in GROUPS if given[g] is not None for f in getattr(self, g).as_dict()}
        object.__setattr__(self, "_given", frozenset(flat) | chosen)

    def _check_combinations(self) -> None:
        t, p = self.time, self.path
        if t.h_min > t.h_max:
            raise InputError(f"h_min must be <= h_max, got h_min={t.h_min} > h_max={t.h_max}")
        if t.h_max > t.t_end:
            raise InputError(f"h_max must be <= t_end={t.t_end}, got {t.h_max}")
        if p.codegen is Codegen.ON and self.solver_path is SolverPath.NLP:
            raise InputError(
                "codegen=on applies to solver=qp only; drop it or set solver=qp "
                f"(solver={p.solver.value} takes the NLP path here)"
            )
        if p.codegen is Codegen.ON and p.qp_solver in (QPPlugin.QPOASES, QPPlugin.OSQP):
            raise InputError(
                f"codegen=on needs qp_solver=auto, qrqp or daqp (the compiled ones), "
                f"got {p.qp_solver.value!r}"
            )

    @property
    def given(self) -> frozenset[str]:
        """The options set explicitly (flat names; a group given whole sets all of its own):
        the ones a case's option defaults do not replace (`over`)."""
        return frozenset(self.__dict__.get("_given", ()))

    @classmethod
    def with_defaults(
        cls, given: Mapping[str, Any], defaults: Mapping[str, Any]
    ) -> SimulationOptions:
        """Options `given` (flat names) over `defaults` (a case's own: Case.options, carried by
        System.option_defaults): each default applies where no value is given. The one place
        where a case's option defaults meet the caller's options; `simulate` reaches it through
        `over`, so every entry point (run, study, bench, the API) honours them."""
        for name, table in (("options", given), ("option defaults", defaults)):
            if not isinstance(table, Mapping):
                raise InputError(f"{name} must be a mapping, got {short_repr(table)}")
        options = cls(**{**defaults, **given})
        object.__setattr__(options, "_given", frozenset(given))
        return options

    def over(self, defaults: Mapping[str, Any]) -> SimulationOptions:
        """These options over `defaults` (`with_defaults`); the given ones stay as they are."""
        if not isinstance(defaults, Mapping) or set(defaults) - self.given:
            flat = self.flat()
            return self.with_defaults({k: flat[k] for k in self.given}, defaults)
        return self

    # ---- derived -------------------------------------------------------------------------
    @property
    def fixed_step(self) -> bool:
        return self.time.h_min == self.time.h_max

    @property
    def solver_path(self) -> SolverPath:
        """The path a run takes: `solver`, with auto resolved. The QP is the step's NLP at a
        fixed h, so auto takes it unless the NLP chooses h (step_control=nlp with h_min <
        h_max) or the MPCC form is asked for; solver=qp with an h range and step_control=nlp
        steps at h_max."""
        p, t = self.path.solver, self.time
        if p is not SolverPath.AUTO:
            return p
        nlp_h = t.step_control is StepControl.NLP and not self.fixed_step
        if nlp_h or self.scheme.formulation is Formulation.MPCC:
            return SolverPath.NLP
        return SolverPath.QP

    @property
    def verification(self) -> Verification:
        t = self.tolerances
        return Verification(t.verify_constraints, t.verify_eom, t.verify_complementarity)

    @property
    def friction(self) -> Friction:
        t = self.tolerances
        return Friction(t.friction_tol, t.friction_iterations, t.stick_creep, t.stick_speed)

    # ---- conversions ---------------------------------------------------------------------
    def replace(self, **flat: Any) -> SimulationOptions:
        """A copy with the named options changed (flat names; they count as given)."""
        copy = SimulationOptions(**{g: getattr(self, g) for g in GROUPS}, **flat)
        object.__setattr__(copy, "_given", self.given | frozenset(flat))
        return copy

    def flat(self) -> dict[str, Any]:
        """Every option by its own name (enums as their values)."""
        return {k: v for g in GROUPS for k, v in getattr(self, g).as_dict().items()}

    def as_dict(self, run_defining: bool = False) -> dict[str, Any]:
        """{group: {option: value}} for meta.json; `run_defining` leaves out `output`."""
        return {
            g: getattr(self, g).as_dict() for g in GROUPS if not (run_defining and g == "output")
        }

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> SimulationOptions:
        """Options from meta.json's `options` ({group: {option: value}}; options may also be
        given flat); InputError for unknown keys."""
        if not isinstance(values, Mapping):
            raise InputError(f"options must be a JSON object, got {short_repr(values)}")
        flat: dict[str, Any] = {}
        for key, entries in values.items():
            if key in GROUPS:
                if not isinstance(entries, Mapping):
                    raise InputError(
                        f"options {key} must be a JSON object, got {short_repr(entries)}"
                    )
                flat.update(entries)
            else:
                flat[key] = entries
        return cls(**flat)

    def __getattr__(self, name: str) -> Any:
        """Each option by its own name too: options.t_end is options.time.t_end."""
        table = flat_fields()
        if name in table:
            return getattr(object.__getattribute__(self, table[name][0]), name)
        raise AttributeError(f"SimulationOptions has no option {name!r}")
