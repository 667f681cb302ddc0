"""CONTRIBUTING's recipes, followed: each Python block of docs/CONTRIBUTING.md is either run
here (`<!-- recipe: NAME -->`) and what it built checked, or a verbatim excerpt of the file it
names (`<!-- excerpt: PATH -->`), so that a recipe cannot drift from the code. The contact-law
and step-solver recipes are followed by tests/test_plugin_contact_law.py and
tests/test_plugin_solver.py, which their excerpts come from."""

from __future__ import annotations

import math
import re
import sys
import types
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import GROUND, RigidBody, SimulationOptions, SimulationResult, System, simulate
from nlpmbd.io import export_columns, schema
from nlpmbd.io.result import SimulationResult as ResultClass

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "CONTRIBUTING.md").read_text()
#: a block and its marker; excerpts keep the text of their file (ruff leaves them alone)
BLOCK = re.compile(
    r"<!-- (recipe|excerpt): (\S+) -->\n(?:<!-- fmt:off -->\n)?```python\n(.*?)```", re.DOTALL
)


def blocks() -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {
        "recipe": defaultdict(list),
        "excerpt": defaultdict(list),
    }
    for kind, name, code in BLOCK.findall(TEXT):
        out[kind][name].append(code)
    return out


def recipe(name: str) -> types.ModuleType:
    """The recipe's blocks run in order as the module `recipe_NAME`."""
    code = "\n".join(blocks()["recipe"][name])
    assert code, f"CONTRIBUTING.md has no recipe {name!r}"
    module = types.ModuleType(f"recipe_{name}")
    sys.modules[module.__name__] = module  # dataclasses and pickling look classes up there
    exec(compile(code, f"docs/CONTRIBUTING.md:{name}", "exec"), module.__dict__)
    return module


def test_every_python_block_is_run_or_an_excerpt():
    assert TEXT.count("```python") == len(BLOCK.findall(TEXT))
    assert set(blocks()["recipe"]) == {"clearance_joint", "case", "study"}


def test_the_excerpts_are_in_their_files():
    excerpts = blocks()["excerpt"]
    assert {"tests/test_plugin_contact_law.py", "tests/test_plugin_solver.py"} <= set(excerpts)
    for path, codes in excerpts.items():
        source = (ROOT / path).read_text()
        for code in codes:
            assert code in source, f"CONTRIBUTING.md quotes {path}, which no longer has:\n{code}"


def test_clearance_joint_recipe():
    from nlpmbd_joints import SphericalClearance

    BallInSocket = recipe("clearance_joint").BallInSocket

    def swing(make_joint) -> SimulationResult:
        system = System(gravity=(0, -9.81, 0))
        body = system.add_body(RigidBody("bob", 1.0, (2e-3, 0.085, 0.085), position=(0.5, 0, 0)))
        system.add_joint(make_joint(body))
        return simulate(system, SimulationOptions(t_end=0.3, h_min=1e-3, h_max=1e-3))

    c = 0.0101 - 0.01  # the library joint's clearance, to the last bit
    ours = swing(lambda b: BallInSocket("ball", GROUND, b, (0, 0, 0), c))
    library = swing(lambda b: SphericalClearance("ball", GROUND, b, (0, 0, 0), 0.0101, 0.01))
    assert ours.completed and ours.meta["warnings"] == []
    for name in ("q", "v", "lam", "gap", "contact_force", "joint_force"):
        assert np.allclose(getattr(ours, name), getattr(library, name), rtol=0, atol=1e-12), name
    # the ball fell onto the socket's wall and stays on it: pressed (lam > 0), |d| = c to the
    # step's penetration
    assert ours.lam[-1, 0] > 0 and np.abs(ours.gap[-50:, 0]).max() < 0.01 * c


def test_case_recipe():
    case = recipe("case").CASE
    system, params = case.build({"stiffness": 900.0})
    assert params == {"mass": 1.0, "stiffness": 900.0, "stretch": 0.01}
    period = 2 * math.pi * math.sqrt(params["mass"] / params["stiffness"])
    h = period / 400
    result = simulate(system, SimulationOptions(t_end=period, h_min=h, h_max=h))
    x = result.q[:, 0] - 0.5
    half = int(np.argmin(np.abs(result.t - period / 2)))
    assert x[-1] == pytest.approx(0.01, abs=1e-4)  # back where it started after one period
    assert x[half] == pytest.approx(-0.01, abs=1e-4)  # at the other end after half of one
    assert x.min() == pytest.approx(-0.01, abs=1e-4)


def test_study_recipe(tmp_path):
    from nlpmbd.apps.study_report import run_study

    study = recipe("study").MASSES
    report = run_study(study, {"t_end": 0.3}, tmp_path, workers=1)
    assert [o.status for o in report.outcomes] == ["ok", "ok"]
    lowest = {}
    for row in report.rows:
        saved = SimulationResult.load(tmp_path / "runs" / row["run"])
        assert row["lowest y (m)"] == float(saved.q[:, 1].min())
        lowest[row["run"]] = row["lowest y (m)"]
    assert lowest["m=2"] < lowest["m=1"] < 0
    assert (tmp_path / "table.csv").exists() and (tmp_path / "study.json").exists()


def test_result_array_recipe(tmp_path):
    """Every array of the schema along the recipe's steps: the result has it in the schema's
    shape, SimulationResult and the records name it, saving and loading keep it, and the exports
    label each of its columns."""
    from dataclasses import fields

    from nlpmbd.apps.registry import get_case

    system, _ = get_case("pendulum").build({"joint": "clearance", "mu": 0.1})
    result = simulate(system, SimulationOptions(t_end=0.02, h_min=1e-3, h_max=1e-3))
    result.save(tmp_path)
    loaded = ResultClass.load(tmp_path)
    sizes = {k: len(result.meta.get(key, [])) for k, key in schema.SIZE_KEYS.items()}
    assert sizes["M"] > 0 and sizes["E"] > 0 and sizes["J"] > 0
    records = (ROOT / "nlpmbd" / "run" / "records.py").read_text()
    assert [f.name for f in fields(ResultClass)][: len(schema.SCHEMA)] == [
        s.name for s in schema.SCHEMA
    ]
    for spec in schema.SCHEMA:
        array = getattr(result, spec.name)
        assert array.shape == (spec.rows(result.n_steps), *spec.trailing(sizes)), spec.name
        assert array.dtype == np.dtype(spec.dtype), spec.name
        assert np.array_equal(getattr(loaded, spec.name), array), spec.name
        if spec.per == "point":
            assert f'"{spec.name}"' in records, spec.name
        labels = export_columns.columns(spec, array.shape, result.meta)
        assert len(labels) == math.prod(array.shape[1:]) and len(set(labels)) == len(labels)
