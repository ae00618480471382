"""A controller that uses every swarm primitive, for the tests: it writes its own key and a
contested one into a table, joins group 1 if its id is even (robot 2 leaves again at 3 s), enters
a barrier after a random delay, and records once a second a checksum of its table and of group
1's members, so the test can compare every robot's view."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from controllers import Controller, Message
from controllers.swarm import Swarm, codec


class SwarmProbe(Controller):
    @dataclass(frozen=True)
    class Params:
        size: int = 8
        enter_max: float = 2.0
        extra_keys: int = 0
        """More float entries per robot, so the table takes several frames."""
        range_noise: float = 0.0
        hello_size: int = 1
        """Bytes of the `hello` topic message each robot emits at 0.5 s (too many: the run fails)."""

    period = 1.0

    def setup(self) -> None:
        self.swarm = Swarm(self, gossip_period=0.1, range_noise_m=self.params.range_noise, bearing_noise_rad=0.05)
        self.swarm.listen("hello", lambda value, src: self.record("hello_from", src))
        self.after(0.5, lambda: self.swarm.emit("hello", bytes(self.params.hello_size)))
        self.table = self.swarm.stigmergy("t")
        self.table.put(f"r{self.id}", self.id * 10)
        for k in range(self.params.extra_keys):
            self.table.put(f"x{self.id}.{k}", float(self.rng.standard_normal()))
        self.group = self.swarm.group(1)
        self.group.select(self.id % 2 == 0)
        self.barrier = self.swarm.barrier("b", self.params.size, lambda: self.record("released", self.now))
        self.after(float(self.rng.uniform(0.0, self.params.enter_max)), self.barrier.enter)
        if self.id in (0, 5):  # the same clock from two writers: the conflict rule decides
            self.after(1.0, lambda: self.table.put("shared", f"from {self.id}"))
        if self.id == 2:
            self.after(3.0, self.group.leave)

    def on_message(self, msg: Message) -> None:
        self.swarm.absorb(msg)

    def step(self) -> None:
        entries = sorted((str(k), e.value, e.clock, e.writer) for k, e in self.table.entries.items())
        self.record("table_crc", zlib.crc32(codec.encode(entries)))
        self.record("group_crc", zlib.crc32(codec.encode(self.group.members())))
        self.record("table_size", len(self.table))
        near = self.swarm.neighbors()
        self.record("neighbors", len(near))
        self.record("kin", len(near.kin(1)))
        self.record("mean_distance", near.reduce(lambda p, acc: acc + p.distance, 0.0) / max(1, len(near)))
