"""Signals during a run: SIGTERM stops it like Ctrl-C (the run is recorded as interrupted with
what it computed), and while a run writes its results neither signal cuts the writing short."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (a scheduler, `kill`, a container stopping)."""


def _on_term(signum, frame) -> None:
    raise Terminated("terminated by SIGTERM")


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block SIGTERM raises Terminated (main thread only; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@contextlib.contextmanager
def deferred(caught: list[int]) -> Iterator[None]:
    """Within the block SIGINT and SIGTERM are noted in `caught` instead of interrupting (main
    thread only), so results being written are written whole."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
