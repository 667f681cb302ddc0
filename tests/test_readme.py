"""The README is a short front page that says what the code does: its Quick start is what CI
runs, its links resolve, its commands parse and its Python example runs. The result table of
the user guide is the schema's, and ARCHITECTURE's one line per module names every module of
the engine."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from nlpmbd.io.schema import markdown_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


def slug(heading: str) -> str:
    """The anchor Python-Markdown's toc gives a heading (its default slugify)."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 300


def test_the_quick_start_is_two_commands_that_ci_runs_verbatim():
    section = README[README.index("## Quick start") :]
    commands = fenced(section, "")[0].splitlines()
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    for command in commands:
        assert command in ci, command


def test_every_relative_link_of_the_readme_resolves():
    links = [x for x in LINK.findall(README) if "://" not in x]
    assert len(links) > 10
    for link in links:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.exists(), link
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(), re.MULTILINE)
            assert anchor in {slug(h) for h in headings}, link


def _commands() -> list[tuple[str, str]]:
    out = []
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for block in fenced(page.read_text(), "bash"):
            for line in block.splitlines():
                for command in line.split("&&"):
                    command = command.split("#")[0].strip()
                    if command.startswith("nlpmbd "):
                        out.append((page.relative_to(ROOT).as_posix(), command))
    return out


def test_every_command_in_the_docs_parses():
    """The `nlpmbd ...` lines of bash blocks in the README and docs/ name existing subcommands,
    flags, cases and studies (a renamed flag fails here, not in a reader's shell)."""
    from nlpmbd.apps.cli_parser import parser
    from nlpmbd.apps.registry import load_cases, load_studies

    commands = _commands()
    assert len(commands) > 10
    cases, studies = load_cases(), load_studies()
    for page, command in commands:
        args = parser().parse_args(shlex.split(command)[1:])
        if args.command == "run" and not args.case.endswith(".toml"):
            assert args.case in cases, (page, command)
        if args.command == "study":
            assert args.name in studies, (page, command)


def test_the_python_example_runs(tmp_path):
    (example,) = fenced(README, "python")
    cwd = os.getcwd()
    os.chdir(tmp_path)  # it writes results/my-run
    try:
        exec(compile(example, "README.md", "exec"), {"__name__": "readme"})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "results" / "my-run" / "result.npz").exists()


def test_the_result_table_is_the_schemas():
    assert markdown_table() in (DOCS / "guide" / "results.md").read_text()


def test_every_engine_module_has_its_line_in_architecture():
    text = (DOCS / "ARCHITECTURE.md").read_text()
    section = text[text.index("One line per module") :]
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
