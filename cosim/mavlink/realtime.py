"""Pace a standalone vehicle model and its MAVLink endpoints to the wall clock (real-time factor 1 by default)."""

from __future__ import annotations

import logging
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
    """Ticks run, how many finished late (by more than one tick), and the worst lateness (s)."""

    ticks: int = 0
    overruns: int = 0
    worst_late_s: float = 0.0


def run_realtime(bank: Steppable, endpoints: list, duration_s: float, poll_every: int = 4,
                 speed: float = 1.0, stop: threading.Event | None = None) -> PacingStats:
    """Step the model (a QuadrotorBank or a DriveStepper) at its tick, poll each endpoint every `poll_every` ticks, and sleep so
    that simulated time runs at `speed` times the wall clock. Overruns are counted and logged."""
    stats = PacingStats()
    t0 = time.perf_counter()
    ticks = round(duration_s / bank.tick)
    last_warning = -1.0
    for k in range(ticks):
        if stop is not None and stop.is_set():
            break
        bank.step()
        stats.ticks += 1
        if k % poll_every == 0:
            for ep in endpoints:
                ep.poll(bank.t)
        ahead = t0 + bank.t / speed - time.perf_counter()
        if ahead > 0:
            time.sleep(ahead)
        elif -ahead > bank.tick:
            stats.overruns += 1
            stats.worst_late_s = max(stats.worst_late_s, -ahead)
            if bank.t - last_warning > 5.0:
                log.warning("real-time pacing: %.1f ms behind at t = %.2f s", -ahead * 1e3, bank.t)
                last_warning = bank.t
    return stats
