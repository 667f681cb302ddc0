"""Writing a figure file: through io/outdir.py's atomic_write, so a figure is complete or
absent (a full disk leaves no half picture) and a link planted under its name is replaced,
never written through."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..io.atomic import atomic_write

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def save_figure(fig: Figure, path: Path, dpi: float) -> Path:
    """Write `fig` to `path` in the format its suffix names, then clear the figure."""
    atomic_write(path, lambda fh: fig.savefig(fh, format=path.suffix[1:], dpi=dpi))
    fig.clear()
    return path
