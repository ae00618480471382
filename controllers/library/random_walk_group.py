"""Simbeeotic's random walk and InstrumentBee as group controllers: the whole swarm's walk in a few
array operations per tick (paper 000, section 5.1 workloads).

`RandomWalkGroup` draws each robot's noise from the stream its per-robot `RandomWalk` would use, in
the same blocks, and applies the same arithmetic: with the per-robot steps pinned to phase 0 (the
group's ticks), the two give bit-identical trajectories. `InstrumentSwarm` adds the compass reading
and the broadcast; they do not move the robots, so its trajectories are the walk's. Its compass
reads and broadcasts happen at its ticks, at phases drawn from the group's stream, not at the
per-robot timers' instants.
"""

from __future__ import annotations

import math

import numpy as np

from controllers import GroupController
from controllers.library.instrument import InstrumentBee
from controllers.library.random_walk import RandomWalk


class RandomWalkGroup(GroupController):
    """SimpleBee random walk for every robot of the group (see RandomWalk)."""

    Params = RandomWalk.Params
    period = 0.1
    BLOCK = RandomWalk.NOISE_BLOCK

    def setup(self) -> None:
        g = self.group
        g.set_velocity(0.0)
        self.vx = np.zeros(g.n)
        self.vy = np.zeros(g.n)
        self._noise = np.zeros((g.n, self.BLOCK))
        self._col = self.BLOCK
        self._streams = [g.robot_rng(i) for i in range(g.n)]

    def _draw(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._col + 3 > self.BLOCK:
            for i, stream in enumerate(self._streams):
                self._noise[i] = stream.standard_normal(self.BLOCK)
            self._col = 0
        k = self._col
        self._col += 3
        return self._noise[:, k], self._noise[:, k + 1], self._noise[:, k + 2]

    def propose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The walk's next (turn in radians, vx, vy in m/s, capped at max_speed) per robot, as each
        RandomWalk.propose would draw it."""
        p = self.params
        dh, dx, dy = self._draw()
        vx = self.vx + p.velocity_sigma * dx
        vy = self.vy + p.velocity_sigma * dy
        speed = np.fromiter(map(math.hypot, vx.tolist(), vy.tolist()), dtype=np.float64, count=self.group.n)
        over = speed > p.max_speed
        if over.any():
            scale = p.max_speed / speed[over]
            vx[over] *= scale
            vy[over] *= scale
        return p.heading_sigma * dh, vx, vy

    def step(self) -> None:
        g = self.group
        turn, vx, vy = self.propose()
        g.turn(turn)
        self.vx = vx
        self.vy = vy
        g.set_velocity(vx, vy if g.moves_sideways else 0.0, 0.0)


class InstrumentSwarm(RandomWalkGroup):
    """The random walk, a compass reading every `sensor_period` and a broadcast of `message_bytes`
    every `radio_period` (0: none) per robot, each robot at its own phase (see InstrumentBee)."""

    Params = InstrumentBee.Params

    def setup(self) -> None:
        super().setup()
        g = self.group
        p = self.params
        self.heading_reading = np.zeros(g.n)
        self.payload = bytes(i % 255 + 1 for i in range(p.message_bytes))
        self.next_read = self.rng.uniform(0.0, p.sensor_period, g.n)
        self.next_tx = self.rng.uniform(0.0, p.radio_period, g.n) if p.radio_period > 0 else np.full(g.n, np.inf)

    def step(self) -> None:
        super().step()
        p = self.params
        g = self.group
        now = self.now
        due = np.nonzero(self.next_read <= now)[0]
        if len(due):
            self.heading_reading[due] = g.read("compass", due)
            self.next_read[due] += p.sensor_period
        due = np.nonzero(self.next_tx <= now)[0]
        if len(due):
            g.broadcast(due, self.payload)
            self.next_tx[due] += p.radio_period
