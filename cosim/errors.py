"""User-facing errors: one clear message naming the file, the key path and what was expected."""

from __future__ import annotations

import sysconfig
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
# Frames in these are the engine's or a library's; the innermost frame elsewhere is the user's code.
_NOT_USER = tuple(str(p) for p in (
    *(_ROOT / name for name in ("cosim", "netstack", "physics", "jit", "controllers/api", "controllers/compiled",
                                "controllers/kilolib", "controllers/swarm")),
    *{Path(sysconfig.get_paths()[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib")},
))


class ScenarioError(Exception):
    """A scenario (or override) that cannot run as written."""

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source
        self.path = path
        self.message = message
        where = f"{source}: {path}" if path else source
        super().__init__(f"{where}: {message}")


class KeyValueError(ValueError):
    """A dataclass's `__post_init__` rejecting one of its keys: the scenario error names that key's
    path (`groups[0].robot.mass`), not only the section's."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


class ScenarioErrors(ScenarioError):
    """Several problems in one file, reported together so that one round of fixes is enough."""

    def __init__(self, errors: list[ScenarioError]) -> None:
        self.errors = errors
        first = errors[0]
        self.source = first.source
        self.path = first.path
        self.message = first.message
        lines = "\n".join(f"  {e.path or '(top level)'}: {e.message}" for e in errors)
        Exception.__init__(self, f"{first.source}: {len(errors)} errors:\n{lines}")


def combine(errors: list[ScenarioError]) -> ScenarioError:
    """One error for many: itself if there is one, else ScenarioErrors with nested ones flattened."""
    flat: list[ScenarioError] = []
    for e in errors:
        flat.extend(e.errors if isinstance(e, ScenarioErrors) else [e])
    return flat[0] if len(flat) == 1 else ScenarioErrors(flat)


class SimulationError(Exception):
    """User code (controller, routing) raised during a run; carries the node and simulated time."""

    def __init__(self, message: str, t_ns: int, node: int | None, traceback_text: str) -> None:
        self.t_ns = t_ns
        self.node = node
        self.traceback_text = traceback_text
        super().__init__(message)

    @classmethod
    def during(cls, exc: BaseException, t_ns: int, node: int | None, traceback_text: str) -> SimulationError:
        """`exc`, raised by user code at t_ns in node `node`'s code (None: no one robot's, such as a
        group controller's, which says whose in a note), as one line."""
        what = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, SystemExit):
            what = f"the code called sys.exit({exc.code!r}), which controllers cannot do: the run stops here"
        elif isinstance(exc, KeyboardInterrupt):
            what = "the code raised KeyboardInterrupt itself (no Ctrl-C or signal arrived): the run stops here"
        notes = "; ".join(getattr(exc, "__notes__", ()))
        where = f"node {node}, " if node is not None else ""
        code = user_frame(exc)
        return cls(f"{what}{f' ({notes})' if notes else ''} ({where}t = {t_ns / 1e9:.9f} s{code})", t_ns, node,
                   traceback_text)


def user_frame(exc: BaseException) -> str:
    """', in Class.method() at file.py:line' for the innermost frame of the traceback in user code
    (not the engine's packages, not the standard library or installed ones), or ''."""
    found = ""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not str(Path(code.co_filename).resolve()).startswith(_NOT_USER):
            found = f", in {code.co_qualname}() at {Path(code.co_filename).name}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found
