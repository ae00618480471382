"""Pace a quadrotor bank and its MAVLink endpoints to the wall clock (real-time factor 1 by default)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from physics.quadrotor import QuadrotorBank

log = logging.getLogger(__name__)


@dataclass
class PacingStats:
    """Ticks run, how many finished late (by more than one tick), and the worst lateness (s)."""

    ticks: int = 0
    overruns: int = 0
    worst_late_s: float = 0.0


def run_realtime(bank: QuadrotorBank, endpoints: list, duration_s: float, poll_every: int = 4,
                 speed: float = 1.0, stop: threading.Event | None = None) -> PacingStats:
    """Step the bank at its control tick, poll each endpoint every `poll_every` ticks, and sleep so
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
