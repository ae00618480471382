"""Threads user code started and never ended: a process that waits for them never exits, so a
command that has written its results ends without them, saying so."""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger(__name__)


def _left() -> list[str]:
    return [t.name for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]


def warn_of_leftover_threads() -> None:
    """Log a warning naming the threads (not daemons) still running once the results are written."""
    left = _left()
    if left:
        log.warning("user code left %d thread(s) running (%s); the results are written, and the process ends without "
                    "waiting for them (start threads with daemon=True, or end them)", len(left), ", ".join(left))


def exit_despite_threads(code: int) -> int:
    """`code`; or, when threads that are not daemons still run, an immediate exit with `code` (Python
    would otherwise wait for them forever)."""
    if not _left():
        return code
    try:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:  # a stream already closed must not keep the process alive
        os._exit(code)
