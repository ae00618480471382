"""Pace a standalone vehicle model and its MAVLink endpoints to the wall clock (real-time factor 1 by default)."""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from physics.diff_drive import DiffDriveBank

log = logging.getLogger(__name__)


class Steppable(Protocol):
    """A model advanced one fixed `tick` (s) per `step()`; `t` is its simulated time (s)."""

    tick: float
    t: float

    def step(self) -> None: ...


class DriveStepper:
    """A DiffDriveBank as a Steppable (all robots alive), for standalone rover endpoints."""

    def __init__(self, drives: DiffDriveBank, tick: float = 0.01) -> None:
        self.drives = drives
        self.tick = tick
        self.t = 0.0
        self._alive = np.ones(drives.n, dtype=bool)

    def step(self) -> None:
        self.drives.step(self.tick, self._alive)
        self.t += self.tick


@dataclass
class PacingStats:
    """Waits made (ticks or polls), how many came late (by more than the allowed lateness), and the
    worst lateness (s)."""

    ticks: int = 0
    overruns: int = 0
    worst_late_s: float = 0.0


class Pacer:
    """Holds simulated time to `speed` times the wall clock: `wait(t_s)` sleeps until the wall clock
    reaches simulated time `t_s`, or counts (and at most every 5 simulated seconds logs) an overrun
    when it is already more than `late_after_s` past it."""

    def __init__(self, speed: float = 1.0, late_after_s: float = 0.0) -> None:
        self.speed = speed
        self.late_after_s = late_after_s
        self.stats = PacingStats()
        self.restart()

    def restart(self) -> None:
        """Simulated time 0 is now."""
        self._t0 = time.perf_counter()
        self._last_warning = -math.inf

    def wait(self, t_s: float) -> None:
        st = self.stats
        st.ticks += 1
        ahead = self._t0 + t_s / self.speed - time.perf_counter()
        if ahead > 0:
            time.sleep(ahead)
        elif -ahead > self.late_after_s:
            st.overruns += 1
            st.worst_late_s = max(st.worst_late_s, -ahead)
            if t_s - self._last_warning > 5.0:
                log.warning("real-time pacing: %.1f ms behind at t = %.2f s", -ahead * 1e3, t_s)
                self._last_warning = t_s


def run_realtime(bank: Steppable, endpoints: list, duration_s: float, poll_every: int = 4,
                 speed: float = 1.0, stop: threading.Event | None = None) -> PacingStats:
    """Step the model (a QuadrotorBank or a DriveStepper) at its tick, poll each endpoint every
    `poll_every` ticks, and sleep so that simulated time runs at `speed` times the wall clock."""
    pacer = Pacer(speed, late_after_s=bank.tick)
    for k in range(round(duration_s / bank.tick)):
        if stop is not None and stop.is_set():
            break
        bank.step()
        if k % poll_every == 0:
            for ep in endpoints:
                ep.poll(bank.t)
        pacer.wait(bank.t)
    return pacer.stats
