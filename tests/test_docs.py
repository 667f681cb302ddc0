"""The documentation site (mkdocs.yml, docs/): its generated reference pages say what the code
says now, the nav lists every page of docs/reference_problems/ without an edit, and the site
builds in strict mode (a broken link or anchor fails)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docs import generate

ROOT = Path(__file__).resolve().parents[1]


def test_the_generated_reference_pages_are_current():
    assert generate.stale() == [], "run: python -m docs.generate"


def test_the_cli_reference_has_every_subcommand_and_option():
    from nlpmbd.run.option_groups import flat_fields

    page = (ROOT / "docs" / "reference" / "cli.md").read_text()
    for command in ("list", "run", "study", "bench", "plot", "export", "animate", "new"):
        assert f"## nlpmbd {command}\n" in page, command
    for name in flat_fields():
        assert f"| `{name}` |" in page, name


def test_the_model_file_reference_has_every_joint_type():
    from nlpmbd.io.model_parts import CONTACT_LAWS, LOADS, joint_classes

    page = (ROOT / "docs" / "reference" / "model_file.md").read_text()
    for name in [*joint_classes(), *LOADS]:
        assert f'### type = "{name}"' in page, name
    for name in CONTACT_LAWS:
        assert f'### law = "{name}"' in page, name


def test_a_new_reference_problem_page_is_in_the_nav(tmp_path, monkeypatch):
    pytest.importorskip("mkdocs")
    from docs import hooks

    folder = tmp_path / "reference_problems"
    folder.mkdir()
    (folder / "index.md").write_text("# Reference problems\n")
    (folder / "bouncing_ball.md").write_text("# A bouncing ball\n\ntext\n")
    (folder / "ab_first.md").write_text("intro\n\n# First by name\n")
    monkeypatch.setattr(hooks, "DOCS", tmp_path)
    nav = hooks._expand([{"Home": "index.md"}, {"Reference problems": "reference_problems/"}])
    assert nav == [
        {"Home": "index.md"},
        {
            "Reference problems": [
                {"Overview": "reference_problems/index.md"},
                {"First by name": "reference_problems/ab_first.md"},
                {"A bouncing ball": "reference_problems/bouncing_ball.md"},
            ]
        },
    ]


@pytest.mark.slow
def test_the_site_builds_in_strict_mode(tmp_path):
    pytest.importorskip("mkdocs")
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "reference_problems" / "index.html").exists()
    assert (tmp_path / "benchmarks" / "results" / "peer_defaults" / "index.html").exists()


def test_the_home_page_has_the_readmes_quick_start():
    def quick_start(text: str) -> str:
        section = text[text.index("## Quick start") :]
        return section[section.index("```\n") : section.index("```\n", section.index("```\n") + 4)]

    home = (ROOT / "docs" / "index.md").read_text()
    assert quick_start(home) == quick_start((ROOT / "README.md").read_text())
