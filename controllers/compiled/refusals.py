"""Why a compiled program is refused, in one line naming the file, the line, the callback and the
construct: checks of the callbacks' source before numba sees them (print, names, record names), and
numba's own errors rewritten (docs/kilolib.md lists what compiles)."""

from __future__ import annotations

import ast
import builtins
import difflib
import inspect
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controllers.compiled import core

SUBSET = "docs/kilolib.md lists what compiles"


class ProgramError(ValueError):
    """A compiled program uses something outside the compiled subset (docs/kilolib.md)."""


def _callback_trees(cls: type) -> Iterator[tuple[str, Any, ast.AST, list[str], int]]:
    """Each callback's (name, Python function, parsed source, source lines, first line number)."""
    for callback, fn in cls.callbacks.items():
        try:
            src, first = inspect.getsourcelines(fn.py_func)
        except (OSError, TypeError):
            continue
        yield callback, fn.py_func, ast.parse(textwrap.dedent("".join(src))), src, first


def _refusal(cls: type, callback: str, first: int, src: list[str], node: ast.AST, what: tuple[str, str]) -> ProgramError:
    """`<file>:<line>: <Class>.<callback> <what> in `<code>` (<advice>)`."""
    line = first + node.lineno - 1
    return ProgramError(f"{inspect.getsourcefile(cls)}:{line}: {cls.__name__}.{callback} {what[0]} in "
                        f"`{src[node.lineno - 1].strip()}` ({what[1]})")


def check_source(cls: type) -> None:
    """Refuse, before compiling, what numba would compile wrongly or explain badly: print() (it writes
    outside any robot and simulated time, and from a fused stretch onto a console the run does not
    keep), a name the callback cannot see, a record name the class does not list."""
    for callback, fn, tree, src, first in _callback_trees(cls):
        known = _visible_names(fn, tree)
        for node in ast.walk(tree):
            what = _print_call(node) or _unknown_name(node, known) or _unlisted_record(cls, fn, node)
            if what:
                raise _refusal(cls, callback, first, src, node, what)


def _print_call(node: ast.AST) -> tuple[str, str] | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
        advice = f"a compiled program has no console: record() a metric instead; {SUBSET}"
        return "is outside the compiled subset: print()", advice
    return None


def _visible_names(fn: Any, tree: ast.AST) -> set[str]:
    """The names a callback can read: its arguments and locals (anything it binds), its module's
    globals, its closure, the builtins."""
    bound = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    bound |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ExceptHandler)) and n.name}
    bound |= {(a.asname or a.name).split(".")[0] for a in ast.walk(tree) if isinstance(a, ast.alias)}
    return bound | set(fn.__globals__) | set(fn.__code__.co_freevars) | set(vars(builtins))


def _unknown_name(node: ast.AST, known: set[str]) -> tuple[str, str] | None:
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in known):
        return None
    if node.id == "self":
        return "uses `self`, which it does not have", "a compiled callback's state is its first argument, s: write s.field"
    return f"uses the name {node.id!r}", "neither its argument, its local, nor a global of its module"


_RECORDERS = {id(core.record): 1, id(core.record_row): 2}
"""The record calls, by the position of their name argument."""


def _unlisted_record(cls: type, fn: Any, node: ast.AST) -> tuple[str, str] | None:
    if not isinstance(node, ast.Call):
        return None
    position = _RECORDERS.get(id(_resolve(node.func, fn.__globals__)))
    if position is None or len(node.args) <= position:
        return None
    name = node.args[position]
    if not isinstance(name, ast.Constant) or not isinstance(name.value, str) or name.value in cls.records:
        return None
    listed = ", ".join(repr(r) for r in cls.records) or "none"
    near = difflib.get_close_matches(name.value, cls.records, n=1)
    hint = f"did you mean {near[0]!r}?" if near else "add it there"
    return f"records {name.value!r}", f"the class's `records` does not list it: {listed}; {hint}"


def _resolve(func: ast.AST, names: dict[str, Any]) -> Any:
    """What a called name or dotted name refers to in the callback's module, or None."""
    if isinstance(func, ast.Name):
        return names.get(func.id)
    if isinstance(func, ast.Attribute):
        return getattr(_resolve(func.value, names), func.attr, None)
    return None


_COMMAND = re.compile(r"\b(drive|set_velocity|broadcast|send|every)\(")
_TIMER = re.compile(r"\bevery\(")


def controller_command(cls: type, exc: Exception) -> ProgramError | None:
    """A kilolib program's callback giving a general controller's command (its context's command
    buffers are read-only), with the first line that does; None for any other error."""
    return _read_only(cls, exc, _COMMAND, "gives a compiled controller's command",
                      "a kilolib program moves with set_motors and sends from message_tx")


def group_timer(cls: type, exc: Exception) -> ProgramError | None:
    """A group's step starting a timer (its context's timer buffers are read-only), with its line;
    None for any other error."""
    return _read_only(cls, exc, _TIMER, "starts a timer", "a group's timers are Python's: start them with self.every")


def _read_only(cls: type, exc: Exception, pattern: re.Pattern, what: str, instead: str) -> ProgramError | None:
    """numba's refusal to write a read-only buffer of the context as the command `pattern` finds."""
    text = _ANSI.sub("", str(exc))
    found = _first_line(cls, pattern) if "setitem(readonly array" in text or "Cannot modify" in text else None
    if found is None:
        return None
    callback, line, code = found
    return ProgramError(f"{inspect.getsourcefile(cls)}:{line}: {cls.__name__}.{callback} {what} in `{code}`: {instead} "
                        "(docs/kilolib.md)")


def _first_line(cls: type, pattern: re.Pattern) -> tuple[str, int, str] | None:
    """The first line of the class's callbacks that `pattern` finds: (callback, line number, code)."""
    for callback, fn in cls.callbacks.items():
        try:
            src, first = inspect.getsourcelines(fn.py_func)
        except (OSError, TypeError):
            continue
        for n, text in enumerate(src):
            if pattern.search(text):
                return callback, first + n, text.strip()
    return None


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_WHERE = (re.compile(r'File "([^"]+)", line (\d+)'), re.compile(r"at (\S+\.py) \((\d+)\)"))
_TELLING = ("in the class's `records`", "in the controller's `timers`",
            "Unknown attribute", "Untyped global name", "Use of unsupported",
            "Cannot determine Numba type", "NameError",
            "Invalid use of", "Cannot unify", "No implementation of function", "Cannot", "Unsupported")


def _construct(lines: list[str]) -> str:
    """The line of numba's message that names the construct (with the signature it could not match)."""
    for key in _TELLING:
        for n, ln in enumerate(lines):
            if ln.startswith(key) or (key in ln and not ln.startswith(("During", "File", "-"))):
                nxt = lines[n + 1] if n + 1 < len(lines) else ""
                return f"{ln} {nxt.lstrip('> ')}" if nxt.startswith(">>>") else ln
    return next((ln for ln in lines if not ln.startswith(("Failed in", "During:", "File "))), "a construct numba cannot type")


def explain(cls: type, exc: Exception) -> ProgramError:
    """numba's error as one line: where in the program, what construct, and where the subset is listed."""
    text = _ANSI.sub("", str(exc))
    source = Path(inspect.getsourcefile(cls)).resolve()
    where = [(f, int(n)) for pattern in _WHERE for f, n in pattern.findall(text) if Path(f).resolve() == source]
    what = _construct([ln.strip() for ln in text.splitlines() if ln.strip()])
    if not where:
        return ProgramError(f"{cls.__name__}: outside the compiled subset: {what} ({SUBSET})")
    line = where[0][1]
    code = source.read_text().splitlines()[line - 1].strip()
    callback = next((name for name, fn in cls.callbacks.items() if _spans(fn, line)), "a callback")
    return ProgramError(f"{source}:{line}: {cls.__name__}.{callback} is outside the compiled subset: {what} "
                        f"in `{code}` ({SUBSET})")


def unknown_field(cls: type, name: str) -> ProgramError:
    """A state field the callbacks use and `fields` does not declare, with the first line using it."""
    declared = ", ".join(cls.fields) or "none"
    found = _first_line(cls, re.compile(rf"\.{re.escape(name)}\b"))
    if found is not None:
        callback, line, code = found
        return ProgramError(f"{inspect.getsourcefile(cls)}:{line}: {cls.__name__}.{callback} uses state field {name!r}, "
                            f"which `fields` does not declare (declared: {declared}) in `{code}`")
    return ProgramError(f"{cls.__name__}: a callback uses state field {name!r}, which `fields` does not declare "
                        f"(declared: {declared})")


def _spans(fn: Any, line: int) -> bool:
    try:
        src, first = inspect.getsourcelines(fn.py_func)
    except (OSError, TypeError):
        return False
    return first <= line < first + len(src)
