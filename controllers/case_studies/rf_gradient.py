"""RF gradient navigation (Simbeeotic, paper 000, figure 10): beacons broadcast a gradient value,
and MAVs travel between the hive and the edge of the field by a biased random walk on it.

`GradientBeacon` stands still and broadcasts its value: its distance from the hive in beacon
spacings (0 at the hive, growing along each path). `GradientWalker` estimates where it is in the
gradient from the beacons it heard lately, each weighted by its received power (so signal strength
interpolates between beacon values), and runs and tumbles: while the estimate moves the way it
wants (out to the edge, then home to the hive) it keeps its heading; otherwise it turns by a random
angle. Out of earshot of every beacon it turns back, and if still lost searches at random. It
records `reached_edge` and `reached_hive` (the estimate at each arrival) and `gradient` (its
estimate, each second).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from controllers import Controller, Message

_BEACON = struct.Struct("<4sf")


class GradientBeacon(Controller):
    @dataclass(frozen=True)
    class Params:
        hive: tuple[float, float] = (0.0, 0.0)
        spacing: float = 10.0
        period_s: float = 0.5

        def __post_init__(self) -> None:
            if self.spacing <= 0 or self.period_s <= 0:
                raise ValueError("spacing and period_s must be > 0")

    period = None

    def setup(self) -> None:
        p = self.robot.position
        self.value = round(math.hypot(float(p[0]) - self.params.hive[0], float(p[1]) - self.params.hive[1])
                           / self.params.spacing)
        self.every(self.params.period_s, lambda: self.net.broadcast(_BEACON.pack(b"GRAD", float(self.value))),
                   phase=float(self.rng.uniform(0, self.params.period_s)))


class GradientWalker(Controller):
    @dataclass(frozen=True)
    class Params:
        speed: float = 1.0
        edge_value: float = 7.0
        """The estimate at which a walker counts as at the edge of the field."""
        hive_value: float = 0.5
        memory_s: float = 1.5
        """Beacon packets older than this are forgotten."""
        decide_every_s: float = 1.0
        tumble_max: float = 2.5
        """A tumble turns by a uniform angle in [-tumble_max, tumble_max] radians."""
        lost_after_s: float = 3.0

        def __post_init__(self) -> None:
            if min(self.speed, self.memory_s, self.decide_every_s, self.lost_after_s) <= 0:
                raise ValueError("speed, memory_s, decide_every_s and lost_after_s must be > 0")

    period = None

    def setup(self) -> None:
        self.heard: list[tuple[float, float, float]] = []  # (time, value, linear power)
        self.outbound = True
        self.last_estimate: float | None = None
        self.last_heard = 0.0
        self.searching = False
        self.robot.set_heading(float(self.rng.uniform(-math.pi, math.pi)))
        self.robot.set_velocity(self.params.speed)
        self.every(self.params.decide_every_s, self._decide, phase=float(self.rng.uniform(0, self.params.decide_every_s)))
        self.every(1.0, self._log)

    def on_message(self, msg: Message) -> None:
        if len(msg.payload) != _BEACON.size or msg.payload[:4] != b"GRAD":
            return
        value = _BEACON.unpack(msg.payload)[1]
        self.heard.append((self.now, value, 10.0 ** (msg.rssi_dbm / 10.0)))
        self.last_heard = self.now

    def estimate(self) -> float | None:
        """Power-weighted mean of the values heard within memory_s (None: nothing heard)."""
        cutoff = self.now - self.params.memory_s
        self.heard = [h for h in self.heard if h[0] >= cutoff]
        if not self.heard:
            return None
        total = sum(w for _, _, w in self.heard)
        return sum(v * w for _, v, w in self.heard) / total

    def _log(self) -> None:
        g = self.estimate()
        if g is not None:
            self.record("gradient", g)

    def _decide(self) -> None:
        p = self.params
        g = self.estimate()
        if g is None:
            if self.now - self.last_heard > p.lost_after_s:
                # out of the field: head back the way it came, then (still lost) search at random
                self.robot.turn(math.pi if not self.searching else float(self.rng.uniform(-math.pi, math.pi)))
                self.searching = True
                self.last_heard = self.now + p.lost_after_s  # give the new heading twice as long
            return
        self.searching = False
        if self.outbound and g >= p.edge_value:
            self.record("reached_edge", g)
            self.outbound = False
            self.robot.turn(math.pi)
        elif not self.outbound and g <= p.hive_value:
            self.record("reached_hive", g)
            self.outbound = True
            self.robot.turn(math.pi)
        elif self.last_estimate is not None:
            better = g > self.last_estimate if self.outbound else g < self.last_estimate
            if not better:
                self.robot.turn(float(self.rng.uniform(-p.tumble_max, p.tumble_max)))
        self.last_estimate = g
        self.robot.set_velocity(p.speed)
