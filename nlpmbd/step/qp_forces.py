"""The step QP's multipliers as forces, and the checks of the point they make (step/
qp_graph.py)."""

from __future__ import annotations

from typing import Any

import casadi as ca


class Forces:
    """The QP's multipliers as forces (N): equalities, gap rows, Newton's rows, and with the
    vector linearisation the cut rows' (step/cuts.py), summed into their gaps' normal forces."""

    def __init__(self, rows: Any, mult: Any, v_new: Any) -> None:
        """`mult`: the multipliers / h of the blocks of `rows.layout`."""
        y = {k: mult[s, 0] for k, s in rows.layout.slices.items()}  # 2-D: 1x1 slices a row
        nc = rows.layout.sizes["gap"]
        self.lam_eq, self.lam_gap = y["eq"], y["gap"]
        rest = y["restitution"] if rows.restitution else ca.MX.zeros(nc)
        self.lam_rest = rest
        self.lam_rows = self.lam_gap + rest  # along Phi_v
        self.lam, self.generalised = self.lam_rows, ca.MX.zeros(v_new.shape[0], 1)
        self.viol, self.comp = ca.MX(0, 1), ca.MX(0, 1)
        if rows.cuts is not None:
            add, self.generalised, self.viol, self.comp = rows.cuts.effects(
                *rows.cut, y["cuts"], v_new
            )
            self.lam = self.lam + add


def checks(
    k: Any, args: dict, rows: Any, phi: Any, released: Any, v_new: Any, K: Any, f: Forces, gen: Any
) -> tuple[Any, Any, Any, Any]:
    """(|EoM residual| (N), complementarity (N m), the kernel's acceptance of the point, the
    forces at play (N)): the NLP path's units, constraints in m; `gen`, the friction forces'
    generalised force."""
    v, h = args["v"], args["h"]
    m = k.model
    lam_gap, lam_rest, lam_eq = f.lam_gap, f.lam_rest, f.lam_eq
    eom = K + rows.Phi_v.T @ f.lam_rows + rows.Phi_eq_v.T @ lam_eq - gen
    eom = ca.norm_2(eom + f.generalised)  # the cut rows' reaction (0 without)
    eom_scale = k.eom_scale(m.M_sparse @ (v_new - v) / h, K)
    phi_lin = phi + h * rows.Phi_v @ v_new
    gap_rows = ca.if_else(released > 0, 0, phi_lin)  # a released row constrains nothing
    eq_lin = h * (rows.Phi_eq_v @ v_new - rows.eq_rhs)
    newton = rows.newton(v_new)
    viol = ca.mmax(ca.vertcat(0, gap_rows, ca.fabs(eq_lin), h * newton, f.viol))
    comp = ca.vertcat(0, ca.fabs(lam_gap * gap_rows), ca.fabs(lam_rest * newton), f.comp)
    comp = ca.mmax(comp)
    return eom, comp, k.accepts(viol, eom, eom_scale, comp, f.lam), eom_scale
