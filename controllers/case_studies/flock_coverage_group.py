"""The UAV flock's followers (paper 003, section IV) as one group controller beside the per-robot
leader: every tick each follower flies to its slot about the leader's last beacon, and each beacons
its position every `beacon_period`, all in array operations (see flock_coverage.FlockCoverage for
the program; the slots and targets are its own functions, `slot` and `follower_target`).

Not bit-identical to the per-robot followers: these act at the group's ticks (phase 0) and beacon
at the first tick after their seeded phase, where per-robot followers step and beacon at their own
seeded phases. The mission is the same: tests/controllers/case_studies checks coverage, failure
detection and recovery with the group followers as for the per-robot ones.
"""

from __future__ import annotations

import math

import numpy as np

from controllers import GroupController
from controllers.case_studies.flock_coverage import FOLLOW_BEACON, LEAD_BEACON, FlockCoverage, follower_target, slot


class FlockFollowers(GroupController):
    """Followers of robot 0's flock: node id k holds the slot FlockCoverage gives robot k."""

    Params = FlockCoverage.Params
    period = 0.1

    def setup(self) -> None:
        g = self.group
        p = self.params
        th = math.radians(p.area_heading)
        self.v = np.array([-math.sin(th), math.cos(th)])  # across the passes
        self.slot = slot(g.ids, p.swarm_size, p.footprint)
        home = g.positions()[:, :2].copy()
        self.ref = home - self.slot[:, None] * self.v
        self.lane = np.full(g.n, math.atan2(math.sin(th), math.cos(th)))
        self.heard = np.zeros(g.n, dtype=bool)
        self.next_beacon = np.array([float(g.robot_rng(i).uniform(0, p.beacon_period)) for i in range(g.n)])
        g.fly("position", home[:, 0], home[:, 1], p.altitude)

    def step(self) -> None:
        g = self.group
        p = self.params
        now = self.now
        self._hear_leader(g.inbox())
        if now >= p.takeoff_time and self.heard.any():
            k = np.nonzero(self.heard & g.alive())[0]
            x, y = follower_target(self.ref[k], self.slot[k], self.v, self.lane[k], p.speed)
            g.fly("position", x, y, p.altitude, self.lane[k], idx=k)
        due = np.nonzero((self.next_beacon <= now) & g.alive())[0]
        if len(due):
            pos = g.positions()
            payloads = [FOLLOW_BEACON.pack(b"FOLW", int(g.ids[i]), float(pos[i, 0]), float(pos[i, 1])) for i in due.tolist()]
            g.broadcast(due, payloads)
            self.next_beacon[due] += p.beacon_period

    def _hear_leader(self, inbox) -> None:
        """The leader's last beacon each follower received: its reference point and lane heading."""
        for row in range(len(inbox)):
            data = inbox.payloads[row]
            if len(data) == LEAD_BEACON.size and data[:4] == b"LEAD":
                _, x, y, heading, _ = LEAD_BEACON.unpack(data)
                k = inbox.dst[row]
                self.ref[k] = (x, y)
                self.lane[k] = heading
                self.heard[k] = True
