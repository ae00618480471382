"""Two whole-project checks the layering test cannot make: no import cycle between modules (imports
inside functions and under TYPE_CHECKING count: they hide a cycle, they do not break it), and every
test asserts something (an assert, pytest.raises or warns, or a helper of its own or of a tests
module it imports that does)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("cosim", "netstack", "physics", "controllers", "spatial", "jit", "benchmarks")

KNOWN_CYCLES: list[set[str]] = []
"""Cycles still to be cut, each listed here: a cycle not listed fails the test, and so does a listed
one that has gone (remove it)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _imported(node: ast.AST, here: str, is_package: bool) -> Iterator[str]:
    """The dotted names an import statement may refer to, most specific first."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = here.split(".")
            base = base[:len(base) - node.level + (1 if is_package else 0)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        for a in node.names:
            yield f"{module}.{a.name}"
        yield module


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            for target in _imported(node, name, path.name == "__init__.py"):
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):  # a package's own __init__
                    graph[name].add(target)
                    break
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_cycle_finder_finds_a_cycle_and_nothing_else():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [{"a", "b", "c"}]


def test_no_module_imports_itself_back():
    cycles = _cycles(_graph(_modules()))
    new = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in cycles]
    assert new == [] and gone == []


def _asserts(fn: ast.AST, helpers: dict[str, ast.FunctionDef], seen: frozenset[str] = frozenset()) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in ("raises", "warns", "fail") or name.startswith(("assert", "_assert")):
                return True
            if name in helpers and name not in seen and _asserts(helpers[name], helpers, seen | {name}):
                return True
    return False


def _helpers(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """The functions a test module defines (methods included) or imports from another tests module."""
    out = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tests."):
            source = ROOT / Path(*node.module.split(".")).with_suffix(".py")
            if source.exists():
                theirs = {n.name: n for n in ast.walk(ast.parse(source.read_text())) if isinstance(n, ast.FunctionDef)}
                out.update({a.asname or a.name: theirs[a.name] for a in node.names if a.name in theirs})
    return out


def test_every_test_asserts_something():
    silent = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text())
        helpers = _helpers(tree)
        silent += [f"{path.relative_to(ROOT)}:{n.lineno} {n.name}" for n in ast.walk(tree)
                   if isinstance(n, ast.FunctionDef) and n.name.startswith("test_") and not _asserts(n, helpers)]
    assert silent == []
