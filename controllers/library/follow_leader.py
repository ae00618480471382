"""`FollowLeader`: a leader flies a loop of waypoints and beacons its position; followers keep their
place in the formation around it, knowing the leader only from its beacons.

Used by the mixed real/simulated scenario (configs/mavlink_mixed.yaml): the leader can be the twin
of a real vehicle, and the simulated followers then track the real vehicle over the simulated radio.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from controllers import Controller, Message

_BEACON = struct.Struct("<4sfff")
_MAGIC = b"LEAD"


class FollowLeader(Controller):
    """Leader (`leader: true`): visits `waypoints` (x, y offsets from where it starts, metres) at
    `altitude`, within `tolerance`, looping if `loop`, and broadcasts its position every
    `beacon_period` seconds. Follower: climbs to `altitude` above its start, then flies to the
    leader's latest beaconed position plus its own offset (its start minus the leader's first
    beaconed position, in x and y). Records `waypoint` (leader) and `leader_seen` (followers)."""

    @dataclass(frozen=True)
    class Params:
        leader: bool = False
        waypoints: tuple[tuple[float, float], ...] = ((8.0, 0.0), (8.0, 8.0), (0.0, 8.0), (0.0, 0.0))
        altitude: float = 3.0
        tolerance: float = 0.5
        loop: bool = True
        beacon_period: float = 0.5

        def __post_init__(self) -> None:
            if self.leader and not self.waypoints:
                raise ValueError("a leader needs at least one waypoint")
            if self.tolerance <= 0 or self.beacon_period <= 0 or self.altitude <= 0:
                raise ValueError("tolerance, beacon_period and altitude must be > 0")

    period = 0.1

    def setup(self) -> None:
        p = self.robot.position
        self.home = (float(p[0]), float(p[1]))
        self.index = 0
        self.offset: tuple[float, float] | None = None
        self.leader_at: tuple[float, float, float] | None = None
        if self.params.leader:
            self.every(self.params.beacon_period, self._beacon)
            self._go()
        else:
            self.robot.fly("position", self.home[0], self.home[1], float(p[2]) + self.params.altitude)

    # -- leader ----------------------------------------------------------------------------------
    def _target(self) -> tuple[float, float, float]:
        dx, dy = self.params.waypoints[self.index]
        return self.home[0] + dx, self.home[1] + dy, self.params.altitude

    def _go(self) -> None:
        x, y, z = self._target()
        p = self.robot.position
        heading = math.atan2(y - float(p[1]), x - float(p[0])) if math.hypot(x - p[0], y - p[1]) > 0.1 else None
        self.robot.fly("position", x, y, z, heading)

    def _beacon(self) -> None:
        p = self.robot.position
        self.net.broadcast(_BEACON.pack(_MAGIC, float(p[0]), float(p[1]), float(p[2])))

    def step(self) -> None:
        if not self.params.leader or self.index >= len(self.params.waypoints):
            return
        p = self.robot.position
        if math.dist((float(p[0]), float(p[1]), float(p[2])), self._target()) < self.params.tolerance:
            self.record("waypoint", self.index)
            self.index += 1
            if self.index == len(self.params.waypoints) and self.params.loop:
                self.index = 0
            if self.index < len(self.params.waypoints):
                self._go()

    # -- follower --------------------------------------------------------------------------------
    def on_message(self, msg: Message) -> None:
        if self.params.leader or len(msg.payload) != _BEACON.size or msg.payload[:4] != _MAGIC:
            return
        _, x, y, z = _BEACON.unpack(msg.payload)
        if self.offset is None:
            self.offset = (self.home[0] - x, self.home[1] - y)
            self.record("leader_seen", msg.src)
        self.leader_at = (x, y, z)
        self.robot.fly("position", x + self.offset[0], y + self.offset[1], z)
