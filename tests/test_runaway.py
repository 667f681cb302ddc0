"""Runs that would run away: too many steps, results bigger than memory, diverging states."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import GROUND, InputError, RigidBody, SimulationOptions, SolverFailure, System, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.model.springs import SpringDamper
from nlpmbd.run.grid import fixed_step_sizes, step_bounds
from nlpmbd.run.option_groups import Path as PathOptions

H = 1e-3


def old_fixed_step_sizes(t0: float, t_end: float, h: float) -> np.ndarray:
    """The list the fast path used to build before its first step (kept as the reference)."""
    out, t, eps = [], t0, 1e-6 * h
    while t < t_end - eps:
        step = step_bounds(t_end - t, h, h)[1]
        out.append(step)
        t = t + step
    return np.asarray(out, dtype=float)


@pytest.mark.parametrize(
    ("t0", "t_end", "h"),
    [(0.0, 1.0, 1e-3), (0.0, 0.3007, 1e-3), (0.123, 2.0, 7e-4), (0.0, 1.0, 0.3), (0.0, 0.2, 1e-5)],
)
def test_step_sizes_are_generated_lazily_and_bit_identical(t0, t_end, h):
    assert np.array_equal(
        np.fromiter(fixed_step_sizes(t0, t_end, h), float), old_fixed_step_sizes(t0, t_end, h)
    )


def test_a_huge_step_count_costs_nothing_before_the_first_step():
    sizes = fixed_step_sizes(0.0, 1e6, 1e-12)  # 1e18 steps: a list would never finish
    assert next(sizes) == 1e-12


def pendulum() -> System:
    return get_case("pendulum").build({})[0]


def test_fast_path_takes_the_same_steps_as_the_list():
    """Chunks, a landing pair of steps and Python steps between chunks (box_drop's contacts)."""
    for case in ("pendulum", "box_drop"):
        system = get_case(case).build({})[0]
        opts = SimulationOptions(t_end=0.3007, h_min=H, h_max=H, solver="qp", codegen="off")
        res = simulate(system, opts)
        assert np.array_equal(res.h, old_fixed_step_sizes(0.0, 0.3007, H))


@pytest.mark.parametrize("solver", ["nlp", "qp"])
def test_too_many_steps_are_refused_with_the_numbers(solver):
    opts = SimulationOptions(t_end=1e6, h_min=H, h_max=H, solver=solver, codegen="off")
    with pytest.raises(InputError) as info:
        simulate(pendulum(), opts, stop=lambda: True)  # stop: fail fast if not refused
    msg = str(info.value)
    assert msg.startswith("t_end / h_min = 1e+09 steps exceeds the limit 1e+08 (about ")
    assert "GB of results" in msg and "force=True (--force)" in msg and "\n" not in msg


def test_a_result_bigger_than_the_memory_is_refused(monkeypatch):
    monkeypatch.setattr("nlpmbd.run.limits.available_memory", lambda: 100_000)
    opts = SimulationOptions(t_end=1.0, h_min=H, h_max=H)  # 1000 steps of ~250 bytes
    with pytest.raises(
        InputError, match=r"1e\+03 steps need about .* more than the 100 kB available"
    ):
        simulate(pendulum(), opts, stop=lambda: True)
    monkeypatch.setattr("nlpmbd.run.limits.available_memory", lambda: None)  # unknown: no check
    assert simulate(pendulum(), SimulationOptions(t_end=0.01, h_min=H, h_max=H)).completed


@pytest.mark.parametrize(("solver", "steps"), [("nlp", 1), ("qp", PathOptions().chunk_steps)])
def test_force_runs_anyway_and_stops_between_steps(monkeypatch, solver, steps):
    """force=True passes both checks; the first stop() ends the run after one step (or chunk)
    with the partial result, instead of after a list of 1e9 step sizes."""
    monkeypatch.setattr("nlpmbd.run.limits.available_memory", lambda: 1000)
    opts = SimulationOptions(t_end=1e6, h_min=H, h_max=H, solver=solver, codegen="off")
    with pytest.raises(SolverFailure, match="interrupted") as info:
        simulate(pendulum(), opts, stop=lambda: True, force=True)
    partial = info.value.partial
    assert partial.n_steps == steps and np.all(partial.h == H) and not partial.completed


def test_a_diverging_run_stops_with_its_partial_result():
    """stick_slip with a 1e12 N/m spring at h = 2 ms (the explicit spring force needs
    h < 2 sqrt(m / k) = 6e-7 s): x grows ~1e7-fold per step."""
    system, _ = get_case("stick_slip").build({"stiffness": 1e12})
    with pytest.raises(SolverFailure, match=r"^diverged: body 'slider' is at \|r\| = ") as info:
        simulate(system, SimulationOptions(t_end=0.05, h_min=2e-3, h_max=2e-3))
    partial = info.value.partial
    assert not partial.completed and partial.meta["message"].startswith("diverged")
    assert np.abs(partial.q[-1, 0]) > 1e6 * 0.478 and partial.n_steps < 6
    assert isinstance(partial.meta["warnings"], list)  # the partial result is checked too


def test_a_diverging_fast_path_run_stops_inside_its_chunks():
    system = System(gravity=(0, -9.81, 0))
    body = system.add_body(RigidBody("mass", 1.0, (1e-3,) * 3, position=(0, -0.1, 0)))
    system.add_load(SpringDamper("spring", GROUND, body, (0, 0, 0), (0, -0.1, 0), stiffness=1e12))
    opts = SimulationOptions(t_end=1.0, h_min=H, h_max=H, solver="qp", codegen="off")
    with pytest.raises(SolverFailure, match="^diverged") as info:
        simulate(system, opts)
    assert info.value.partial.n_steps < PathOptions().chunk_steps
