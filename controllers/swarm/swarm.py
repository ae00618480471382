"""`Swarm`: Buzz's primitives for a per-robot `Controller`, over its radio.

    def setup(self):
        self.swarm = Swarm(self, budget=250, gossip_period=0.1)
        self.table = self.swarm.stigmergy("targets")
        self.swarm.listen("alarm", self.on_alarm)
    def on_message(self, msg):
        self.swarm.absorb(msg)

Every `gossip_period` the swarm broadcasts, for each table and for the group records, what changed
since the last time and then the rest in rotation: at most `frames_per_gossip` frames of at most
`budget` bytes each. Topic messages go at once, one frame each.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any

from controllers.api import Controller, Message
from controllers.swarm import codec, frames
from controllers.swarm.barrier import Barrier
from controllers.swarm.membership import Membership
from controllers.swarm.neighbors import Neighbors, Peer
from controllers.swarm.stigmergy import ConflictRule, VirtualStigmergy, higher_writer_wins

Listener = Callable[[Any, int], None]
"""Called with (value, sender id) for each topic message heard."""


class SwarmGroup:
    """Swarm group `gid` as seen by one robot."""

    def __init__(self, swarm: Swarm, gid: int) -> None:
        self._swarm = swarm
        self.gid = gid

    def join(self) -> None:
        m = self._swarm.membership
        m.set_mine(m.mine() | {self.gid})

    def leave(self) -> None:
        m = self._swarm.membership
        m.set_mine(m.mine() - {self.gid})

    def select(self, condition: bool) -> None:
        """Join if `condition`, else leave."""
        self.join() if condition else self.leave()

    def contains_me(self) -> bool:
        return self.gid in self._swarm.membership.mine()

    def members(self) -> list[int]:
        return self._swarm.membership.members(self.gid)


class Swarm:
    """The primitives of one robot (see the module docstring)."""

    def __init__(self, controller: Controller, budget: int = frames.BUZZ_BUDGET, gossip_period: float = 0.1,
                 frames_per_gossip: int = 1, range_noise_m: float = 0.0, bearing_noise_rad: float = 0.0) -> None:
        if budget < 16 or gossip_period <= 0 or frames_per_gossip < 1 or range_noise_m < 0 or bearing_noise_rad < 0:
            raise ValueError("budget >= 16 bytes, gossip_period > 0, frames_per_gossip >= 1, noises >= 0")
        self._ctl = controller
        self.me = controller.id
        self.budget = budget
        self.frames_per_gossip = frames_per_gossip
        self.range_noise_m = range_noise_m
        self.bearing_noise_rad = bearing_noise_rad
        self.membership = Membership(self.me)
        self.tables: dict[str, VirtualStigmergy] = {}
        self._listeners: dict[str, list[Listener]] = {}
        self._barriers: dict[str, list[Barrier]] = {}
        self._cursor: dict[str, int] = {}
        controller.every(gossip_period, self._gossip)

    # -- primitives ----------------------------------------------------------------------------
    def stigmergy(self, name: str = "vs", conflict: ConflictRule = higher_writer_wins) -> VirtualStigmergy:
        """The table `name` (made on first use; later calls return the same one)."""
        if name not in self.tables:
            self.tables[name] = VirtualStigmergy(self.me, name, conflict, lambda k, e, n=name: self._changed(n, k), self.budget)
        return self.tables[name]

    def barrier(self, name: str, size: int, on_release: Callable[[], None]) -> Barrier:
        """Barrier `name` for `size` robots, kept in its own table; call `.enter()` to take part."""
        b = Barrier(self.stigmergy(f"barrier/{name}"), size, on_release)
        self._barriers.setdefault(f"barrier/{name}", []).append(b)
        return b

    def group(self, gid: int) -> SwarmGroup:
        return SwarmGroup(self, int(gid))

    def neighbors(self) -> Neighbors:
        """Robots heard within the neighbour timeout, with noisy distance and bearing."""
        rng = self._ctl.rng
        peers = [Peer(n.id, max(0.0, n.range_m + self.range_noise_m * float(rng.standard_normal())),
                      n.bearing + self.bearing_noise_rad * float(rng.standard_normal()))
                 for n in self._ctl.net.neighbors()]
        return Neighbors(peers, self.membership.groups_of)

    def emit(self, topic: str, value: Any) -> None:
        """Broadcast `value` on `topic` now, in one frame; refused if it does not fit the budget."""
        frame = frames.header(frames.TOPIC) + codec.encode(topic) + codec.encode(value)
        if len(frame) > self.budget:
            raise ValueError(f"topic {topic!r}: {len(frame)} bytes do not fit a {self.budget}-byte frame; "
                             "send less per message or raise the swarm's budget")
        self._ctl.net.broadcast(frame)

    def listen(self, topic: str, fn: Listener) -> None:
        self._listeners.setdefault(topic, []).append(fn)

    def ignore(self, topic: str) -> None:
        self._listeners.pop(topic, None)

    # -- the radio ------------------------------------------------------------------------------
    def absorb(self, msg: Message) -> bool:
        """Take a swarm frame; False for anything else (for the controller to handle)."""
        kind = frames.kind_of(msg.payload)
        if kind == frames.TOPIC:
            topic, i = codec.decode_at(msg.payload, 2)
            value, _ = codec.decode_at(msg.payload, i)
            for fn in list(self._listeners.get(topic, ())):
                fn(value, msg.src)
        elif kind == frames.TABLE:
            name, _ = codec.decode_at(msg.payload, 2)
            if name in self.tables:
                self.tables[name].absorb(msg.payload)
        elif kind == frames.GROUPS:
            self.membership.absorb(msg.payload)
        return kind is not None

    def _changed(self, table: str, key: Hashable) -> None:
        for b in self._barriers.get(table, ()):
            b.check()

    def _gossip(self) -> None:
        for name, table in self.tables.items():
            self._send(name, table.fresh, table.keys(), table.frames)
        m = self.membership
        if len(m.records) > 1 or m.mine():
            self._send("", m.fresh, list(m.records), m.frames)

    def _send(self, name: str, fresh: list, everything: list, make: Callable[[int, list], Iterator[tuple[bytes, int]]]) -> None:
        """What changed first, then the rest in rotation, within frames_per_gossip frames."""
        start = self._cursor.get(name, 0) % max(1, len(everything))
        rest = [k for k in everything[start:] + everything[:start] if k not in fresh]
        first = list(fresh)
        sent = 0
        for (frame, count), _ in zip(make(self.budget, first + rest), range(self.frames_per_gossip)):
            self._ctl.net.broadcast(frame)
            sent += count
        del fresh[:min(sent, len(first))]  # a lost frame's entries come round again in the rotation
        self._cursor[name] = start + max(0, sent - len(first))
