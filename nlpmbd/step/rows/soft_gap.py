"""The spring-damper gap: SpringDamperContact's compliant row (rows/base.py, docs/FORMULATION.md
section 12). With K the stiffness (N/m) and chi the damping (N s/m), the force
lambda = max(K (Phi + h Phi_v v) + chi Phi_v v, 0) of the penetration at the step's end is the
row's complementarity with a = K h / (K h + chi) and k = h / (K h + chi)."""

from __future__ import annotations

from typing import Any

from .base import GapRow


class SoftGap(GapRow):
    """K > 0 (N/m), chi >= 0 (N s/m)."""

    compliant = True

    def __init__(self, stiffness: float, damping: float) -> None:
        self.K, self.chi = stiffness, damping

    def scale(self, h: Any) -> Any:
        return self.K * h / (self.K * h + self.chi)

    def compliance(self, h: Any) -> Any:
        return h / (self.K * h + self.chi)

    def slack_weight(self, h: Any) -> Any:
        return h * (self.K * h + self.chi)
