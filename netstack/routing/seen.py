"""Duplicate detection for routed data: the packets a node has already handled, by source and
sequence number (sequence numbers are per source), the oldest forgotten beyond `memory`."""

from __future__ import annotations

from collections import OrderedDict

from netstack.routing.base import Packet


class SeenPackets:
    """`first_time(packet)` is True once per packet (within the last `memory` packets seen)."""

    def __init__(self, memory: int) -> None:
        if memory < 1:
            raise ValueError(f"memory must be >= 1 packet, got {memory}")
        self.memory = memory
        self._seen: OrderedDict[tuple[int, int], None] = OrderedDict()

    def first_time(self, packet: Packet) -> bool:
        key = (packet.src, packet.seq)
        if key in self._seen:
            return False
        self._seen[key] = None
        if len(self._seen) > self.memory:
            self._seen.popitem(last=False)
        return True
