"""Virtual stigmergy (Buzz, paper 004): a table of keys and values that every robot holds a copy of,
kept consistent with Lamport clocks.

A `put` stamps the entry with the key's clock plus one. An entry heard from another robot replaces
ours when its clock is newer; at equal clocks from different writers the table's conflict rule
decides (default: the higher writer id wins), the same rule on every robot, so all copies settle
on the same entry. Entries travel by gossip: each robot rebroadcasts its table, so they cross
several hops and outlive lost frames.

Message cost: an entry is its encoded key and value (netstack-independent codec, e.g. 2 bytes for
a small int, 9 for a float) plus its clock and writer as varints (2-6 bytes); a frame carries a
4-byte header and the table name.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from controllers.swarm import codec, frames


@dataclass(frozen=True)
class Entry:
    """One key's value, its Lamport clock and the robot that wrote it."""

    value: Any
    clock: int
    writer: int


ConflictRule = Callable[[Hashable, Entry, Entry], Entry]
"""(key, ours, theirs) -> the entry to keep, for two different writers at the same clock; it must
give the same answer on every robot (a pure function of its arguments)."""


def higher_writer_wins(key: Hashable, ours: Entry, theirs: Entry) -> Entry:
    return ours if ours.writer > theirs.writer else theirs


class VirtualStigmergy:
    """One robot's copy of the table `name` (several tables can share the radio)."""

    def __init__(self, me: int, name: str = "vs", conflict: ConflictRule = higher_writer_wins,
                 on_change: Callable[[Hashable, Entry], None] | None = None, budget: int = frames.BUZZ_BUDGET) -> None:
        self.me = me
        self.name = name
        self.budget = budget
        self._conflict = conflict
        self._on_change = on_change
        self.entries: dict[Hashable, Entry] = {}
        self.fresh: list[Hashable] = []  # keys changed since the last gossip went out

    def put(self, key: Hashable, value: Any) -> None:
        """Write `value` under `key` (a str or int), one clock tick after what this copy holds."""
        old = self.entries.get(key)
        if old is not None and old.writer == self.me and old.value == value:
            return
        entry = Entry(value, (old.clock if old else 0) + 1, self.me)
        size = len(codec.encode((key, value, entry.clock, entry.writer))) + len(self._head())
        if size > self.budget:  # refused now, not when it is gossiped
            raise ValueError(f"table {self.name!r}: the entry for {key!r} takes {size} bytes with its frame header, "
                             f"more than the {self.budget}-byte frame; store less under one key")
        self._set(key, entry)

    def get(self, key: Hashable, default: Any = None) -> Any:
        e = self.entries.get(key)
        return default if e is None else e.value

    def __len__(self) -> int:
        return len(self.entries)

    def keys(self) -> list[Hashable]:
        return list(self.entries)

    def merge(self, key: Hashable, theirs: Entry) -> bool:
        """Take another robot's entry if it wins over ours; True if it did."""
        ours = self.entries.get(key)
        if ours is None or theirs.clock > ours.clock:
            self._set(key, theirs)
            return True
        if theirs.clock == ours.clock and theirs.writer != ours.writer and theirs != ours:
            keep = self._conflict(key, ours, theirs)
            if keep is not ours:
                self._set(key, keep)
                return True
        return False

    def _set(self, key: Hashable, entry: Entry) -> None:
        self.entries[key] = entry
        if key not in self.fresh:
            self.fresh.append(key)
        if self._on_change is not None:
            self._on_change(key, entry)

    # -- on the radio --------------------------------------------------------------------------
    def frames(self, budget: int, keys: list[Hashable] | None = None) -> Iterator[tuple[bytes, int]]:
        """Entries `keys` (default: all) as (frame, entries in it), frames of at most `budget` bytes."""
        chosen = self.entries if keys is None else keys
        items = (codec.encode((k, e.value, e.clock, e.writer)) for k in chosen if (e := self.entries.get(k)) is not None)
        return frames.pack(self._head(), items, budget)

    def _head(self) -> bytes:
        return frames.header(frames.TABLE) + codec.encode(self.name)

    def absorb(self, payload: bytes) -> int:
        """Merge a table frame; the number of entries that were news (0 for another table)."""
        name, i = codec.decode_at(payload, 2)
        if name != self.name:
            return 0
        news = 0
        while i < len(payload):
            (key, value, clock, writer), i = codec.decode_at(payload, i)
            news += self.merge(key, Entry(value, clock, writer))
        return news
