"""Logging what untrusted senders do wrong without letting them flood the log: the first few
occurrences of each kind, then one line per interval with the count."""

from __future__ import annotations

import logging


class RateLimitedLog:
    """Warnings of one kind: the first `first` are logged, then at most one per `every_s` seconds
    (of the caller's clock), each with the running count."""

    def __init__(self, logger: logging.Logger, first: int = 5, every_s: float = 10.0) -> None:
        self._log = logger
        self.first = first
        self.every_s = every_s
        self.count = 0
        self._last = -float("inf")

    def warn(self, now: float, msg: str, *args) -> bool:
        """Count one occurrence; log it if it is among the first or the interval has passed. True if logged."""
        self.count += 1
        if self.count > self.first and now - self._last < self.every_s:
            return False
        self._last = now
        self._log.warning(msg + " (%d so far)", *args, self.count)
        return True
