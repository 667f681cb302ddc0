"""Proof that the fast tier (`pytest -m "not slow"`) covers every module: it runs the tier under
coverage (in-process, -n 0) and lists each module of nlpmbd, nlpmbd_joints and
nlpmbd_cases that no fast test imports, or whose functions no fast test calls (a module with
functions counts as exercised when at least one line inside a function body ran).

    python tests/fast_tier_coverage.py            # run the tier, then check; exit 1 on a gap
    python tests/fast_tier_coverage.py --report   # check the data of the last run only
    python tests/fast_tier_coverage.py --which nlpmbd.plots.orbit   # the fast tests that run it

Needs `coverage` (in the test extras). Prints one line per module with the share of its
statements that ran, lowest first, then the gaps.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("nlpmbd", "nlpmbd_joints", "nlpmbd_cases")
DATA = ROOT / ".pytest_cache" / "fast_tier.coverage"
#: Each line ran by which test function (coverage's dynamic contexts): for --which.
RCFILE = "[run]\ndynamic_context = test_function\n"


def run_tier() -> int:
    """The fast tier under coverage, serially (-n 0: one process to measure)."""
    rcfile = DATA.with_suffix(".rc")
    rcfile.parent.mkdir(parents=True, exist_ok=True)
    rcfile.write_text(RCFILE)
    cmd = [
        sys.executable, "-m", "coverage", "run", f"--rcfile={rcfile}", f"--data-file={DATA}",
        f"--source={','.join(PACKAGES)}", "-m", "pytest", "-m", "not slow", "-q",
        "-n", "0", "-p", "no:randomly",
    ]  # fmt: skip
    return subprocess.run(cmd, cwd=ROOT).returncode


def body_lines(path: Path) -> set[int]:
    """Line numbers of the statements inside function bodies (not the def lines)."""
    out: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for stmt in node.body:
                out.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return out


def gaps() -> list[str]:
    from coverage import Coverage

    cov = Coverage(data_file=str(DATA))
    cov.load()
    data = cov.get_data()
    measured = {Path(f).resolve(): set(data.lines(f) or ()) for f in data.measured_files()}
    rows, missing = [], []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT).with_suffix("")).replace("/", ".")
            ran = measured.get(path.resolve(), set())
            _, lines, _, missed, _ = cov.analysis2(str(path))
            statements = len(lines)
            if statements and not ran:
                missing.append(f"{name}: never imported by a fast test")
                continue
            if body_lines(path) and not ran & body_lines(path):
                missing.append(f"{name}: imported, but none of its functions ran")
            share = 1.0 - len(missed) / statements if statements else 1.0
            rows.append((share, name))
    for share, name in sorted(rows):
        print(f"{100 * share:5.1f}%  {name}")
    return missing


def which(module: str) -> list[str]:
    """The fast test functions that ran a line of `module` (data of the last run)."""
    from coverage import CoverageData

    path = (ROOT / module.replace(".", "/")).with_suffix(".py")
    if not path.is_file():
        path = path.with_suffix("") / "__init__.py"
    data = CoverageData(basename=str(DATA))
    data.read()
    contexts = data.contexts_by_lineno(str(path.resolve()))
    return sorted({c for found in contexts.values() for c in found if c})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", action="store_true", help="check the last run's data only")
    parser.add_argument("--which", metavar="MODULE", help="list the fast tests that run MODULE")
    args = parser.parse_args()
    if args.which:
        print("\n".join(which(args.which)) or f"no fast test runs {args.which}")
        return 0
    if not args.report and run_tier() != 0:
        print("the fast tier failed", file=sys.stderr)
        return 1
    missing = gaps()
    for line in missing:
        print(f"NOT COVERED {line}")
    print(f"{len(missing)} modules not covered by the fast tier")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
