"""What controllers print and log during a run in a child process: every line goes to the run
directory's `console.txt` and up the child's stdout to the parent (which shows it above the
progress line), marked with the simulated time and, when a controller wrote it, its robot.

The child's stdout carries the parent's protocol too (progress, start-up phases); those lines start
with CONTROL, everything else is console output (including what C code writes to the descriptor).
"""

from __future__ import annotations

import inspect
import io
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from controllers.api.controller import Controller, Unbound
from controllers.api.group import GroupController

CONTROL = "\x1e"
"""First character of a protocol line on the child's stdout (ASCII record separator)."""
LIBRARIES = ("cosim", "netstack", "physics", "numba", "matplotlib", "PIL", "asyncio", "urllib3", "distributed", "rerun")
"""Loggers whose INFO is not shown (their warnings are); controllers' own loggers show from INFO on."""


class Clock:
    """The simulated time (ns) of the run being executed, once it has been built."""

    def __init__(self) -> None:
        self.now_ns: Callable[[], int] | None = None


def _who() -> str:
    """The robot (or group) whose controller code is writing, found on the call stack."""
    frame = inspect.currentframe()
    while frame is not None:
        me = frame.f_locals.get("self")
        try:
            if isinstance(me, Controller):
                return f" node {me.robot.id}"
            if isinstance(me, GroupController):
                return f" group {type(me).__name__}"
        except Unbound:
            return ""
        frame = frame.f_back
    return ""


class ConsoleStream(io.TextIOBase):
    """A text stream whose complete lines go, marked, to `pipe` and `keep` (and unmarked to `also`)."""

    def __init__(self, name: str, clock: Clock, pipe: TextIO, keep: TextIO, also: TextIO | None = None) -> None:
        self.name = name
        self.clock = clock
        self.pipe = pipe
        self.keep = keep
        self.also = also
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if self.also is not None:
            self.also.write(s)
        text = self._partial + s
        *lines, self._partial = text.split("\n")
        if lines:
            mark = self._mark()
            for line in lines:
                out = f"{mark} {line}\n"
                self.keep.write(out)
                self.pipe.write(out)
            self.keep.flush()
            self.pipe.flush()
        return len(s)

    def flush(self) -> None:
        if self.also is not None:
            self.also.flush()

    def close_line(self) -> None:
        """Write out a last line that has no newline."""
        if self._partial:
            self.write("\n")

    def _mark(self) -> str:
        now = self.clock.now_ns
        when = "start" if now is None else f"t = {now() / 1e9:.3f} s"
        where = "" if self.name == "stdout" else f" {self.name}"
        return f"[{when}{_who()}{where}]"


class _ShowControllers(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not record.name.startswith(LIBRARIES)


class LazyFile(io.TextIOBase):
    """A text file created on the first write (no console.txt for a run that printed nothing)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._f: TextIO | None = None

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if self._f is None:
            self._f = open(self.path, "a", encoding="utf-8")
        return self._f.write(s)

    def flush(self) -> None:
        if self._f is not None:
            self._f.flush()

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None  # io's close() flushes first: there is nothing left to flush
        super().close()


def install(clock: Clock, pipe: TextIO, keep: TextIO) -> tuple[ConsoleStream, ConsoleStream]:
    """In the child: sys.stdout and sys.stderr become console streams (stderr still also reaches the
    child's stderr file), and logging writes there: controllers' from INFO on, libraries' warnings."""
    out = ConsoleStream("stdout", clock, pipe, keep)
    err = ConsoleStream("stderr", clock, pipe, keep, also=sys.stderr)
    sys.stdout = out
    sys.stderr = err
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_ShowControllers())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    return out, err


def is_control(line: str) -> bool:
    return line.startswith(CONTROL)
