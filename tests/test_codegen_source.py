"""run/codegen_source.py: DAQP's warm start in compiled chunks (`warm_daqp`). The compiled QP
starts from the rows lam_a0 marks and must reach the optimum CasADi's own DAQP (the VM,
which ignores lam_a0) finds from an empty working set, also when the marked rows are wrong
or dependent."""

from __future__ import annotations

import casadi as ca
import numpy as np
import pytest

from nlpmbd.run.codegen import compile_function, find_compiler
from nlpmbd.run.codegen_source import warm_daqp
from nlpmbd.step.qp_plugins import qp_solver

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler found")

# min 1/2 |x - (2, 1, 0)|^2  s.t.  x0 <= 1, x1 <= 0, x0 + x1 <= 1, 2 x0 + 2 x1 <= 2 (the
# last two dependent), x2 = 0.5: optimum x = (1, 0, 0.5), the first two rows active.
A = ca.DM([[1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 2, 0], [0, 0, 1]])
UBA = ca.DM([1, 0, 1, 2, 0.5])
LBA = ca.DM([-ca.inf, -ca.inf, -ca.inf, -ca.inf, 0.5])
G = ca.DM([-2, -1, 0])


def _qp() -> ca.Function:
    """The QP above as a Function of lam_a0 (MX, as the step's graphs call DAQP)."""
    solve = qp_solver("qp", "daqp", ca.Sparsity.diag(3), A.sparsity())
    lam_a0 = ca.MX.sym("lam_a0", 5)
    sol = solve(h=ca.DM.eye(3), g=G, a=A, lba=LBA, uba=UBA, lam_a0=lam_a0)
    return ca.Function("qp", [lam_a0], [sol["x"], sol["lam_a"]], ["lam_a0"], ["x", "lam_a"])


def test_casadis_daqp_call_is_patched():
    """The patterns are CasADi's generated DAQP call: if a CasADi release changes them, the
    patch silently does nothing and this test says so."""
    gen = ca.CodeGenerator("qp.c", {"with_header": False})
    gen.add(_qp())
    source = gen.dump()
    patched = warm_daqp(source)
    assert patched != source
    assert patched.count("lam_a0[i] > 0") == 1 and "flag == -6" in patched


@pytest.mark.parametrize(
    "start",
    [
        [0, 0, 0, 0, 0],  # none: DAQP from the equality alone (the VM's start)
        [1, 1, 0, 0, 0],  # the optimum's rows
        [0, 0, 1, 0, 0],  # a wrong row, which DAQP drops
        [1, 1, 1, 1, 0],  # dependent rows (rows 3 and 4, and 1-3): set up again from cold
    ],
)
def test_warm_started_compiled_daqp_finds_the_vms_optimum(start):
    f = _qp()
    compiled, how = compile_function(f)
    assert how in ("compiled", "cached")
    x_vm, lam_vm = (np.array(a).ravel() for a in f(start))
    x, lam = (np.array(a).ravel() for a in compiled(start))
    np.testing.assert_allclose(x_vm, [1.0, 0.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(x, x_vm, atol=1e-12)
    # the KKT conditions of the compiled solution: stationarity and the multipliers' signs
    np.testing.assert_allclose(x + np.array(G).ravel() + np.array(A).T @ lam, 0, atol=1e-12)
    assert np.all(lam[:4] >= -1e-12)
