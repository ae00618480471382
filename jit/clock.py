"""Wall time spent compiling kernels with numba in this process, so that a run's speed figures can
leave it out. numba compiles a kernel on its first call when its on-disk cache (jit/cache.py)
has no machine code for it: the first run on a machine, or after the compiled code changed. Loads
from the cache are not compiles and are not counted.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


class CompileClock:
    """Seconds of wall time inside numba's outermost compiles (a kernel compiling the kernels it
    calls counts once), and a callback told when one starts."""

    def __init__(self) -> None:
        self.total_s = 0.0
        self._on_first: Callable[[], None] | None = None
        self._depth = 0
        self._since = 0.0

    def tell_first(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` when the next outermost compile starts (once); None: tell nobody."""
        self._on_first = callback

    @property
    def compiling(self) -> bool:
        """Whether a compile is under way now."""
        return self._depth > 0

    def so_far(self) -> float:
        """total_s, with the compile under way now (if any) counted up to this moment."""
        return self.total_s + (time.perf_counter() - self._since if self._depth else 0.0)

    def started(self) -> None:
        self._depth += 1
        if self._depth == 1:
            self._since = time.perf_counter()
            if self._on_first is not None:
                tell = self._on_first
                self._on_first = None
                tell()

    def ended(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.total_s += time.perf_counter() - self._since


CLOCK = CompileClock()
_listening = False


def watch() -> bool:
    """Start counting compiles in this process, if numba is loaded (loading it only to watch would
    cost a run that never compiles about 0.4 s); True once counting."""
    global _listening
    if _listening or "numba" not in sys.modules:
        return _listening
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, event_: event.Event) -> None:
            CLOCK.started()

        def on_end(self, event_: event.Event) -> None:
            CLOCK.ended()

    event.register("numba:compile", _Listener())
    _listening = True
    return True
