"""A progress line on stderr for long runs: simulated time, real-time factor, time left."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressLine:
    """Call with (now_ns, end_ns, wall_s); redraws at most every `interval_s` of wall time."""

    def __init__(self, stream: TextIO | None = None, interval_s: float | None = None) -> None:
        self.stream = stream or sys.stderr
        self._tty = self.stream.isatty()
        # redraw in place on a terminal; in a log file, a line every 10 s of wall time
        self.interval_s = interval_s if interval_s is not None else (0.5 if self._tty else 10.0)
        self._last = -1e9

    def __call__(self, now_ns: int, end_ns: int, wall_s: float) -> None:
        t = time.monotonic()
        done = now_ns >= end_ns
        if t - self._last < self.interval_s and not done:
            return
        self._last = t
        frac = now_ns / end_ns if end_ns else 1.0
        rtf = (now_ns / 1e9) / wall_s if wall_s > 0 else float("inf")
        left = f"~{wall_s * (1 - frac) / frac:5.0f} s left" if frac > 0 else "time left: estimating"
        bar = "#" * int(frac * 30)
        text = f"[{bar:<30}] {now_ns / 1e9:8.2f}/{end_ns / 1e9:.2f} s sim  {rtf:6.2f}x real time  {left}"
        if self._tty:
            self.stream.write("\r" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()
