"""The shape of the code: layers that depend one way, no import cycles, small modules and
functions. Read from the source with ast (nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("nlpmbd", "nlpmbd_joints", "nlpmbd_cases")
#: The engine's layers, lowest first: a module may import its own layer and those below.
LAYERS = ("base", "model", "io", "step", "run", "plots", "apps")
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every module of ours that `name` imports (at any depth of the file, typing ones too)."""
    is_package = path.name == "__init__.py"
    package = name.split(".") if is_package else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                prefix = package[: len(package) - node.level + 1]
                base = ".".join([*prefix, base] if base else prefix)
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for t in targets:
            while t and t not in MODULES:
                t = t.rpartition(".")[0]
            if t and t != name and not name.startswith(t + "."):  # a parent package runs first
                found.add(t)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "nlpmbd" or module in ("nlpmbd", "nlpmbd.__main__"):
        return None  # the packages of joints and cases; the lazy public facade and `python -m`
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else 0


def test_no_import_cycles():
    """Tarjan's strongly connected components of the import graph are single modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_layers_depend_one_way():
    """nlpmbd: base < model < io < step < run < plots < apps; nlpmbd never imports the joints
    or the cases, and the joints never import the cases."""
    wrong = []
    for module, deps in GRAPH.items():
        top = module.split(".")[0]
        for dep in deps:
            if top == "nlpmbd" and dep.split(".")[0] != "nlpmbd":
                wrong.append((module, dep))
            elif top == "nlpmbd_joints" and dep.startswith("nlpmbd_cases"):
                wrong.append((module, dep))
            elif _layer(module) is not None and _layer(dep) is not None:
                if _layer(dep) > _layer(module):
                    wrong.append((module, dep))
    assert not wrong, wrong


def size_offenders(modules: dict[str, Path]) -> list[str]:
    """Every module over MAX_MODULE_LINES and every function over MAX_FUNCTION_LINES."""
    out = []
    for name, path in sorted(modules.items()):
        lines = path.read_text().splitlines()
        if len(lines) > MAX_MODULE_LINES:
            out.append(f"{name}: {len(lines)} lines (module limit {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    out.append(f"{name}.{node.name}: {size} lines (limit {MAX_FUNCTION_LINES})")
    return out


def test_module_and_function_sizes():
    """One lint step over all modules: the message lists every offender at once."""
    assert len(MODULES) > 100  # the walk found the packages
    offenders = size_offenders(MODULES)
    assert not offenders, f"{len(offenders)} over the size limits:\n" + "\n".join(offenders)


def test_size_lint_lists_every_offender(tmp_path):
    """The lint names a long module and each long function in it, not only the first."""
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    text = f"def long_a():\n{body}\n\ndef long_b():\n{body}\n\ndef short():\n    pass\n"
    long_module = tmp_path / "long.py"
    long_module.write_text(text + "\n" * MAX_MODULE_LINES)
    fine = tmp_path / "fine.py"
    fine.write_text("def short():\n    pass\n")
    found = size_offenders({"pkg.long": long_module, "pkg.fine": fine})
    size, lines = MAX_FUNCTION_LINES + 1, len(long_module.read_text().splitlines())
    assert found == [
        f"pkg.long: {lines} lines (module limit {MAX_MODULE_LINES})",
        f"pkg.long.long_a: {size} lines (limit {MAX_FUNCTION_LINES})",
        f"pkg.long.long_b: {size} lines (limit {MAX_FUNCTION_LINES})",
    ]
