"""A world's pending quadrotor commands: `fly` setpoints, and the vehicles that fly the generic
velocity and heading commands (`set_velocity`, `set_heading`, `turn`) as every other body does.

A quadrotor told `set_velocity` flies that body-frame velocity while holding the commanded heading
(Mode.SPEED_VERTICAL_HEADING), and yaws to every new `set_heading` or `turn`, as a multicopter
flown by an autopilot does. After `fly`, a heading command moves the heading of the mode flown, or
of its sibling that holds one; attitude and motor modes have no heading to hold and refuse it.
"""

from __future__ import annotations

import math

import numpy as np

from physics.bodies.quadrotor import Mode, QuadrotorBank

_WITH_HEADING = {Mode.SPEED_VERTICAL: Mode.SPEED_VERTICAL_HEADING, Mode.SPEED_ALTITUDE: Mode.SPEED_ALT_HEADING,
                 Mode.SPEED_VERTICAL_HEADING: Mode.SPEED_VERTICAL_HEADING,
                 Mode.SPEED_ALT_HEADING: Mode.SPEED_ALT_HEADING, Mode.POSITION: Mode.POSITION}


class QuadCommands:
    """Commands given between two latches, applied to the bank at the next one."""

    def __init__(self) -> None:
        self.pending: dict[int, tuple] = {}
        self.follows = np.zeros(0, dtype=bool)  # per robot: flies cmd_vel and cmd_heading
        self._rows = np.zeros(0, dtype=np.int64)  # bank rows that follow, robot ids beside them
        self._robots = np.zeros(0, dtype=np.int64)
        self._stale = False

    def allocate(self, n: int) -> None:
        self.follows = np.zeros(n, dtype=bool)

    def fly(self, i: int, mode: Mode, a: float, b: float, c: float, d: float) -> None:
        self.pending[i] = (mode, a, b, c, d)
        if self.follows[i]:
            self.follows[i] = False
            self._stale = True

    def follow(self, robots) -> None:
        """These robots (quadrotors only) fly the generic commands from the next latch on."""
        for i in np.atleast_1d(robots).tolist():
            self.pending.pop(i, None)
        self.follows[robots] = True
        self._stale = True

    def steer(self, robots, slot: np.ndarray, bank: QuadrotorBank | None, heading: np.ndarray) -> None:
        """New headings for quadrotors that fly a `fly` mode: that mode's heading, or its sibling's."""
        for i in np.atleast_1d(robots).tolist():
            if self.follows[i]:
                continue
            if i in self.pending:
                mode, a, b, c, _ = self.pending[i]
            elif bank is None:
                continue  # not started: every vehicle holds its start heading, the command is read at start
            else:
                k = int(slot[i])
                mode, (a, b, c, _) = Mode(int(bank.mode[k])), bank.setpoint[k].tolist()
            if Mode(mode) not in _WITH_HEADING:
                raise ValueError(f"robot {i} flies in {Mode(mode).name.lower()} mode, which has no heading to hold; "
                                 "fly a speed or position mode (or set_velocity) before set_heading or turn")
            self.pending[i] = (_WITH_HEADING[Mode(mode)], a, b, c, float(heading[i]))

    def apply(self, bank: QuadrotorBank, slot: np.ndarray, cmd_vel: np.ndarray, cmd_heading: np.ndarray) -> None:
        """At a latch: pending `fly` commands, then the followers' velocities and headings."""
        for i, cmd in self.pending.items():
            bank.command(int(slot[i]), *cmd)
        self.pending.clear()
        if self._stale:
            self._robots = np.nonzero(self.follows)[0]
            self._rows = slot[self._robots]
            for k in self._rows.tolist():
                bank.command(k, Mode.SPEED_VERTICAL_HEADING, 0.0, 0.0, 0.0, math.nan)
            self._stale = False
        if len(self._rows):
            bank.setpoint[self._rows, :3] = cmd_vel[self._robots]
            bank.setpoint[self._rows, 3] = cmd_heading[self._robots]
