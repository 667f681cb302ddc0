"""The hard gap: the paper's rigid unilateral row Phi(qm) + h Phi_v v (+ T2) <= 0 (rows/base.py),
HardContact's normal row."""

from __future__ import annotations

from typing import Any

from .base import GapRow


class HardGap(GapRow):
    """a = 1, k = 0."""

    def scale(self, h: Any) -> Any:
        return 1.0

    def compliance(self, h: Any) -> Any:
        return 0.0
