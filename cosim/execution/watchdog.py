"""A run's watchdog (`watchdog: 10 s` in the scenario): when simulated time has not moved for that
long of wall time, user code is stuck (a controller's `while True`), and the run is stopped there,
naming the robot whose code was running. Time spent compiling kernels does not count."""

from __future__ import annotations

import ctypes
import threading
import time
from typing import TYPE_CHECKING

from jit.clock import CLOCK

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation


class Stuck(Exception):
    """Raised in the simulation's thread by the watchdog; the message is set on a subclass."""


class Watchdog:
    """Watches `sim` from a thread of its own while the block runs; `limit_s` of wall time without
    simulated time moving raises Stuck in the thread that runs the simulation."""

    def __init__(self, sim: Simulation, limit_s: float, poll_s: float = 0.2) -> None:
        self._sim = sim
        self._limit_s = limit_s
        self._poll_s = poll_s
        self._target = threading.get_ident()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="cosim-watchdog", daemon=True)

    def __enter__(self) -> Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        seen = self._sim.clock.now_ns
        since = time.monotonic()
        compiled = CLOCK.so_far()
        while not self._done.wait(self._poll_s):
            now = self._sim.clock.now_ns
            compiling = CLOCK.so_far()
            if now != seen or compiling != compiled:
                seen = now
                since = time.monotonic()
                compiled = compiling
            elif time.monotonic() - since > self._limit_s:
                self._stop(now)
                return

    def _stop(self, t_ns: int) -> None:
        node = self._sim.clock.current_node
        whose = f"robot {node}'s code" if node is not None else "user code (a group controller or a handler)"
        text = (f"{whose} has not returned for {self._limit_s:g} s of wall time (watchdog), at t = {t_ns / 1e9:.9f} s "
                "simulated: a loop that never ends?")
        stuck = type("Stuck", (Stuck,), {"__str__": lambda self: text})
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._target), ctypes.py_object(stuck))
