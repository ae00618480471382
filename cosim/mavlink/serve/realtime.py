"""Pace a standalone vehicle model and its MAVLink endpoints to the wall clock (real-time factor 1 by default)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from physics.bodies.diff_drive import DiffDriveBank

log = logging.getLogger(__name__)

SLIP_AFTER_SIM_S = 0.05
"""A stand-in vehicle this far behind the wall clock (simulated s) resumes from now rather than run the
lost time at once: far below the autopilots' setpoint time-outs (PX4's COM_OF_LOSS_T is 1 s)."""


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
    """Waits made (ticks or polls), how many came late (by more than the allowed lateness), the
    worst lateness (s), and the wall time given up instead of caught up (s, see Pacer)."""

    ticks: int = 0
    overruns: int = 0
    worst_late_s: float = 0.0
    slipped_s: float = 0.0


class Pacer:
    """Holds simulated time to `speed` times the wall clock: `wait(t_s)` sleeps until the wall clock
    reaches simulated time `t_s`, or counts an overrun when it is already more than `late_after_s`
    past it. Overruns are summed up in one log line per `report_every_s` simulated seconds that had
    any: how many ticks came late and the worst lateness. Lateness is caught up by not sleeping, unless
    it exceeds `slip_after_s` (wall s): then the clock slips instead, simulated time resuming from now,
    as a simulator that stalls does (a vehicle's stand-in must not run a stretch of simulated time at
    once, with no chance for its clients to send)."""

    def __init__(self, speed: float = 1.0, late_after_s: float = 0.0, report_every_s: float = 10.0,
                 slip_after_s: float = float("inf")) -> None:
        self.speed = speed
        self.late_after_s = late_after_s
        self.report_every_s = report_every_s
        self.slip_after_s = slip_after_s
        self.stats = PacingStats()
        self.restart()

    def restart(self) -> None:
        """Simulated time 0 is now."""
        self._t0 = time.perf_counter()
        self._window = (0.0, PacingStats(), 0.0)  # start, its counts, when its worst lateness was

    def wait(self, t_s: float) -> None:
        st = self.stats
        start, window, worst_at = self._window
        if t_s - start >= self.report_every_s:
            self.report(t_s)
            start, window, worst_at = self._window
        st.ticks += 1
        window.ticks += 1
        ahead = self._t0 + t_s / self.speed - time.perf_counter()
        if ahead > 0:
            time.sleep(ahead)
        elif -ahead > self.slip_after_s:
            self._t0 -= ahead
            st.slipped_s -= ahead
            window.slipped_s -= ahead
        if -ahead > self.late_after_s:
            st.overruns += 1
            st.worst_late_s = max(st.worst_late_s, -ahead)
            window.overruns += 1
            if -ahead > window.worst_late_s:
                window.worst_late_s = -ahead
                worst_at = t_s
            self._window = (start, window, worst_at)

    def report(self, t_s: float) -> None:
        """The summary of the window up to t_s (if anything came late), and a new window from t_s."""
        start, window, worst_at = self._window
        if window.overruns:
            slipped = f"; {window.slipped_s:.2f} s of wall time slipped, not caught up" if window.slipped_s else ""
            log.warning("real-time pacing: %d of %d ticks late between t = %.1f and %.1f s, worst %.1f ms behind "
                        "(at t = %.2f s)%s", window.overruns, window.ticks, start, t_s, window.worst_late_s * 1e3, worst_at,
                        slipped)
        self._window = (t_s, PacingStats(), 0.0)


def run_realtime(bank: Steppable, endpoints: list, duration_s: float, poll_every: int = 4,
                 speed: float = 1.0, stop: threading.Event | None = None) -> PacingStats:
    """Step the model (a QuadrotorBank or a DriveStepper) at its tick, poll each endpoint every
    `poll_every` ticks, and sleep so that simulated time runs at `speed` times the wall clock. Behind
    by more than SLIP_AFTER_SIM_S of simulated time, the clock slips (see Pacer)."""
    pacer = Pacer(speed, late_after_s=bank.tick, slip_after_s=SLIP_AFTER_SIM_S / speed)
    for k in range(round(duration_s / bank.tick)):
        if stop is not None and stop.is_set():
            break
        bank.step()
        if k % poll_every == 0:
            for ep in endpoints:
                ep.poll(bank.t)
        pacer.wait(bank.t)
    pacer.report(bank.t)
    return pacer.stats
