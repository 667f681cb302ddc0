"""Reference problems of other simulators and benchmark libraries (issue 31): one module per
problem runs nlpmbd's case, compares it with the published answer and writes
docs/reference_problems/<name>.png and .md. The published data are read in place from
../shared/peer_references (or $NLPMBD_PEER_REFERENCES), never copied into the project."""

from __future__ import annotations

import os
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "reference_problems"
ENV = "NLPMBD_PEER_REFERENCES"


def peer_folder(name: str) -> Path | None:
    """The folder of one peer reference, or None when it is not on this machine."""
    base = Path(os.environ.get(ENV) or ROOT.parent / "shared" / "peer_references")
    folder = base / name
    return folder if folder.is_dir() else None


def peer_or_skip(problem: str, name: str) -> Path | None:
    """peer_folder(name), or None after one line saying that `problem`'s benchmark is skipped
    (nothing to compare with: not an error)."""
    folder = peer_folder(name)
    if folder is None:
        print(f"{problem}: skipped, no {name} reference folder")
    return folder


def missing_reason(name: str) -> str:
    """The one line a test skips with when the folder is absent."""
    return f"peer reference {name!r} not found under ${ENV} or ../shared/peer_references"


def load_csv(folder: Path, file: str) -> np.ndarray:
    """A numeric CSV of a peer folder ('#' comments and a header line skipped)."""
    path = folder / file
    with path.open() as f:
        first = next(line for line in f if not line.startswith("#"))
    skip = 0 if first[:1].lstrip("-").replace(".", "").isdigit() else 1
    return np.loadtxt(path, delimiter=",", comments="#", skiprows=skip)


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """fn's result and the CPU seconds it took (this process and any children it waited for)."""
    t0 = _cpu()
    out = fn(*args, **kwargs)
    return out, _cpu() - t0


def _cpu() -> float:
    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def write_page(name: str, title: str, body: str) -> Path:
    """docs/reference_problems/<name>.md: the title, the body, the figure."""
    DOCS.mkdir(parents=True, exist_ok=True)
    path = DOCS / f"{name}.md"
    path.write_text(f"# {title}\n\n{body.strip()}\n\n![{name}]({name}.png)\n")
    return path


def figure(rows: int = 2, sharex: bool = True) -> tuple[Any, Any]:
    """A headless figure of `rows` stacked panels (sharing the time axis by default)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(rows, 1, figsize=(7, 2.6 * rows), sharex=sharex)
    return fig, axes


def save(fig: Any, name: str) -> Path:
    """docs/reference_problems/<name>.png."""
    DOCS.mkdir(parents=True, exist_ok=True)
    path = DOCS / f"{name}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path
