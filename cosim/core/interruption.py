"""Telling a Ctrl-C or SIGTERM from a failure when it surfaces from compiled code, and stretches
that one must not cut in two."""

from __future__ import annotations

import signal


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler, `kill`, a container stopping), SIGHUP (the terminal closed), SIGXCPU
    (a CPU-time limit) or another signal that would kill the process arrived; the message names which."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


def stop_by_signal(signum: int, frame: object) -> None:
    """A handler that ends what runs as Ctrl-C does: KeyboardInterrupt for SIGINT, Terminated for
    the others (the `cosim` command's, from its first instant; cosim.execution.signals takes over from it)."""
    raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signum)


class _Raised:
    """The interruption a signal handler raised in this process, until `forget_raised`."""

    exc: KeyboardInterrupt | None = None


def raised(exc: KeyboardInterrupt) -> KeyboardInterrupt:
    """Note that a signal handler raises `exc` now, and return it (for `raise raised(exc)`)."""
    _Raised.exc = exc
    return exc


def pending() -> KeyboardInterrupt | None:
    """The interruption a signal handler raised, while the block that handles signals runs: once
    raised it ends the run, so a loop that is still running finds it swallowed where it landed
    (numba's compiler, or code that catches everything) and raises it again."""
    return _Raised.exc


def forget_raised() -> None:
    """The block that handled the signals has ended: a later exception is no interruption."""
    _Raised.exc = None


def interruption(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (Ctrl-C, or SIGTERM as Terminated) behind an exception, if any. A signal
    handler that raises while numba's compiled code runs surfaces as a SystemError caused by it, or,
    when it lands while numba unboxes an argument, as a TypeError that has lost it ("can't unbox a
    List as a <NULL>"): then the interruption the handler raised is the answer."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return _Raised.exc


class _Section:
    """A stretch a Ctrl-C or SIGTERM must not cut in two (a trace chunk written and counted), used as
    `with uninterrupted:`. An interruption that arrives within it (cosim.execution.signals hands it to
    `defer`) is raised at its end instead. A plain class: entered per trace flush, a generator-based
    context manager cost 1-2 us each time."""

    depth = 0
    pending: KeyboardInterrupt | None = None

    def __enter__(self) -> None:
        _Section.depth += 1

    def __exit__(self, *exc: object) -> None:
        _Section.depth -= 1
        if _Section.depth == 0 and _Section.pending is not None:
            pending = _Section.pending
            _Section.pending = None
            raise pending


uninterrupted = _Section()


def defer(exc: KeyboardInterrupt) -> bool:
    """Within `uninterrupted`, keep `exc` for its end and say so (True); else False (raise it now)."""
    if _Section.depth == 0:
        return False
    _Section.pending = _Section.pending or exc
    return True
