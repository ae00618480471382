"""Kilombo's follow-the-leader followers as one group controller (paper 002, section 5): the same
program as `kilobot.ChainFollower`, run for the whole chain once per Kilobot loop tick (32.25 ms in
Kilombo) with arrays instead of once per message; its rules are kilobot's own (`follow`, `orbit`,
`next_send`, `wheels`), applied to arrays.

Differences from the per-robot version, by design: a robot transmits at the first tick at or after
its message time (not at the exact instant), and reacts at the next tick to the last message from
its predecessor (not at the receive time). `kilobot.TickedChainFollower` is the per-robot program
with exactly these instants; the two give bit-identical trajectories (tests/controllers).
"""

from __future__ import annotations

import numpy as np

from controllers import GroupController
from controllers.case_studies import kilobot
from controllers.case_studies.kilobot import ChainParams

KILOMBO_TICK = 0.03225
"""Kilombo's loop period (s): kilo_ticks advance about 31 times a second."""


class ChainFollowerGroup(GroupController):
    """Each robot follows the robot whose node id is one below its own; see kilobot.ChainFollower."""

    Params = ChainParams
    period = KILOMBO_TICK

    def setup(self) -> None:
        g = self.group
        p = self.params
        # the phase a per-robot Kilobot draws first from its own stream, so both versions send at the same ticks
        self.next_tx = np.array([float(g.robot_rng(i).random()) * p.message_period for i in range(g.n)])
        self.gap = np.full(g.n, np.nan)
        self.motion_v = np.zeros(g.n)
        self.motion_w = np.zeros(g.n)
        g.drive(self.motion_v, self.motion_w)
        self.payloads = [int(node & 0xFFFF).to_bytes(2, "little") for node in g.ids.tolist()]
        self.every(5.0, lambda: self.group.record("gap", self.gap), phase=5.0)

    def step(self) -> None:
        g = self.group
        p = self.params
        now = self.now
        self._react(g.inbox())
        due = np.nonzero((self.next_tx <= now) & g.alive())[0]
        if len(due):
            self.next_tx[due] = kilobot.next_send(self.next_tx[due], now, p.message_period)
            g.broadcast(due, [self.payloads[i] for i in due.tolist()])

    def _react(self, inbox) -> None:
        """Steer by the last message from each robot's predecessor: stop when close, turn toward it
        until it is within `aim` ahead, then drive forward."""
        if not len(inbox):
            return
        g = self.group
        p = self.params
        mine = inbox.src == g.ids[inbox.dst] - 1
        if not mine.any():
            return
        rows = np.nonzero(mine)[0]
        dst = inbox.dst[rows]
        last = np.unique(dst[::-1], return_index=True)[1]  # each robot's last message
        rows = rows[len(rows) - 1 - last]
        who = inbox.dst[rows]
        src = inbox.src[rows]
        d = g.range_to(who, src)
        self.gap[who] = d
        v, w = kilobot.wheels(kilobot.follow(d, g.bearing_to(who, src), p), p)
        changed = (v != self.motion_v[who]) | (w != self.motion_w[who])
        self.motion_v[who] = v
        self.motion_w[who] = w
        if changed.any():
            g.drive(v[changed], w[changed], who[changed])


class OrbitPlanetGroup(GroupController):
    """Kilombo's orbit for a group of planets (see kilobot.OrbitPlanet): at each tick a planet steers
    by the last message it received, forward when too close to the star, left when inside the
    desired distance, right beyond it; it records `distance` for that message. Planets transmit
    their id every `message_period`, as every Kilobot does. `kilobot.TickedOrbitPlanet` is the
    per-robot program at the same instants."""

    Params = kilobot.OrbitParams
    period = KILOMBO_TICK

    def setup(self) -> None:
        g = self.group
        p = self.params
        self.streams = [g.robot_rng(i) for i in range(g.n)]
        self.next_tx = np.array([float(s.random()) * p.message_period for s in self.streams])
        self.motion = np.full(g.n, -1)
        self.payloads = [int(node & 0xFFFF).to_bytes(2, "little") for node in g.ids.tolist()]
        g.drive(0.0, 0.0)

    def step(self) -> None:
        g = self.group
        p = self.params
        inbox = g.inbox()
        if len(inbox):
            last = np.unique(inbox.dst[::-1], return_index=True)[1]
            rows = len(inbox) - 1 - last
            who = inbox.dst[rows]
            src = inbox.src[rows]
            d = g.range_to(who, src)
            if p.distance_noise:
                d = d + np.array([float(self.streams[i].normal(0.0, p.distance_noise)) for i in who.tolist()])
            g.record("distance", d, who)
            g.drive(*kilobot.wheels(kilobot.orbit(d, p), p), who)
        now = self.now
        due = np.nonzero((self.next_tx <= now) & g.alive())[0]
        if len(due):
            self.next_tx[due] = kilobot.next_send(self.next_tx[due], now, p.message_period)
            g.broadcast(due, [self.payloads[i] for i in due.tolist()])
