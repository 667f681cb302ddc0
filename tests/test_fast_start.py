"""`nlpmbd list` reads the registry's declarations only: no CasADi, no joints, no System (issue
28 item 5, a fast start). Untimed: it checks what the listing imports, not how long it takes."""

from __future__ import annotations

import json
import subprocess
import sys

#: Modules a listing must not load: they are what building and running a case need.
HEAVY = ("casadi", "scipy", "matplotlib", "nlpmbd.model.system", "nlpmbd_joints")

_LIST = (
    "import contextlib, io, json, sys\n"
    "from nlpmbd.apps.cli import main\n"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n"
    "    code = main(['list'])\n"
    "print(json.dumps({'code': code, 'out': out.getvalue(), 'modules': sorted(sys.modules)}))\n"
)


def test_list_loads_no_numerical_engine_and_shows_every_case_and_study():
    done = subprocess.run([sys.executable, "-c", _LIST], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    loaded = [m for m in report["modules"] if m.split(".")[0] in HEAVY or m in HEAVY]
    assert report["code"] == 0 and loaded == []
    from nlpmbd.apps.registry import load_cases, load_studies

    shown = report["out"]
    for name in [*load_cases(), *load_studies()]:
        assert f"\n  {name}: " in shown
