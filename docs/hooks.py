"""MkDocs hooks of the site (mkdocs.yml `hooks:`).

- A nav entry whose value is a folder ("reference_problems/", "benchmarks/") lists that folder's
  pages: its index.md first ("Overview"), then the others by file name, each titled by its
  first heading. A new page in docs/reference_problems/ is in the nav without an edit of mkdocs.yml.
- The recorded benchmark outputs, benchmarks/results/*.md in the repository (outside docs/),
  become pages benchmarks/results/NAME.md of the site, listed under "Benchmarks" after
  docs/benchmarks/index.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = ROOT / "benchmarks" / "results"
GENERATED = "benchmarks/results"


def title(text: str, fallback: str) -> str:
    """The first level-one heading of a Markdown text."""
    match = re.search(r"^# (.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else fallback


def _pages(folder: str) -> list[Any]:
    """The nav entries of a folder: {title: path}, index.md first."""
    entries: list[Any] = []
    index = DOCS / folder / "index.md"
    if index.exists():
        entries.append({"Overview": f"{folder}/index.md"})
    for path in sorted((DOCS / folder).glob("*.md")):
        if path.name != "index.md":
            entries.append({title(path.read_text(), path.stem): f"{folder}/{path.name}"})
    if folder == "benchmarks":
        for path in sorted(RESULTS.glob("*.md")):
            name = re.sub(r" \(.*\)$", "", title(path.read_text(), path.stem))
            entries.append({name: f"{GENERATED}/{path.name}"})
    return entries


def _expand(nav: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in nav:
        if isinstance(item, dict):
            (name, value), *_ = item.items()
            if isinstance(value, str) and value.endswith("/"):
                value = _pages(value.rstrip("/"))
            elif isinstance(value, list):
                value = _expand(value)
            out.append({name: value})
        else:
            out.append(item)
    return out


def on_config(config: Any) -> Any:
    if config["nav"]:
        config["nav"] = _expand(config["nav"])
    return config


def on_files(files: Files, config: Any) -> Files:
    for path in sorted(RESULTS.glob("*.md")):
        files.append(File.generated(config, f"{GENERATED}/{path.name}", content=path.read_text()))
    return files
