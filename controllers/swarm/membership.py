"""Swarm groups (Buzz's `swarm.create`, `join`, `leave`, `select`, `in`): each robot keeps a record
of which groups every robot is in, versioned by that robot, and gossips the records it knows.

A robot's own record changes only on that robot (join, leave, select), with its version plus
one; a record heard from another robot replaces ours when its version is newer. So every robot
ends up with every robot's latest membership, over several hops and through lost frames.

Message cost: a record is the robot id, its version and its group ids as varints, about 3 bytes
plus one or two per group; a frame carries a 2-byte header.
"""

from __future__ import annotations

from collections.abc import Iterator

from controllers.swarm import codec, frames


class Membership:
    """One robot's view of every robot's groups."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.records: dict[int, tuple[int, frozenset[int]]] = {me: (0, frozenset())}
        self.fresh: list[int] = []

    def mine(self) -> frozenset[int]:
        return self.records[self.me][1]

    def set_mine(self, groups: frozenset[int]) -> None:
        version, old = self.records[self.me]
        if groups != old:
            self.records[self.me] = (version + 1, groups)
            self._fresh(self.me)

    def members(self, group: int) -> list[int]:
        """Robots known to be in `group` (their latest records), ascending."""
        return sorted(r for r, (_, groups) in self.records.items() if group in groups)

    def groups_of(self, robot: int) -> frozenset[int]:
        return self.records.get(robot, (0, frozenset()))[1]

    def merge(self, robot: int, version: int, groups: frozenset[int]) -> bool:
        known = self.records.get(robot)
        if robot == self.me or (known is not None and known[0] >= version):
            return False
        self.records[robot] = (version, groups)
        self._fresh(robot)
        return True

    def _fresh(self, robot: int) -> None:
        if robot not in self.fresh:
            self.fresh.append(robot)

    def frames(self, budget: int, robots: list[int] | None = None) -> Iterator[tuple[bytes, int]]:
        chosen = self.records if robots is None else robots
        items = (codec.encode((r, v, sorted(g))) for r in chosen if (rec := self.records.get(r)) for v, g in (rec,))
        return frames.pack(frames.header(frames.GROUPS), items, budget)

    def absorb(self, payload: bytes) -> int:
        news = 0
        i = 2
        while i < len(payload):
            (robot, version, groups), i = codec.decode_at(payload, i)
            news += self.merge(robot, version, frozenset(groups))
        return news
