"""Signals during a run: the first SIGINT (Ctrl-C) or SIGTERM stops it (the run is recorded as
interrupted with what it computed); every later one, and every one after the results have begun to
be written, is only noted, so the writing is never cut short. Ctrl-C reaches a whole process group
at once (the CLI and its child run), often twice: that must not lose a result.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

from cosim.core.interruption import Terminated, defer, forget_raised, raised, stop_by_signal

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGXCPU)
"""Signals that end a run with its results written: Ctrl-C, a scheduler's or `kill`'s SIGTERM,
SIGHUP (the terminal closed) and SIGXCPU (a CPU-time limit reached)."""

_FATAL_BY_DEFAULT = (signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF)
"""Signals that would otherwise kill the process and lose the run; taken only while nothing else
handles them (a profiler's SIGPROF, a user's alarm), and ending the run as SIGTERM does."""

ENDING = _SIGNALS + _FATAL_BY_DEFAULT
"""Every signal a run may end by, with its results written."""


def _unhandled(signum: int) -> bool:
    """Whether the signal would kill the process, or end it as the `cosim` command's entry does."""
    return signal.getsignal(signum) in (signal.SIG_DFL, stop_by_signal)


def _name(signum: int) -> str:
    return signal.Signals(signum).name


class Interrupts:
    """One run's signal state: `armed` until the first signal (which raises) or `hold()`; `caught`
    lists every signal that arrived."""

    def __init__(self) -> None:
        self.armed = True
        self.caught: list[int] = []

    def handle(self, signum: int, frame: object) -> None:
        self.caught.append(signum)
        if self.armed:
            self.armed = False  # before raising: a second signal while this one unwinds is only noted
            exc = KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)
            if not defer(exc):  # else raised once the trace chunk being written is whole
                raise raised(exc)

    def hold(self) -> None:
        """From now on signals are only noted (the results are being written)."""
        self.armed = False


_active: list[Interrupts] = []


@contextlib.contextmanager
def interrupts() -> Iterator[Interrupts]:
    """Within the block the first SIGINT raises KeyboardInterrupt and the first SIGTERM Terminated;
    later ones are noted. Nested blocks share the outermost one's state, so a caller that publishes
    a run after it was written stays protected. Main thread only: elsewhere signals are not touched."""
    if threading.current_thread() is not threading.main_thread():
        yield Interrupts()
        return
    if _active:
        yield _active[0]
        return
    state = Interrupts()
    taken = _SIGNALS + tuple(s for s in _FATAL_BY_DEFAULT if _unhandled(s))
    before = {s: signal.signal(s, state.handle) for s in taken}
    _active.append(state)
    try:
        yield state
    finally:
        _active.pop()
        forget_raised()
        for s, handler in before.items():
            signal.signal(s, handler)


def reclaim() -> list[str]:
    """Put the running block's handlers back where user code replaced them (a controller's
    `signal.signal(SIGTERM, SIG_IGN)` would make the run unstoppable); the names of those signals.
    Main thread only, as `interrupts`."""
    if not _active or threading.current_thread() is not threading.main_thread():
        return []
    handle = _active[0].handle
    taken = []
    for s in _SIGNALS:
        if signal.getsignal(s) != handle:
            signal.signal(s, handle)
            taken.append(_name(s))
    return taken


def ignore_until_exit() -> None:
    """The work stopped as asked: a later Ctrl-C or SIGTERM before this process has exited changes
    nothing (one during the interpreter's exit would kill it by the signal, losing exit status 130).
    Main thread only, as `interrupts`."""
    if threading.current_thread() is threading.main_thread():
        for s in ENDING:
            if s in _SIGNALS or _unhandled(s):
                signal.signal(s, signal.SIG_IGN)
