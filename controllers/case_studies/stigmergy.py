"""Virtual stigmergy (Buzz, paper 004): a key/value table every robot holds a copy of, kept
consistent by Lamport clocks. A `put` stamps the entry with its key's clock plus one; an entry
heard from a neighbour replaces ours when its clock is newer (equal clocks: the higher writer id
wins). Robots gossip their whole table, so updates travel over several hops and survive loss.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_ENTRY = struct.Struct("<iIHf")  # key, lamport clock, writer, value
_HEADER = struct.Struct("<4sH")  # magic, table id
MAGIC = b"VSTG"


@dataclass
class Entry:
    value: float
    clock: int
    writer: int


class VirtualStigmergy:
    """One robot's copy of table `table_id` (several tables can share the radio)."""

    def __init__(self, robot_id: int, table_id: int = 1) -> None:
        self.me = robot_id
        self.table_id = table_id
        self.entries: dict[int, Entry] = {}
        self.changed = False  # something new since the last gossip

    def put(self, key: int, value: float) -> None:
        old = self.entries.get(key)
        if old is not None and old.value == value and old.writer == self.me:
            return  # nothing new to say
        self.entries[key] = Entry(float(value), (old.clock if old else 0) + 1, self.me)
        self.changed = True

    def get(self, key: int) -> float | None:
        e = self.entries.get(key)
        return None if e is None else e.value

    def size(self) -> int:
        return len(self.entries)

    def merge(self, key: int, value: float, clock: int, writer: int) -> bool:
        """Take a neighbour's entry if it is newer than ours; True if it was."""
        old = self.entries.get(key)
        if old is None or clock > old.clock or (clock == old.clock and writer > old.writer):
            self.entries[key] = Entry(value, clock, writer)
            self.changed = True
            return True
        return False

    def encode(self, max_bytes: int = 250) -> bytes:
        """The table as one radio frame (at most `max_bytes`, Buzz's XBee budget; the oldest-clocked
        entries are left out if it does not fit)."""
        room = (max_bytes - _HEADER.size) // _ENTRY.size
        items = sorted(self.entries.items(), key=lambda kv: -kv[1].clock)[:room]
        return _HEADER.pack(MAGIC, self.table_id) + b"".join(
            _ENTRY.pack(k, e.clock, e.writer, e.value) for k, e in sorted(items))

    def absorb(self, payload: bytes) -> int:
        """Merge a gossiped frame; returns how many entries were newer (0 for other tables or traffic)."""
        if len(payload) < _HEADER.size or payload[:4] != MAGIC:
            return 0
        if _HEADER.unpack_from(payload)[1] != self.table_id:
            return 0
        newer = 0
        for off in range(_HEADER.size, len(payload) - _ENTRY.size + 1, _ENTRY.size):
            key, clock, writer, value = _ENTRY.unpack_from(payload, off)
            newer += self.merge(key, value, clock, writer)
        return newer
