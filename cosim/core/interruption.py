"""Telling a Ctrl-C or SIGTERM from a failure when it surfaces from compiled code."""

from __future__ import annotations


def interruption(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (Ctrl-C, or SIGTERM as Terminated) behind an exception, if any: a signal
    handler that raises while numba's compiled code runs surfaces as a SystemError caused by it."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None
