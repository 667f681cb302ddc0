"""Chunks that choose their own h (run/chunk_graph.py) and compile in the background
(run/background.py): the steps equal the Python loop's, bit for bit."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import casadi as ca
import numpy as np
import pytest

from nlpmbd import SimulationOptions, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.run import background
from nlpmbd.run.solvers import build_solver


def python_loop(kernel, options):
    """The run's own step solver, without chunks (simulate takes the Python loop)."""
    return build_solver(kernel, options).solver


@pytest.mark.parametrize("scheme", ["euler", "verlet"])
def test_controlled_chunks_take_the_python_loops_steps(scheme):
    """The error controller inside the chunk (rejections included) against the same law in
    the Python loop: the same steps, sizes, rejections and error estimate."""
    case = get_case("pendulum")
    options = SimulationOptions(
        t_end=0.3, h_min=1e-5, h_max=2e-3, step_control="controller", integrator=scheme
    )
    runs = []
    for solver in (None, python_loop):
        system, _ = case.build({"joint": "clearance"})
        runs.append(simulate(system, options, solver=solver))
    chunked, loop = runs
    assert chunked.meta["chunk_steps"] == chunked.n_steps > 100
    assert loop.meta["chunk_steps"] == 0
    np.testing.assert_array_equal(chunked.h, loop.h)
    np.testing.assert_array_equal(chunked.q, loop.q)
    assert chunked.meta["controller_rejections"] == loop.meta["controller_rejections"]
    if scheme == "verlet":  # the clearance pin's first impact is resolved by rejections
        assert chunked.meta["controller_rejections"] > 0
        assert chunked.h.min() < 1e-4
    assert chunked.meta["error_estimate"] == pytest.approx(loop.meta["error_estimate"], rel=1e-12)
    assert chunked.meta["error_estimate"] > 0


def test_fixed_step_chunks_land_on_t_end_like_the_loop():
    case = get_case("revolute")
    options = SimulationOptions(t_end=0.1234, h_min=1e-3, h_max=1e-3)
    runs = []
    for solver in (None, python_loop):
        system, _ = case.build({})
        runs.append(simulate(system, options, solver=solver))
    np.testing.assert_array_equal(runs[0].t, runs[1].t)
    np.testing.assert_array_equal(runs[0].q, runs[1].q)
    assert runs[0].t[-1] == 0.1234


def _copy(f: ca.Function) -> ca.Function:
    """Another Function object evaluating f (what a compiled library is to the runner)."""
    return ca.Function.deserialize(f.serialize())


def test_background_compilation_switches_mid_run_with_the_same_numbers(monkeypatch):
    """codegen auto: the run starts on the VM, the build runs beside it and the chunks switch
    to its result at a chunk boundary (here a stand-in for gcc: a copy of the Function)."""
    monkeypatch.setattr(background, "COMPILE_PAYS", 0.0)
    monkeypatch.setattr("nlpmbd.run.chunks.COMPILE_PAYS", 0.0)
    built = threading.Event()

    def fake_build(src, timeout=600.0, cancel=None):  # in the build's thread: no CasADi
        built.set()
        return "compiled"

    monkeypatch.setattr(background, "prepare", lambda f: SimpleNamespace(name=f.name()))
    monkeypatch.setattr(background, "build_library", fake_build)
    monkeypatch.setattr(background, "load_library", lambda f, src, how: (_copy(f), how))
    monkeypatch.setattr("nlpmbd.run.chunks.compile_function", lambda f, **kw: (f, "not cached"))
    options = SimulationOptions(t_end=1.0, h_min=1e-3, h_max=1e-3, chunk_steps=16)
    system, _ = get_case("pendulum").build({"joint": "clearance"})
    auto = simulate(system, options)
    system, _ = get_case("pendulum").build({"joint": "clearance"})
    vm = simulate(system, options.replace(codegen="off"))
    assert built.is_set() and auto.meta["codegen"] == "compiled"
    assert vm.meta["codegen"] == "off"
    np.testing.assert_array_equal(auto.q, vm.q)


def test_a_build_the_run_outlives_is_cancelled(monkeypatch):
    monkeypatch.setattr("nlpmbd.run.chunks.COMPILE_PAYS", 0.0)
    stopped = threading.Event()

    def endless_build(src, timeout=600.0, cancel=None):
        assert cancel is not None
        cancel.wait(30.0)  # a compiler that only ends when told to
        stopped.set()
        return "cancelled"

    monkeypatch.setattr(background, "prepare", lambda f: SimpleNamespace(name=f.name()))
    monkeypatch.setattr(background, "build_library", endless_build)
    monkeypatch.setattr("nlpmbd.run.chunks.compile_function", lambda f, **kw: (f, "not cached"))
    system, _ = get_case("pendulum").build({})
    res = simulate(system, SimulationOptions(t_end=0.1, h_min=1e-3, h_max=1e-3, chunk_steps=8))
    assert stopped.wait(5.0)
    assert res.meta["codegen"].startswith("vm (the run ended")


@pytest.mark.parametrize("params", [{}, {"joint": "clearance"}], ids=["ideal", "clearance"])
def test_predicted_chunks_take_the_nlp_paths_steps(params):
    """solver auto with the NLP choosing h (step_control nlp, h_min < h_max): the chunks test
    each QP step at h_max as the predictor does (a KKT point of the NLP) and leave the rest to
    IPOPT; where both take the same steps the results are the NLP path's."""
    case = get_case("pendulum")
    # scalar gap rows: the QP is then the NLP at a fixed h. The vector rows are cutting planes
    # in the QP and one convex row in the NLP, which meet only to the cuts' tolerance: the
    # predictor's point misses the NLP's EoM check and the paths agree to ~1e-6 m, not round-off
    options = SimulationOptions(
        t_end=1.0,
        h_min=1e-3,
        h_max=2e-3,
        step_control="nlp",
        integrator="euler",
        gap_linearization="scalar",
    )
    runs = {}
    for solver in ("auto", "nlp"):
        system, _ = case.build(params)
        runs[solver] = simulate(system, options.replace(solver=solver))
    auto, nlp = runs["auto"], runs["nlp"]
    assert auto.meta["chunk_steps"] > 0.9 * auto.n_steps
    # a step the chunk leaves to IPOPT ends its computing: nothing is computed and thrown
    # away (was 166 steps for the clearance pin's 3 steps left to IPOPT)
    assert auto.meta["chunk_steps_discarded"] == 0
    assert nlp.meta["chunk_steps"] == 0 and nlp.meta["predicted_steps"] > 0.9 * nlp.n_steps
    # IPOPT's steps start from other warm points: equal to round-off
    np.testing.assert_allclose(auto.h, nlp.h, rtol=1e-12)
    assert np.abs(auto.q - nlp.q).max() < 1e-10
