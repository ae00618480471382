"""One progress line on stderr for long work: a run (simulated time, real-time factor, time left) or
a sweep (done, failed, remaining, time left). Redrawn in place on a terminal; in a log file, a line
every `interval_s` of wall time."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressLine:
    """`run(now_ns, end_ns, wall_s)` and `sweep(done, failed, remaining, total, wall_s)` are the two
    callbacks (a Simulation's and a sweep runner's progress); both draw on the same line."""

    def __init__(self, stream: TextIO | None = None, interval_s: float | None = None) -> None:
        self.stream = stream or sys.stderr
        self._tty = self.stream.isatty()
        self.interval_s = interval_s if interval_s is not None else (0.5 if self._tty else 10.0)
        self._last = -1e9
        self._drawn = ""  # the progress line on screen, redrawn below a message

    def run(self, now_ns: int, end_ns: int, wall_s: float) -> None:
        """A run's progress: simulated time reached, real-time factor, wall time left."""
        frac = now_ns / end_ns if end_ns else 1.0
        rtf = f"{(now_ns / 1e9) / wall_s:6.2f}x real time" if wall_s > 0 and now_ns > 0 else "   ...x real time"
        left = f"~{wall_s * (1 - frac) / frac:5.0f} s left" if frac > 0 else "time left: estimating"
        self._draw(frac, f"{now_ns / 1e9:8.2f}/{end_ns / 1e9:.2f} s sim  {rtf}  {left}", now_ns >= end_ns)

    def sweep(self, done: int, failed: int, remaining: int, total: int, wall_s: float) -> None:
        """A sweep's progress: runs done, failed and remaining, wall time left at the pace so far."""
        finished = done + failed
        left = f", ~{wall_s / finished * remaining:.0f} s left" if finished else ""
        self._draw(finished / max(1, total), f"done {done}, failed {failed}, remaining {remaining} of {total}{left}",
                   True)

    def message(self, text: str) -> None:
        """A line of the run's own output (what a controller printed), above the progress line."""
        self.stream.write(("\r\x1b[K" if self._tty else "") + text + "\n")
        if self._tty and self._drawn:
            self.stream.write("\r" + self._drawn)
        self.stream.flush()

    def phase(self, text: str) -> None:
        """What is happening before the simulation starts (building, loading ns-3), on its own line."""
        self.stream.write(("\r" if self._tty else "") + text + "\n")
        self.stream.flush()

    def _draw(self, frac: float, text: str, force: bool) -> None:
        t = time.monotonic()
        if t - self._last < self.interval_s and not force:
            return
        self._last = t
        line = f"[{'#' * int(frac * 30):<30}] {text}"
        self._drawn = line
        self.stream.write("\r" + line if self._tty else line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()


def startup_phases(n_robots: int, network_backend: str) -> list[str]:
    """What a run does before its first simulated step, in words for the user."""
    out = [f"starting: building the scenario ({n_robots:,} robots)"]
    if network_backend == "ns3":
        out.append("starting: loading ns-3 (about 6 s and 550 MB, once per process)")
    return out
