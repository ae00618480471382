"""`BarrierDrone`: ROSBuzz's consensus barrier (paper 004, section IV) on a quadrotor, written with
the swarm library (controllers.swarm).

Each robot waits a random time (the stakeholder's take-off order reaching it), takes off, and on
reaching its altitude enters the barrier: `Swarm.barrier` writes its id into a virtual stigmergy
that the swarm gossips every `gossip_period` in frames of at most 250 bytes. It passes when the
table holds `swarm_size` robots, or when another robot has marked the barrier done, and flies to
its slot on a circle. It records `takeoff_done`, `barrier_passed` and `barrier_wait` (seconds in
the barrier); a robot still waiting after `timeout` records `barrier_timeout` and hovers (Buzz's
resume state).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from controllers import Controller, Message
from controllers.swarm import Swarm


class BarrierDrone(Controller):
    @dataclass(frozen=True)
    class Params:
        swarm_size: int = 6
        altitude: float = 5.0
        takeoff_delay_max: float = 10.0
        gossip_period: float = 0.1
        timeout: float = 600.0
        slot_radius: float = 6.0

        def __post_init__(self) -> None:
            if self.swarm_size < 1 or self.altitude <= 0 or self.gossip_period <= 0 or self.timeout <= 0:
                raise ValueError("swarm_size >= 1; altitude, gossip_period and timeout > 0")
            if self.takeoff_delay_max < 0:
                raise ValueError("takeoff_delay_max must be >= 0")

    period = 0.1

    def setup(self) -> None:
        self.state = "turned_off"
        self.swarm = Swarm(self, budget=250, gossip_period=self.params.gossip_period)
        self.barrier = self.swarm.barrier("takeoff", self.params.swarm_size, self._passed)
        p = self.robot.position
        self.home = (float(p[0]), float(p[1]), float(p[2]))
        self.after(float(self.rng.uniform(0.0, self.params.takeoff_delay_max)), self._take_off)

    def _take_off(self) -> None:
        self.state = "takeoff"
        self.robot.fly("position", self.home[0], self.home[1], self.params.altitude)

    def on_message(self, msg: Message) -> None:
        self.swarm.absorb(msg)

    def step(self) -> None:
        if self.state == "takeoff" and self.robot.position[2] >= self.params.altitude - 0.2:
            self.state = "barrier"
            self.entered = self.now
            self.record("takeoff_done", self.now)
            self.barrier.enter()
        elif self.state == "barrier" and self.now - self.entered >= self.params.timeout:
            self.state = "resume"
            self.record("barrier_timeout", self.now)
            self.robot.hover()

    def _passed(self) -> None:
        self.state = "formation"
        self.record("barrier_passed", self.now)
        self.record("barrier_wait", self.now - self.entered)
        a = 2 * math.pi * self.id / self.params.swarm_size
        r = self.params.slot_radius
        self.robot.fly("position", r * math.cos(a), r * math.sin(a), self.params.altitude)
