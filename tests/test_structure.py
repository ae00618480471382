"""The code's shape, checked: module and function sizes, layering, no probing or private reach-ins,
and every implementation of the controller API has what the Protocols declare."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGES = ("cosim", "netstack", "physics", "controllers", "spatial", "jit")
MODULES = sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))
MAX_MODULE_STATEMENTS = 250
MAX_FUNCTION_STATEMENTS = 40


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _statements(node: ast.AST) -> int:
    """Statements under `node`, docstrings not counted: what a reader reads, however it is laid out."""
    return sum(1 for n in ast.walk(node) if isinstance(n, ast.stmt) and not _is_docstring(n))


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def test_modules_and_functions_are_small_in_statements():
    """At most 250 statements a module and 40 a function (its own line not counted): a size for
    readers, which blank lines, docstrings and wrapping neither add to nor hide."""
    long_modules = [f"{_rel(p)}: {n} statements" for p in MODULES if (n := _statements(_tree(p))) > MAX_MODULE_STATEMENTS]
    long_functions = [
        f"{_rel(p)}:{node.lineno} {node.name}: {n} statements"
        for p in MODULES for node in ast.walk(_tree(p))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (n := _statements(node) - 1) > MAX_FUNCTION_STATEMENTS
    ]
    assert long_modules == [] and long_functions == []


def _root(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return ast.unparse(node)


def _is_packed(node: ast.AST) -> bool:
    """`a, b = x, y` that would mean the same written one assignment a line: no value reads what a
    target before it sets (a name, or the object whose attribute or item it sets). A swap or a
    recurrence such as `a, b = b, a + b` needs the tuple, and is not packed."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
            and isinstance(node.value, ast.Tuple) and len(node.targets[0].elts) == len(node.value.elts)):
        return False
    targets, values = node.targets[0].elts, node.value.elts
    if any(isinstance(x, (ast.Starred, ast.Tuple, ast.List)) for x in [*targets, *values]):
        return False
    set_before: set[str] = set()
    for target, value in zip(targets, values):
        if {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & set_before:
            return False
        set_before.add(_root(target))
    return True


def test_no_unrelated_assignments_are_packed_into_one_line():
    """One assignment a line: `a, b = 1, 2` and `a = 1; b = 2` are refused (tuple unpacking of a call's
    result, swaps and recurrences stay)."""
    packed = [f"{_rel(p)}:{node.lineno}" for p in MODULES for node in ast.walk(_tree(p)) if _is_packed(node)]
    shared = []
    for p in MODULES:
        for node in ast.walk(_tree(p)):
            fields = [getattr(node, name, None) for name in ("body", "orelse", "finalbody")]
            body = [s for field in fields if isinstance(field, list) for s in field]
            lines = [s.lineno for s in body]
            shared += [f"{_rel(p)}:{n}" for n in sorted({n for n in lines if lines.count(n) > 1})]
    assert packed == [] and shared == []


def test_no_hasattr_probing_in_the_library():
    found = [f"{_rel(p)}:{node.lineno}" for p in MODULES for node in ast.walk(_tree(p))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr"]
    assert found == []


def _private_reads(path: Path) -> list[str]:
    """`x._name` where x is not self/cls and the module never defines `_name` itself."""
    tree = _tree(path)
    own = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    own |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    own |= {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)}
    own |= {n for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for stmt in node.body
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Tuple, ast.List))
            for elt in stmt.value.elts if isinstance(elt, ast.Constant) and isinstance(n := elt.value, str)}  # __slots__
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if isinstance(node.value, ast.Name) and node.value.id == "np":
                continue  # numpy's own ufunc module, used for speed on small arrays (physics.bodies.quadrotor)
            if isinstance(node.value, ast.Name) and node.value.id == "os" and node.attr == "_exit":
                continue  # the documented way to end a process without waiting for its threads
            if node.attr not in own:
                out.append(f"{_rel(path)}:{node.lineno} .{node.attr}")
    return out


def test_no_private_attribute_is_read_across_modules():
    found = [hit for p in MODULES for hit in _private_reads(p)]
    assert found == []


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


# What each place may not import: packages depend downward, and so do cosim's subpackages.
_ABOVE_CORE = ("cosim.scenario", "cosim.assembly", "cosim.execution", "cosim.output", "cosim.sweep", "cosim.report",
               "cosim.mavlink", "cosim.cli", "cosim.view", "cosim.stream")
FORBIDDEN = {
    "jit": ("cosim", "controllers", "netstack", "physics", "spatial"),
    "spatial": ("cosim", "controllers", "netstack", "physics"),
    "netstack": ("cosim", "controllers", "physics"),
    "physics": ("cosim", "controllers", "netstack"),
    "controllers": ("cosim",),
    "cosim/core": (*_ABOVE_CORE, "cosim.fused_engine"),
    "cosim/fused_engine": _ABOVE_CORE,
    "cosim/scenario": ("cosim.assembly", "cosim.execution", "cosim.output", "cosim.sweep", "cosim.report", "cosim.cli"),
    "cosim/output": ("cosim.assembly", "cosim.execution", "cosim.sweep", "cosim.report", "cosim.cli"),
    "cosim/assembly": ("cosim.execution", "cosim.sweep", "cosim.report", "cosim.cli"),
    "cosim/execution": ("cosim.sweep", "cosim.report", "cosim.cli"),
    "cosim/sweep": ("cosim.report",),
    "cosim/mavlink": ("cosim.scenario", "cosim.assembly", "cosim.execution", "cosim.output", "cosim.sweep", "cosim.report",
                      "cosim.cli"),
    "cosim/mavlink/serve": ("cosim.mavlink.client", "cosim.mavlink.sitl", "cosim.mavlink.bridge"),
    "cosim/mavlink/client": ("cosim.mavlink.serve", "cosim.mavlink.sitl", "cosim.mavlink.bridge", "cosim.mavlink.ghosts"),
    "cosim/mavlink/sitl": ("cosim.mavlink.client", "cosim.mavlink.bridge"),
    "cosim/view": ("cosim.scenario", "cosim.assembly", "cosim.execution", "cosim.sweep", "cosim.mavlink", "cosim.cli"),
    "cosim/topology": (*_ABOVE_CORE, "cosim.fused_engine"),
    "cosim/stream": ("cosim.scenario", "cosim.assembly", "cosim.execution", "cosim.output", "cosim.sweep", "cosim.report",
                     "cosim.mavlink", "cosim.cli", "cosim.view"),
    "physics/bodies": ("physics.pybullet", "physics.sensors", "physics.scene.props"),
    "physics/kinematic": ("physics.pybullet",),
    "physics/pybullet": ("physics.kinematic.world", "physics.kinematic.compiled"),
}


@pytest.mark.parametrize("place", sorted(FORBIDDEN))
def test_packages_depend_downward(place):
    bad = [f"{_rel(p)} imports {m}" for p in sorted((ROOT / place).rglob("*.py")) for m in _imports(p)
           if any(m == f or m.startswith(f + ".") for f in FORBIDDEN[place])]
    assert bad == []


def test_no_subpackage_shadows_an_exported_function():
    import cosim.assembly.simulation
    import cosim.execution.execute
    import cosim.scenario.loading

    for name in ("build", "run", "load", "from_dict", "read_run"):
        assert inspect.isfunction(getattr(cosim, name)), name
    assert not any((ROOT / "cosim" / name).exists() for name in ("build", "run", "load", "build.py", "run.py"))


def _members(protocol: type) -> dict[str, object]:
    names = [n for n in dir(protocol) if not n.startswith("_")] + list(getattr(protocol, "__annotations__", {}))
    return {n: inspect.getattr_static(protocol, n, None) for n in names}


def _implementations():
    from controllers import Net, Robot, Services
    from cosim.core.net_handle import NetHandle
    from cosim.core.services import SimServices
    from cosim.mavlink.client.remote_robot import MavlinkRobot, NoNetwork, WallClockServices
    from cosim.mavlink.ghosts import GhostRobot
    from physics.robot import Robot as SimRobot

    return [(Robot, SimRobot), (Robot, GhostRobot), (Robot, MavlinkRobot), (Net, NetHandle), (Net, NoNetwork),
            (Services, SimServices), (Services, WallClockServices)]


@pytest.mark.parametrize("protocol, cls", _implementations(), ids=lambda x: x.__name__)
def test_every_implementation_has_what_the_protocol_declares(protocol, cls):
    """Simulated robots, MAVLink-flown robots and ghosts give a controller the same API, with the same
    parameters (attributes such as `id` and `sensors` are set by the constructor)."""
    init_sets = {node.attr for node in ast.walk(ast.parse(inspect.getsource(cls)))
                 if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    slots = set(getattr(cls, "__slots__", ()))
    missing, differ = [], []
    for name, member in _members(protocol).items():
        impl = inspect.getattr_static(cls, name, None)
        if impl is None:
            if name not in init_sets and name not in slots:
                missing.append(name)
            continue
        if inspect.isfunction(member):
            want = list(inspect.signature(member).parameters)
            got = list(inspect.signature(impl).parameters) if inspect.isfunction(impl) else None
            if got != want:
                differ.append(f"{name}{want} vs {got}")
        elif isinstance(member, property) and not isinstance(impl, property):
            differ.append(f"{name} should be a property")
    assert missing == [] and differ == []


def _undocumented(path: Path) -> list[str]:
    """Public methods and properties of the public classes in `path` that have no docstring."""
    missing = []
    for node in ast.walk(_tree(path)):
        if not (isinstance(node, ast.ClassDef) and not node.name.startswith("_")):
            continue
        for member in node.body:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and not member.name.startswith("_") \
                    and ast.get_docstring(member) is None:
                missing.append(f"{_rel(path)}: {node.name}.{member.name}")
    return missing


def test_the_controller_contract_documents_every_public_member():
    """What a controller sees (controllers/api) is read from its docstrings: the API reference leaves
    out what has none, so every public method and property has one."""
    missing = [m for p in sorted((ROOT / "controllers" / "api").glob("*.py")) for m in _undocumented(p)]
    assert missing == []
