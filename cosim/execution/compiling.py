"""A run's kernel compiles (numba's, jit.clock): said when the first starts, ticked while one lasts,
and taken out of the wall time its progress shows."""

from __future__ import annotations

import logging
import threading

from cosim.core.plans import PhaseFn, ProgressFn
from jit.clock import CLOCK, watch

log = logging.getLogger(__name__)

TEXT = "compiling kernels (first run of this code on this machine; cached afterwards, see `cosim warm`)"
TICK_S = 10.0
"""While one compile lasts (a big kernel takes a minute on a slow machine), how often to say how long so far."""


class CompileWatch:
    """Counts one run's compiles from its construction until stop()."""

    def __init__(self, progress: ProgressFn | None, phase: PhaseFn | None) -> None:
        self.since_s = CLOCK.total_s
        self.shown = progress
        self._say = phase if phase is not None else log.info
        self._stop = threading.Event()
        if watch():
            CLOCK.tell_first(self._first)

    @property
    def compile_s(self) -> float:
        return CLOCK.so_far() - self.since_s

    def progress(self, now_ns: int, end_ns: int, wall_s: float) -> None:
        if self.shown is not None:
            self.shown(now_ns, end_ns, max(wall_s - self.compile_s, 0.0))

    def stop(self) -> None:
        """The run is over: tell nobody of later compiles (the next run in this process is told its own)."""
        CLOCK.tell_first(None)
        self._stop.set()

    def _first(self) -> None:
        self._say(TEXT)
        threading.Thread(target=self._tick, name="compile-ticker", daemon=True).start()

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            if CLOCK.compiling:
                self._say(f"compiling kernels: {self.compile_s:.0f} s so far")
