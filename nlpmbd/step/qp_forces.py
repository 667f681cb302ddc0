"""The step QP's multipliers as forces (step/qp_graph.py)."""

from __future__ import annotations

from typing import Any

import casadi as ca


class Forces:
    """The QP's multipliers as forces (N): equalities, gap rows, Newton's rows, and with the
    vector linearisation the cut rows' (step/cuts.py), summed into their gaps' normal forces."""

    def __init__(self, rows: Any, mult: Any, ne: int, nc: int, v_new: Any) -> None:
        self.lam_eq, self.lam_gap = mult[:ne, 0], mult[ne : ne + nc, 0]  # 2-D: 1x1 slices a row
        rest = mult[ne + nc : rows.cut_start, 0] if rows.restitution else ca.MX.zeros(nc)
        self.lam_rest = rest
        self.lam_rows = self.lam_gap + rest  # along Phi_v
        self.lam, self.generalised = self.lam_rows, ca.MX.zeros(v_new.shape[0], 1)
        self.viol, self.comp = ca.MX(0, 1), ca.MX(0, 1)
        if rows.cuts is not None:
            add, self.generalised, self.viol, self.comp = rows.cuts.effects(
                *rows.cut, mult[rows.cut_start :, 0], v_new
            )
            self.lam = self.lam + add
