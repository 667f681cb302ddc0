"""Results in Jupyter: the summary table of `SimulationResult._repr_html_` (io/result_html.py),
`nlpmbd.animate` (apps/notebook.py), and examples/notebooks/ executed in a kernel."""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import re
import time
from pathlib import Path

import pytest

import nlpmbd
from nlpmbd import InputError, SimulationOptions, System, simulate
from nlpmbd.apps.registry import get_case
from nlpmbd.io.result_html import ROWS, number

NOTEBOOK = (
    Path(__file__).resolve().parents[1] / "examples" / "notebooks" / "clearance_pendulum.ipynb"
)


@pytest.fixture(scope="module")
def loose():
    """(System, result): the pendulum on a clearance pin, 50 steps."""
    system, params = get_case("pendulum").build({"joint": "clearance", "clearance": 5e-4})
    meta = {"case": "pendulum", "parameters": params}
    return system, simulate(system, SimulationOptions(t_end=0.05), meta=meta)


def test_table_holds_the_summary(loose) -> None:
    _, result = loose
    table = result._repr_html_()
    summary = result.summary()
    assert summary["max_penetration"] > 0 and summary["steps"] == 50  # the numbers are not all 0
    for key, label, _ in ROWS:
        row = re.search(f"<th[^>]*>{re.escape(label)}</th><td[^>]*>([^<]*)</td>", table)
        assert row is not None, label
        assert row.group(1) == number(summary[key])
        if key != "steps":
            assert float(row.group(1)) == pytest.approx(summary[key], rel=1e-3, abs=1e-300)
    assert "case pendulum (completed" in table and "warnings: none" in table
    assert "clearance = 0.0005" in table  # the parameters
    assert (
        repr(result)
        == "<SimulationResult: case pendulum (completed, solver qp), 50 steps to t = 0.05 s>"
    )


def test_table_escapes_names_and_warnings(loose) -> None:
    _, result = loose
    meta = dict(result.meta, case="<img src=x onerror=alert(1)>", warnings=["a <b>x</b> & y"])
    table = dataclasses.replace(result, meta=meta)._repr_html_()
    assert "<img" not in table and "<b>x" not in table
    assert "case &lt;img src=x onerror=alert(1)&gt;" in table
    assert "<li>a &lt;b&gt;x&lt;/b&gt; &amp; y</li>" in table and "warnings (1)" in table


def test_table_is_cheap(loose) -> None:
    _, result = loose
    tic = time.perf_counter()
    for _ in range(20):
        result._repr_html_()
    assert (time.perf_counter() - tic) / 20 < 0.05


def test_animation_inline(loose, tmp_path) -> None:
    pytest.importorskip("meshcat", reason="nlpmbd.animate needs meshcat: pip install meshcat")
    system, result = loose
    shown = nlpmbd.animate(result, system, magnify=50.0, height=300)
    assert shown.magnify == 50.0 and shown.frames > 1 and shown.note == ""
    assert "window.nlpmbd" in shown.page and "Clearance &times;50" in shown.page
    frame = shown._repr_html_()
    srcdoc = re.fullmatch(
        r'<iframe srcdoc="([^"]*)" style="[^"]*300px[^"]*" [^>]*></iframe>', frame
    )
    assert srcdoc is not None and html.unescape(srcdoc.group(1)) == shown.page
    rebuilt = nlpmbd.animate(result)  # bodies from meta's case and parameters
    assert rebuilt.note == "" and "Clearance &times;" in rebuilt.page
    assert shown.save(tmp_path / "a.html").read_text(encoding="utf-8") == shown.page
    result.save(tmp_path / "run")
    again = nlpmbd.animate(tmp_path / "run", system, magnify=50.0)  # uuids differ, not sizes
    assert (again.frames, len(again.page)) == (shown.frames, len(shown.page))


def test_animation_of_an_unknown_case_says_so(loose) -> None:
    pytest.importorskip("meshcat", reason="nlpmbd.animate needs meshcat: pip install meshcat")
    _, result = loose
    other = dataclasses.replace(result, meta=dict(result.meta, case="<no_such_case>"))
    shown = nlpmbd.animate(other)
    assert "not installed: bodies drawn as cubes" in shown.note
    assert shown._repr_html_().startswith("<p>case &#x27;&lt;no_such_case&gt;&#x27; is not")


def test_animation_refuses_bad_input(loose) -> None:
    pytest.importorskip("meshcat", reason="nlpmbd.animate needs meshcat: pip install meshcat")
    system, result = loose
    with pytest.raises(InputError, match=r"magnify must be a number in \[1, 1e\+09\]"):
        nlpmbd.animate(result, magnify=0.0)
    with pytest.raises(InputError, match="result must be a SimulationResult or a result dir"):
        nlpmbd.animate(3)
    with pytest.raises(InputError, match="overlay 'no/such/run' does not exist"):
        nlpmbd.animate(result, overlay="no/such/run")
    with pytest.raises(InputError, match="system has bodies"):
        nlpmbd.animate(result, System())
    with pytest.raises(InputError, match="height must be an integer"):
        nlpmbd.animate(result, height=5)


@pytest.mark.slow
def test_example_notebook_runs(tmp_path) -> None:
    """The notebook runs in a Jupyter kernel without error; its outputs hold the summary table,
    a figure and the animation."""
    for package in ("nbclient", "nbformat", "ipykernel", "meshcat"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"executing the notebook needs {package}: pip install '.[test]'")
    import nbclient
    import nbformat
    from jupyter_client.kernelspec import NoSuchKernel

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    try:
        client.execute()  # CellExecutionError on any failing cell
    except NoSuchKernel:
        pytest.skip("no Jupyter kernel python3: pip install ipykernel")
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    shown = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "<b>SimulationResult</b>: case pendulum (completed" in shown
    assert "max penetration / clearance" in shown
    assert '<iframe srcdoc="' in shown and any("image/png" in o.get("data", {}) for o in outputs)
    assert not [o for o in outputs if o.output_type == "error"]
