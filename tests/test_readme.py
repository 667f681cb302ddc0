"""The README says what the code does: its result table is the schema's, and its one line per
module names every module of the engine."""

from __future__ import annotations

from pathlib import Path

from nlpmbd.io.schema import markdown_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_the_result_table_is_the_schemas():
    assert markdown_table() in README


def test_every_engine_module_has_its_line():
    section = README[README.index("One line per module") :]
    for path in sorted((ROOT / "nlpmbd").rglob("*.py")):
        if (
            path.name == "__init__.py"
            and path.parent.name != "nlpmbd"
            or path.name == "__main__.py"
        ):
            continue
        rel = path.relative_to(ROOT / "nlpmbd").as_posix()
        name = f"nlpmbd/{rel}" if "/" not in rel else rel
        assert f"`{name}`" in section, name
