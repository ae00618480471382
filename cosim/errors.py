"""User-facing errors: one clear message naming the file, the key path and what was expected."""

from __future__ import annotations


class ScenarioError(Exception):
    """A scenario (or override) that cannot run as written."""

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source
        self.path = path
        self.message = message
        where = f"{source}: {path}" if path else source
        super().__init__(f"{where}: {message}")


class SimulationError(Exception):
    """User code (controller, routing) raised during a run; carries the node and simulated time."""

    def __init__(self, message: str, t_ns: int, node: int | None, traceback_text: str) -> None:
        self.t_ns = t_ns
        self.node = node
        self.traceback_text = traceback_text
        super().__init__(message)
